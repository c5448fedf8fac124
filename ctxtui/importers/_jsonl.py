"""JSONL reading: one JSON value per line, streamed, with every bad line a warning.

Lines are read bounded (``_stream.numbered_lines``), parsed by msgspec when they hold one
clean value and by the stdlib otherwise (which alone words warnings), so both give the same
records. An importer may name the fields it reads (a ``msgspec.Struct``, ``typed``): the rest
of each line is then skipped by the parser without a Python object being built for it.
Detection reads a bounded head of the source through ``read_head``.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import IO, Any

import msgspec

from ctxtui.core.errors import SessionLoadError
from ctxtui.core.session.json_depth import MAX_DEPTH
from ctxtui.core.session.models import Session
from ctxtui.importers import _reader, _stream
from ctxtui.importers._deep import deep_call
from ctxtui.importers._reader import (
    _BOM,
    _DECODER,
    _UNDECIDED,
    _WHITESPACE,
    _scrub,
    depth_exceeds,
    read_json,
    snippet,
)
from ctxtui.importers._stream import Source, numbered_lines

MAX_LINE_WARNINGS = 20
"""Corrupt-line warnings kept one by one; past this they are only counted."""

MAX_RECORDS = 1_000_000
"""A JSONL file holding more JSON values than this is refused. An agent's session holds
thousands; each message costs ctxtui kilobytes however short it is, so a small gzip of a
million tiny records is refused rather than read on to the inflate cap
(``_stream.MIN_INFLATE_CAP``).
Blank and corrupt lines are not values and do not count; a reader that keeps nothing per
value (ShareGPT counting the conversations it does not show) passes ``capped=False``."""


@dataclass(frozen=True, slots=True)
class Record:
    """One JSON value read from a JSONL file, with the 1-based line it came from: an
    instance of the reader's ``typed`` Struct for a JSON object when it named one."""

    line: int
    value: Any

    def __reduce__(self) -> tuple[type[Record], tuple[int, Any]]:
        """Pickled as its two fields (a stored importer state holds one per line): the
        dataclass's own ``__getstate__`` looks its fields up again for every record."""
        return Record, (self.line, self.value)


_CONTENT = re.compile(r"[^ \t\n\r]")
"""JSON's whitespace is exactly these four characters."""


def _split_values(text: str) -> tuple[list[Any], str | None]:
    """All JSON values on one line (crash-and-append leaves several) and the first error.

    Linear in the line: each value is decoded from its index in the one string (never a
    slice of the rest), and the surrogate scan runs once per line, not once per value.
    """
    values: list[Any] = []
    scrub = _reader._SURROGATE_ESCAPE.search(text) is not None
    pos = 0
    while True:
        start = _CONTENT.search(text, pos)  # whitespace skipped in C, not a char at a time
        if start is None:
            return values, None
        pos = start.start()
        try:
            value, pos = deep_call(_DECODER.raw_decode, text, pos)
        except RecursionError:
            return values, f"nesting deeper than {MAX_DEPTH} levels"
        except json.JSONDecodeError as exc:
            return values, f"found {snippet(text, exc.pos)} at column {exc.colno}: {exc.msg}"
        if depth_exceeds(value):
            return values, f"nesting deeper than {MAX_DEPTH} levels"
        values.append(deep_call(_scrub, value) if scrub else value)


Decode = Callable[[bytes], Any]


@cache
def line_decoder(typed: type[Any] | None = None) -> Decode:
    """msgspec's decoder of one JSONL line: into ``typed`` (a ``msgspec.Struct`` naming the
    fields an importer reads, so the others are skipped unbuilt), or into plain values."""
    return msgspec.json.Decoder(Any if typed is None else typed).decode


@cache
def _msgspec_refuses_surrogates() -> bool:
    """msgspec refuses lone surrogate escapes (the stdlib decodes them, then they are
    scrubbed); probed, not assumed, so another msgspec costs a scan, never a wrong value."""
    decode = line_decoder()
    for doc in (b'"\\ud800"', b'"\\udc00"', b'"\\ud800\\u0041"'):
        try:
            decode(doc)
        except msgspec.DecodeError:
            continue
        return False
    return True


