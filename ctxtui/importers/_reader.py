"""Robust, read-only byte-level reading of JSON and JSONL transcripts.

What it guarantees is summed up in docs/formats.md, "The formats".

Every importer reads through here so that the hard cases are handled once: BOMs, CRLF, gzip
and zstd, corrupt or cut-off JSONL lines, several values on one line, absurd nesting, and
each kind of bad input turned into one ``SessionLoadError`` line a user can act on.
"""

from __future__ import annotations

import functools
import gc
import json
import re
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from ctxtui.core.errors import SessionLoadError
from ctxtui.core.literal import visible
from ctxtui.core.session.json_depth import MAX_DEPTH
from ctxtui.importers._deep import deep_call
from ctxtui.importers._stream import Source, binary_problem, open_file

SQLITE_MAGIC = b"SQLite format 3\x00"
_BOM = b"\xef\xbb\xbf"
_INT_CHARS = sys.get_int_max_str_digits() or sys.maxsize


def _parse_int(text: str) -> int | float:
    """A JSON integer; one too long for ``int()`` (4,300 digits) is read as a float (inf).

    Refusing a whole session over one absurd number in a field nobody reads would be worse,
    and an ``int`` that long could not even be printed; counts read from it are dropped
    (``_parts.as_int``), and no other field keeps a number.
    """
    return int(text) if len(text) <= _INT_CHARS else float(text)


_DECODER = json.JSONDecoder(parse_int=_parse_int)
_loads = functools.partial(json.loads, parse_int=_parse_int)
_WHITESPACE = " \t\n\r"
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
"""A ``\\uD800``-``\\uDFFF`` escape: the only way JSON text can carry a lone surrogate."""
_SURROGATE_ESCAPE_BYTES = re.compile(rb"\\u[dD][89a-fA-F]")
_SURROGATE = re.compile("[\ud800-\udfff]")
SNIPPET_CHARS = 24
"""How much of the offending text a 'found ...' message quotes."""


def json_kind(value: Any) -> str:
    """What a JSON value is, in words, for 'expected ..., found ...' messages."""
    if isinstance(value, dict):  # keys cut short: a key may be megabytes, or hold a newline
        keys = ", ".join(
            visible(k[:SNIPPET_CHARS]) + "…" * (len(k) > SNIPPET_CHARS) or "''"
            for k in list(value)[:6]
        )
        return f"a JSON object with keys: {keys}" if keys else "an empty JSON object"
    if isinstance(value, list):
        return f"a JSON array of {len(value):,} items"
    if isinstance(value, bool):
        return "a JSON boolean"
    if isinstance(value, (int, float)):
        return "a JSON number"
    if isinstance(value, str):
        return "a JSON string"
    return "JSON null"


def depth_exceeds(value: Any, limit: int = MAX_DEPTH) -> bool:
    """True when containers nest deeper than ``limit`` (checked without recursion).

    Walked one level at a time, keeping only the containers of each level: one list per level
    is cheaper than a stack of ``(item, depth)`` pairs.
    """
    level: list[Any] = [value] if isinstance(value, _CONTAINERS) else []
    depth = 0
    while level:
        depth += 1
        if depth > limit:
            return True
        below: list[Any] = []
        for item in level:
            children = item.values() if isinstance(item, dict) else item
            below += [child for child in children if isinstance(child, _CONTAINERS)]
        level = below
    return False


_CONTAINERS = (dict, list)


def scrub_text(text: str) -> str:
    """``text`` with every lone surrogate replaced by U+FFFD.

    A surrogate cannot be encoded as UTF-8, so one left in a session crashes whatever prints,
    tokenises or saves it; writers that split an emoji leave exactly such escapes behind.
    """
    return _SURROGATE.sub("\ufffd", text)


def _scrub(value: Any) -> Any:
    """``value`` with lone surrogates replaced in every string, key included.

    Only called on values already checked against ``MAX_DEPTH``, so recursion is bounded.
    """
    if isinstance(value, str):
        return scrub_text(value)
    if isinstance(value, list):
        return [_scrub(v) for v in value]
    if isinstance(value, dict):
        return {scrub_text(k): _scrub(v) for k, v in value.items()}
    return value


def snippet(text: str, start: int = 0) -> str:
    """Up to ``SNIPPET_CHARS`` characters of ``text`` from ``start``, quoted for a message."""
    line_end = text.find("\n", start)
    end = len(text) if line_end < 0 else line_end
    stop = min(end, start + SNIPPET_CHARS)
    part = text[start:stop].rstrip("\r")
    if not part:
        return "the end of the line" if stop < len(text) else "the end of the text"
    shown = visible(part)
    more = "…" if stop < end else ""
    return f"'{shown}{more}'"


def _too_deep(path: Path, line: int | None = None) -> SessionLoadError:
    return SessionLoadError(
        str(path), f"expected JSON, found nesting deeper than {MAX_DEPTH} levels", line
    )


_STRUCTURE = re.compile(r'["\\\[\]{}]')