def _fast_line(decode: Decode, raw: bytes) -> Any:
    """The one JSON value on a JSONL line, parsed by msgspec, or ``_UNDECIDED``.

    msgspec nests no deeper than the interpreter's recursion limit, which stays under
    ``MAX_DEPTH`` unless a deep parse raised it meanwhile (``deep_call``): then, and for
    blank lines, several values, bad UTF-8, NaN, over-long integers and anything else msgspec
    refuses (a top-level value that is not an object, for a typed decoder), the stdlib path
    decides, so both paths give the same values.
    """
    if sys.getrecursionlimit() > MAX_DEPTH:
        return _UNDECIDED
    try:
        value = decode(raw)
    except (msgspec.DecodeError, RecursionError):  # a ValidationError is a DecodeError
        return _UNDECIDED
    if not _msgspec_refuses_surrogates() and _reader._SURROGATE_ESCAPE_BYTES.search(raw):
        return _UNDECIDED
    return value


def as_typed(records: Iterable[Record], typed: type[Any]) -> Iterator[Record]:
    """Records read elsewhere (plain values) as ``iter_records(..., typed=typed)`` gives them."""
    for record in records:
        value = record.value
        yield Record(record.line, _typed(value, typed)) if isinstance(value, dict) else record


def _typed(value: Any, typed: type[Any] | None) -> Any:
    """A value of the stdlib path as the typed decoder would have given it: an object as
    ``typed`` (whose fields take any JSON value, so this cannot fail), anything else as is."""
    if typed is None or not isinstance(value, dict):
        return value
    try:
        return msgspec.convert(value, typed)
    except msgspec.ValidationError:
        return value


class _LineWarnings:
    """A JSONL read's warnings: each kind listed up to ``MAX_LINE_WARNINGS``, then counted."""

    def __init__(self, warnings: list[str], counts: dict[str, int]) -> None:
        self.warnings = warnings
        self.counts = counts

    def add(self, kind: str, text: str) -> None:
        self.counts[kind] = self.counts.get(kind, 0) + 1
        if self.counts[kind] <= MAX_LINE_WARNINGS:
            self.warnings.append(text)


def _more_lines(counts: dict[str, int]) -> list[str]:
    """The lines that count what ``_LineWarnings`` did not list one by one."""
    found = []
    kinds = (("corrupt", "corrupt lines skipped"), ("utf8", "lines with invalid UTF-8"))
    for kind, what in kinds:
        more = counts.get(kind, 0) - MAX_LINE_WARNINGS
        if more > 0:
            found.append(f"{more:,} more {what} (first {MAX_LINE_WARNINGS} listed)")
    return found


def _incomplete(number: int) -> str:
    return f"line {number:,}: incomplete last line ignored (is the file still being written?)"


@dataclass
class Cursor:
    """Where a read of a growing JSONL file stopped, so that the next read goes on from there
    and costs only the bytes appended since (``--watch``).

    A cursor read consumes complete lines only: a last line without its newline is left for
    the next read (the writer is still appending it), and named by ``end_warnings``.
    """

    offset: int = 0
    """Bytes up to the end of the last complete line read."""
    line: int = 0
    """Lines up to there."""
    left: int = MAX_RECORDS
    counts: dict[str, int] = field(default_factory=dict)
    tail: int | None = None
    """The number of an unfinished last line that holds something, as of the last read."""
    final: bool = False
    """The read goes to the end of the file for good (a first look from its tail): an
    unfinished last line is read as a whole read reads it, not left for the next read."""

    def end_warnings(self) -> list[str]:
        """What a whole read would say after the lines: the unfinished line, the counts."""
        tail = [] if self.tail is None else [_incomplete(self.tail)]
        return tail + _more_lines(self.counts)


def _decode_line(raw: bytes, number: int, tally: _LineWarnings) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        # Replaced, not refused (writers split characters), but never silently: the counts
        # of that line are off by the bytes that were lost.
        tally.add("utf8", f"line {number:,}: invalid UTF-8 bytes shown as U+FFFD")
        return raw.decode("utf-8", errors="replace")


def _size(n: int) -> str:
    return f"{n // 2**20:,} MiB" if n >= 2**20 else f"{n:,} bytes"


def _raw_lines(
    fh: IO[bytes], limit: int, first: int = 0
) -> Iterator[tuple[int, bytes | None, bool]]:
    """Numbered raw lines, BOM and CR removed; ``None`` for a line longer than ``limit``."""
    for number, raw, complete in numbered_lines(fh, limit, first):
        yield number, raw if raw is None else _trimmed(number, raw), complete


def _trimmed(number: int, raw: bytes) -> bytes:
    """Line ``number`` without the file's BOM (on line 1) or a CR before its newline."""
    if number == 1 and raw.startswith(_BOM):
        raw = raw[len(_BOM) :]
    return raw[:-1] if raw.endswith(b"\r") else raw


def iter_records(
    source: Source,
    warnings: list[str],
    *,
    capped: bool = True,
    cursor: Cursor | None = None,
    typed: type[Any] | None = None,
) -> Iterator[Record]:
    """Stream the JSON values of a JSONL file, one line at a time (docs/formats.md, "The formats").

    A corrupt line in the middle is skipped with a ``line N: ...`` warning; a cut-off last
    line (no final newline, as when the writer is still appending) is ignored with a warning;
    several values on one line are all yielded. Lines are decoded with ``errors="replace"``
    because writers have been seen splitting multi-byte characters. A line longer than
    ``MAX_LINE_BYTES`` is skipped without being held in memory.

    With a ``cursor`` (a plain file only), the read starts where the cursor stopped and moves
    it past each complete line; the last line, when unfinished, and the warnings that only
    count are left to the cursor (``Cursor.end_warnings``).

    A line that holds one clean value is parsed by msgspec (``_fast_line``, the faster
    parser; into ``typed`` when given, a Struct whose fields all take any JSON value); every
    other line takes the stdlib path below, which alone words warnings, so both give the same
    records and the same warnings.
    """
    live = cursor is not None
    if cursor is None:
        cursor = Cursor(left=MAX_RECORDS if capped else -1)  # -1 never reaches 0
    tally = _LineWarnings(warnings, cursor.counts)
    # ``_fast_json`` is looked up here, so tests can turn every fast path off at once.
    fast = None if _reader._fast_json() is None else line_decoder(typed)  # type: ignore[arg-type]
    cursor.tail = None
    with source.stream(cursor.offset) as fh:
        # The lines of ``_raw_lines``, taken here: this loop runs once per record, and the
        # one-value line (nearly all) is handled inline, not by a generator of its own.
        for number, raw, complete in numbered_lines(fh, _stream.MAX_LINE_BYTES, cursor.line):
            if raw is not None:
                raw = _trimmed(number, raw)
            if live and not complete and not cursor.final:
                cursor.tail = number if raw is None or raw.strip() else None
                break
            if not number % _stream.STOP_EVERY:
                source.check_stop()
            value = _UNDECIDED if fast is None or raw is None else _fast_line(fast, raw)
            if value is not _UNDECIDED:
                if cursor.left == 0:
                    raise _too_many(source.path, number)
                cursor.left -= 1
                yield Record(number, value)
            else:
                for record in _line_records(source, cursor, tally, (number, raw, complete)):
                    yield Record(record.line, _typed(record.value, typed))
            if live:
                cursor.offset, cursor.line = fh.tell(), number
    if not live:
        warnings.extend(_more_lines(cursor.counts))