def deep_line(text: str) -> int | None:
    """The line where ``text`` first nests past ``MAX_DEPTH`` (strings skipped), for the
    error; ``None`` if it never does. Run only once a parse has refused the text."""
    depth, in_string, skip = 0, False, -1
    for match in _STRUCTURE.finditer(text):
        at = match.start()
        if at == skip:
            continue
        ch = text[at]
        if in_string:
            if ch == "\\":
                skip = at + 1  # the escaped character, a quote or a backslash
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return text.count("\n", 0, at) + 1
        elif ch in "]}":
            depth -= 1
    return None


def _decode_document(path: Path, data: bytes) -> str:
    """Strict UTF-8 decoding of a whole document, reporting the line of a bad byte."""
    name = str(path)
    if not data or data.isspace():  # not data.strip(): that copies the whole file to ask
        raise SessionLoadError(name, "empty file: expected a JSON document, found nothing")
    data = data.removeprefix(_BOM)
    problem = binary_problem(data)
    if problem is not None:
        raise SessionLoadError(name, problem)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        bad = data[exc.start : exc.start + 1].hex()
        raise SessionLoadError(
            name, f"expected UTF-8 text, found invalid byte 0x{bad}", line
        ) from None


def _not_json(text: str, exc: json.JSONDecodeError) -> str:
    """What was found where a JSON document was expected.

    Text that does not even start as JSON (a log line, or ``2024-01-01 started``, which
    starts with a number and goes on as prose) is called plain text, quoted from its start;
    otherwise the error names the column and the parser's reason.
    """
    start = len(text) - len(text.lstrip(_WHITESPACE))
    if exc.pos == start or (exc.msg == "Extra data" and text[start] not in "[{"):
        return f"expected JSON, found plain text {snippet(text, start)}"
    reason = decode_error_reason(exc)
    return f"expected JSON, found {snippet(text, exc.pos)} at column {exc.colno} ({reason})"


def decode_error_reason(exc: json.JSONDecodeError) -> str:
    """The stdlib parser's reason, its ``Extra data`` said in words.

    After a complete value, another value (JSON Lines cut into one long line, or
    ``[1], [2]``) is more JSON that a document cannot hold; anything else (a stray ``}``, a
    trailing comma, prose) is text after the document's end.
    """
    if exc.msg != "Extra data":
        return exc.msg
    after = exc.doc[exc.pos : exc.pos + 64].lstrip(" \t\r\n,")  # ``[1], [2]`` is more JSON
    if after[:1] in _VALUE_STARTS:
        return "more JSON after the first value: a document holds one"
    return "more text after the end of the document"


_VALUE_STARTS = frozenset('{["-0123456789tfn')


def _parse_document(path: Path, text: str) -> Any:
    name = str(path)
    try:
        value = deep_call(_DECODER.decode, text)
    except RecursionError:
        raise _too_deep(path, deep_line(text)) from None
    except json.JSONDecodeError as exc:
        content_end = len(text.rstrip(_WHITESPACE))
        if exc.pos >= content_end:
            # json counts the trailing newline: name the last line that has content instead.
            last_line = text.count("\n", 0, content_end) + 1
            raise SessionLoadError(
                name, "truncated JSON: the document ends before it is complete", last_line
            ) from None
        raise SessionLoadError(name, _not_json(text, exc), exc.lineno) from None
    if depth_exceeds(value):
        raise _too_deep(path, deep_line(text))
    if not isinstance(value, (dict, list)):
        raise SessionLoadError(name, f"expected a JSON object or array, found {json_kind(value)}")
    # Scrubbed only when the text has a surrogate escape (almost never).
    return deep_call(_scrub, value) if _SURROGATE_ESCAPE.search(text) else value


_gc_lock = threading.Lock()
_gc_pauses = 0
_gc_resume = False


@contextmanager
def gc_paused() -> Iterator[None]:
    """Hold off CPython's cyclic collector while a large, acyclic value is built.

    Parsing a big transcript and building its messages allocates millions of containers that
    all stay alive; the collector, triggered every 700 allocations, keeps re-walking them
    although JSON values and session objects hold no cycles. Pauses nest and may overlap
    across threads (the app loads in a worker): the collector is switched back on by the last
    one out, and only if it was on when the first one came in. Nothing is lost: what is
    collectable is collected later.

    On the way out, what was allocated meanwhile is filed with the old objects
    (``gc.freeze`` then ``gc.unfreeze``, which moves lists, not objects) instead of being
    walked by the very next young collection and twice more on its way to the old
    generation. When something else froze objects (a shell keeps its open session frozen,
    ``ctxtui.system.heap``), that freeze must stand, so the new objects join the frozen ones
    instead: left young, millions of them would slow every young collection.
    """
    global _gc_pauses, _gc_resume
    with _gc_lock:
        if _gc_pauses == 0:
            _gc_resume = gc.isenabled()
            gc.disable()
        _gc_pauses += 1
    try:
        yield
    finally:
        with _gc_lock:
            _gc_pauses -= 1
            if _gc_pauses == 0 and _gc_resume:
                frozen = gc.get_freeze_count()
                gc.freeze()
                if not frozen:
                    gc.unfreeze()
                gc.enable()