def _line_records(
    source: Source,
    cursor: Cursor,
    tally: _LineWarnings,
    line: tuple[int, bytes | None, bool],
) -> Iterator[Record]:
    """The values of a line pydantic-core did not take (several after a crash-and-append,
    none when blank), or its warning, worded by the stdlib's parser."""
    number, raw, complete = line
    if raw is None:
        tally.add(
            "corrupt", f"line {number:,}: skipped, longer than {_size(_stream.MAX_LINE_BYTES)}"
        )
        return
    text = _decode_line(raw, number, tally)
    if not text.strip():
        return
    values, error = _split_values(text)
    for value in values:
        if cursor.left == 0:
            raise _too_many(source.path, number)
        cursor.left -= 1
        yield Record(number, value)
    if error is None:
        return
    if not complete:
        tally.warnings.append(_incomplete(number))
        return
    tally.add("corrupt", f"line {number:,}: skipped, not valid JSON ({error})")


def _too_many(path: Path, number: int) -> SessionLoadError:
    return SessionLoadError(
        str(path),
        f"more than {MAX_RECORDS:,} JSON values: ctxtui opens sessions up to that size (an "
        "agent's session holds thousands)",
        number,
    )


HEAD_LINE_BYTES = 1024 * 1024
"""Detection reads lines up to this long; a longer first line is read whole only when other
lines follow it (``_long_first_record``), else the file is a one-line document."""


def _is_record(values: list[Any], error: str | None) -> bool:
    """Whether a line's first value may stand for the file: clean, or a container cut short
    (crash-and-append). A scalar followed by junk (``2024-01-01 started``) is plain text."""
    return bool(values) and (error is None or isinstance(values[0], (dict, list)))


def _long_first_record(source: Source) -> tuple[list[Any], str | None]:
    """The values of a first line longer than ``HEAD_LINE_BYTES``, read whole (up to the
    importers' ``MAX_LINE_BYTES``) when more lines follow it; none when it is the file's only
    line (a one-line document, parsed whole and kept for the importer) or too long."""
    with source.stream() as fh:
        line = fh.readline(_stream.MAX_LINE_BYTES + 1)
        follows = fh.read(4096).strip()
    if not follows or len(line) > _stream.MAX_LINE_BYTES:
        return [], "too long"
    return _split_values(line.removeprefix(_BOM).decode("utf-8", errors="replace"))


def _not_a_document(source: Source, number: int, line: str | None) -> SessionLoadError | None:
    """The refusal of a file whose first line cannot start a JSON document, else ``None``.

    A document that is not a value on its first line opens a container there; anything else
    (a log line, prose) is plain text, said so without reading the rest of the file, which
    may be gigabytes. ``line`` is ``None`` when the line was too long to read: its start is
    read again, bounded.
    """
    if line is None:
        with source.stream() as fh:
            line = fh.read(4096).removeprefix(_BOM).decode("utf-8", errors="replace")
    start = len(line) - len(line.lstrip(_WHITESPACE))
    if line[start : start + 1] in ("[", "{"):
        return None
    found = f"expected JSON, found plain text {snippet(line, start)}"
    return source.problem(found, number)


def read_head(source: Source, max_lines: int = 20) -> Any:
    """The first JSON value of a file, for format detection, from a bounded head.

    A JSONL file gives its first record; a pretty-printed document, whose first line is not a
    value on its own (or is longer than ``HEAD_LINE_BYTES``), is parsed whole with
    ``read_json`` (and kept for the importer). When that fails too, the file is taken for
    JSONL with a corrupt first line only if two consecutive later lines each hold complete
    values (impossible inside one valid or truncated document); otherwise the document's
    one-line error is raised.
    """
    document_error: SessionLoadError | None = None
    previous_clean: Any = None
    seen = 0
    with source.stream() as fh:
        for number, raw, _complete in _raw_lines(fh, HEAD_LINE_BYTES):
            text = "" if raw is None else raw.decode("utf-8", errors="replace")
            if raw is not None and not text.strip():
                continue
            seen += 1
            values, error = _split_values(text) if raw is not None else ([], "too long")
            if seen == 1:
                if raw is None:  # an image pasted in the first prompt: still a record
                    values, error = _long_first_record(source)
                if _is_record(values, error):
                    return values[0]
                document_error = _not_a_document(source, number, text if raw is not None else None)
                if document_error is not None:
                    continue
                try:
                    return read_json(source)
                except SessionLoadError as exc:
                    document_error = exc
                    continue
            if values and error is None:
                if previous_clean is not None:
                    return previous_clean
                previous_clean = values[0]
            else:
                previous_clean = None
            if seen >= max_lines:
                break
    if document_error is not None:
        raise document_error
    return read_json(source)


def first_line_is_value(source: Source) -> bool:
    """True when the first non-blank line holds complete JSON values (JSONL, or a one-line doc)."""
    with source.stream() as fh:
        for _number, raw, _complete in _raw_lines(fh, _stream.MAX_LINE_BYTES):
            if raw is None:
                return True  # a line too long to read is a JSONL line to skip, not a document
            text = raw.decode("utf-8", errors="replace")
            if text.strip():
                values, error = _split_values(text)
                return bool(values) and error is None
    return False


def iter_values(source: Source, warnings: list[str], *, capped: bool = True) -> Iterator[Record]:
    """Records of a file that may be one JSON document or JSONL (OpenAI Chat, ShareGPT).

    A pretty-printed document (its first line is not a value by itself) is yielded as one
    record on line 1; otherwise the file is streamed as JSONL with ``iter_records``.
    """
    if first_line_is_value(source):
        yield from iter_records(source, warnings, capped=capped)
    else:
        yield Record(1, read_json(source))


# --- a first look from the end of a big file (``load_tail``) ------------------------------

TAIL_BYTES = 4 << 20
"""What a ``load_tail`` reads first: the view after a compaction is most often far smaller."""
TAIL_PART = 4
"""A tail is read only of a file at least this many times longer: of a shorter one, reading
it whole costs little more."""
TAIL_GROWTH = 4
TAIL_MOST = 16
"""A tail that does not hold the session is read again ``TAIL_GROWTH`` times longer, up to
``TAIL_MOST`` budgets."""
_NEWLINES_CHUNK = 8 << 20


def read_tail(
    source: Source,
    budget: int,
    marker: bytes,
    session_from: Callable[[Source, int], Session | None],
) -> Session | None:
    """``session_from(source, offset)`` from the file's last ``budget`` bytes, then from more
    until it gives a session; ``None`` for a compressed or short file, or when no tail up to
    ``TAIL_MOST`` budgets holds one. A tail without ``marker`` (the bytes every record that
    starts a session's view holds) is not parsed: a big file that was never compacted costs
    a byte search per tail, not a read."""
    if source.compression() or source.size < TAIL_PART * budget:
        return None
    size = budget
    while size <= TAIL_MOST * budget and size * 2 <= source.size:
        if marker in source.read_at(size, source.size - size):
            found = session_from(source, source.size - size)
            if found is not None:
                return found
        size *= TAIL_GROWTH
    return None


def tail_cursor(source: Source, offset: int) -> Cursor | None:
    """A cursor at the first line starting at or after byte ``offset`` of a plain file,
    numbered as a whole read numbers it (the line breaks before it are counted, not parsed),
    that reads the last line as a whole read does; ``None`` when no line starts within 1 MiB
    of ``offset``."""
    if offset <= 0:
        return Cursor(final=True)
    window = source.read_at(1 << 20, offset - 1)
    newline = window.find(b"\n")
    if newline < 0:
        return None
    start = offset + newline
    count, at = 0, 0
    while at < start:
        chunk = source.read_at(min(_NEWLINES_CHUNK, start - at), at)
        if not chunk:
            break
        count += chunk.count(b"\n")
        at += len(chunk)
    return Cursor(offset=start, line=count, final=True)


def names_every_tool_result(session: Session) -> bool:
    """Whether each tool result that answers a call names its tool: a first look from a tail
    that lacks the call (it came earlier in the file) cannot name it as the whole read does."""
    return all(m.tool_name for m in session.messages if m.role == "tool" and m.tool_call_id)