def read_json(source: Source) -> Any:
    """Parse a whole JSON document (object or array); BOM accepted, errors as one line.

    The document is kept on the source (``Source.document``), so detection and the importer
    that follows parse a large file once. Callers must not mutate the returned value.

    Documents are parsed by pydantic-core's JSON parser when it can vouch for the result
    (``_fast_parse``), else by the stdlib, which also words every error. The parse runs with
    the collector paused (``gc_paused``): a document is a tree, and re-walking it while it
    grows is all the collector would do.
    """
    if source.document is not None:
        return source.document
    path = source.path
    with gc_paused():
        data = source.read_all()
        value = _fast_parse(data)
        if value is _UNDECIDED:
            text = _decode_document(path, data)
            del data
            value = _parse_document(path, text)
    source.document = value
    return value


def read_json_file(path: Path) -> Any:
    """``read_json`` of a file of its own (a sidecar, one file of a storage directory)."""
    with open_file(path) as source:
        return read_json(source)


_UNDECIDED: Any = object()
"""What ``_fast_parse`` returns when the stdlib path must parse (and word any error)."""


@dataclass(frozen=True)
class _FastJson:
    """What this pydantic-core's parser was seen to guarantee (probed once, ``_fast_json``)."""

    loads: Callable[[bytes], Any]
    depth: bool
    """A document wrapped in one more array is refused when the bare one nests > MAX_DEPTH."""
    bare_depth: bool
    """A bare document that nests > MAX_DEPTH is refused (so one accepted nests at most that)."""
    surrogates: bool
    """A lone surrogate escape is refused rather than decoded."""


def _refuses(loads: Callable[[bytes], Any], data: bytes) -> bool:
    try:
        loads(data)
    except ValueError:
        return True
    return False


@cache
def _fast_json() -> _FastJson | None:
    """Probe pydantic-core's JSON parser (jiter) for the two checks it can spare.

    jiter refuses containers nested past 200 non-empty levels; wrapped in one more array, a
    document it accepts therefore nests at most ``MAX_DEPTH`` levels by this module's count
    (which also counts an empty innermost container). It also refuses lone surrogate escapes,
    which the stdlib decodes. Both are probed rather than assumed, so a pydantic-core that
    parses differently costs the walk or the scan it no longer saves, never a wrong answer.
    Imported here, not at the top: importing the importers (``ctxtui formats``, the CLI's
    help) should not pay for it.
    """
    try:
        from pydantic_core import from_json

        def loads(data: bytes) -> Any:
            return from_json(data, cache_strings="keys")

        if loads(b'[{"a": [1]}]') != [{"a": [1]}]:
            return None
    except (ImportError, TypeError, ValueError):  # a pydantic-core too old for these options
        return None
    n = MAX_DEPTH + 1
    too_deep = (
        b"[" * n + b"]" * n,
        b'{"a":' * (n - 1) + b"{}" + b"}" * (n - 1),
        b'{"a":' * n + b"1" + b"}" * n,
        b'[{"a":' * (n // 2) + b"[]" + b"}]" * (n // 2),
    )
    depth = all(_refuses(loads, b"[" + doc + b"]") for doc in too_deep)
    bare_depth = all(_refuses(loads, doc) for doc in too_deep)
    surrogates = all(
        _refuses(loads, doc) for doc in (b'["\\ud800"]', b'["\\udc00"]', b'["\\ud800\\u0041"]')
    )
    return _FastJson(loads=loads, depth=depth, bare_depth=bare_depth, surrogates=surrogates)


def _fast_parse(data: bytes) -> Any:
    """The document in ``data`` parsed by pydantic-core, or ``_UNDECIDED``.

    Faster than ``json.loads`` on a large transcript, with no separate UTF-8 decode, and the
    same values: the two parsers accept the same documents and build equal values; where they
    differ (lone surrogates, which jiter refuses) or anything fails, the stdlib path decides
    and words the error. When the probe found that jiter's own depth limit is within ``MAX_DEPTH``
    (``_FastJson.bare_depth``), the walk of every container is spared.
    """
    fast = _fast_json()
    if fast is None:
        return _UNDECIDED
    try:
        value = fast.loads(data)
    except ValueError:
        return _UNDECIDED
    if not isinstance(value, (dict, list)):
        return _UNDECIDED
    if not fast.bare_depth and depth_exceeds(value):
        return _UNDECIDED
    if not fast.surrogates and _SURROGATE_ESCAPE_BYTES.search(data):
        return _UNDECIDED
    return value


def loads_field(text: str | bytes) -> Any:
    """JSON held inside a field (tool arguments, a ``tools`` string, a SQLite ``data`` column).

    Raises ``ValueError`` for anything that is not a value within ``MAX_DEPTH``: ``json.loads``
    raises ``RecursionError`` on absurd nesting, which callers catching ``ValueError`` for bad
    JSON would let escape as a traceback.
    """
    try:
        value = deep_call(_loads, text)
    except RecursionError:
        raise ValueError(f"nesting deeper than {MAX_DEPTH} levels") from None
    if depth_exceeds(value):
        raise ValueError(f"nesting deeper than {MAX_DEPTH} levels")
    return value
