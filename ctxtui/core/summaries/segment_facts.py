"""The facts of a conversation segment: what a compaction summary should keep.

Eight kinds (docs/retention.md): paths, commands, errors, test ids, identifiers, numbers with a
unit or name, URLs, and the user's instructions. The rules are conservative: what they are
unsure of is left out, so every fact counted is one a reader would agree with.

Facts match by a normalised key (``fact_key``: case folded, quotes removed, whitespace
collapsed, ``./`` and trailing punctuation dropped), character by character, so a fact found in
a text is found again in its normalised form.
"""

from __future__ import annotations

import json
import re
import weakref
from bisect import bisect_left
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Protocol

from ctxtui.core.session.models import Message, Session
from ctxtui.core.summaries.text_rules import _CONTROL as _UNCLEAN
from ctxtui.core.summaries.text_rules import (
    CODE_LINE,
    ERROR_HINTS,
    EXTENSIONS,
    PATH,
    SENTENCE_SPLIT,
    clean_text,
    error_lines,
    is_diff,
)
from ctxtui.core.tokens.count_store import message_keys

KINDS: tuple[str, ...] = (
    "path", "command", "error", "test", "identifier", "number", "url", "instruction",
)  # fmt: skip
"""Every kind of fact, in the order reports list them."""

FACT_CHARS = 150
"""A fact is shown and matched by at most this many characters (a long error line is cut)."""
HEAD_CHARS = 32_768
TAIL_CHARS = 32_768
"""Of a longer text only the head and the tail are read: a 1 MB tool output costs what 64 KB
does, and an error is at one end of a log or the other."""
FULL_READ = HEAD_CHARS + TAIL_CHARS
"""The most of one text a rule reads."""
PER_MESSAGE = 12
"""At most this many facts of one kind from one tool output: a directory listing or a web
page names hundreds of paths and URLs that nobody worked with."""

SHELL_TOOLS = frozenset(
    {"bash", "shell", "exec", "exec_command", "local_shell", "shell_command",
     "run_terminal_cmd", "run_command", "terminal", "execute_command"}
)  # fmt: skip
"""Tool names whose call is a shell command (case folded)."""
CLOSING_LINES = 8
"""Numbers of a tool output are read from its last lines only: elsewhere they are line
numbers, source code and progress counters."""
_NOISE = re.compile(r"^\s*\d+\s*(?:[\t→|:]|\s{2})|\[\s*\d+%\]|^\s*(?:[\w.]+\s*:\s*)?\w+\s*=")
"""A numbered source line (``cat -n``), a progress bar, an assignment in code."""
_COMMAND_KEYS = ("command", "cmd", "script")

_QUOTES = str.maketrans("", "", "'\"`\u2018\u2019\u201c\u201d")
_SPACE = re.compile(r"\s+")
_TRAILING = ".,;:!?)]}>"
_TRAILING_TUPLE = tuple(_TRAILING)
_LEADING = "([{<"

URL = re.compile(r"\bhttps?://[^\s<>\"'`()\[\]{}]+")
TEST_ID = re.compile(r"(?<![\w/.-])((?:[\w.-]+/)*[\w.-]+\.py::[\w.:\[\]-]*\w\]?)")
EXCEPTION = re.compile(r"\b([A-Z][A-Za-z0-9]*(?:Error|Exception|Exit|Interrupt))\b")
IDENTIFIERS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("`", re.compile(r"`([A-Za-z_][\w.]*)(?:\(\))?`")),  # quoted as code
    ("()", re.compile(r"(?<![\w./-])([A-Za-z_][\w.]*\w)\(\)")),  # called: name()
    ("_", re.compile(r"(?<![\w./-])([a-z][a-z0-9]*(?:_[a-z0-9]+)+)(?![\w/.(-])")),  # snake_case
    ("", re.compile(r"(?<![\w./-])([A-Z][a-z0-9]+(?:[A-Z][a-z0-9]+)+)(?![\w/.-])")),  # CamelCase
)
"""Each way an identifier is written, with a substring every match holds (a text without it
is not searched)."""
MEASURE = re.compile(
    r"(?<![\w.#/-])("
    r"#\d{1,9}"  # an issue or pull request
    r"|v?\d+\.\d+\.\d+(?:[-+][\w.]+)?"  # a version
    r"|\d+(?:\.\d+)?\s?(?:%|ms|µs|ns|s|sec|seconds|min|minutes|h|hours|KB|MB|GB|KiB|MiB|GiB|"
    r"B|bytes|tokens|tok|x|×|lines|files|tests|passed|failed|errors|req/s|rps|fps)"
    r"|\d+\.\d+"  # a measured value
    r")(?![\w%/-]|\.\w)"
)
"""A number with a unit, a version, an issue, a decimal. Each match starts where no word,
dot or dash runs into it, so every start is tried against its own run of characters once."""
NAMED_VALUE = re.compile(r"[=:]\s?-?\d+(?:\.\d+)?(?![\w.])")
"""The ``=3`` or ``: 3.5`` of ``name=value``; the name before it is found by ``_named``."""
_NAME_RUN = re.compile(r"[\w-]*")
_NAME_START = re.compile(r"(?<![\w.])[A-Za-z_]")
_ONE_SPACE = re.compile(r"\s")
IMPERATIVE = re.compile(r"\b(please|do not|don't|must|never|only|always|avoid|make sure|"
                        r"should not|shouldn't|no more than|at most|at least|without)\b",
                        re.IGNORECASE)  # fmt: skip
"""What an instruction sounds like: the stand-in's ``CONSTRAINT`` words plus "please"."""


def _named(text: str, pos: int, reversed_text: list[str]) -> tuple[int, int] | None:
    """The span of the first ``name=value`` at or after ``pos`` (``[A-Za-z_][\\w-]*\\s?[=:]
    \\s?-?\\d+(\\.\\d+)?``, not inside a word or after a dot), found from its value back to its
    name: each run of name characters is read once, however many dashes split it (one regular
    expression would try every start inside ``a-a-a-…`` against the whole run: quadratic)."""
    for value in NAMED_VALUE.finditer(text, pos):
        sep = value.start()
        end = sep - 1 if sep and _ONE_SPACE.match(text, sep - 1) else sep
        if not reversed_text:
            reversed_text.append(text[::-1])
        run = _NAME_RUN.match(reversed_text[0], len(text) - end)
        first = end - len(run.group()) if run is not None else end
        name = _NAME_START.search(text, max(first, pos), end)
        if name is not None:
            return name.start(), value.end()
    return None


def numbers(text: str) -> Iterator[tuple[int, int, str]]:
    """``(start, end, text)`` of each number fact, leftmost first and never overlapping, as
    one alternation of ``MEASURE`` then ``name=value`` would find them, in time linear in
    ``text``."""
    pos = 0
    measured = MEASURE.search(text, pos)
    spare: list[str] = []
    named = _named(text, pos, spare)
    while measured is not None or named is not None:
        if named is None or (measured is not None and measured.start() <= named[0]):
            assert measured is not None
            start, pos = measured.span()
        else:
            start, pos = named
        yield start, pos, text[start:pos]
        if measured is not None and measured.start() < pos:
            measured = MEASURE.search(text, pos)
        if named is not None and named[0] < pos:
            named = _named(text, pos, spare)


@dataclass(frozen=True, slots=True)
class Fact:
    """One fact of a segment; ``key`` is what a summary must contain to keep it."""

    kind: str
    text: str
    key: str
    message_index: int
    role: str
    mentions: int = 1
    by_user: bool = False


def _clean(text: str) -> str:
    """``clean_text(text)``, with nothing to do found at C speed: ``clean_text`` removes only
    control characters (escapes start with one) and carriage returns, and its own quick check
    refuses every text with a line break."""
    if "\r" not in text and _UNCLEAN.search(text) is None:
        return text
    return clean_text(text)


def normalise(text: str) -> str:
    """Case folded, quotes removed, escapes and controls removed, whitespace collapsed."""
    return " ".join(_clean(text).translate(_QUOTES).casefold().split())


def fact_key(text: str) -> str:
    """The normalised form a summary is searched for: no ``./`` prefix, no trailing punctuation."""
    key = normalise(text)
    while key.startswith("./"):
        key = key[2:]
    return key.lstrip(_LEADING).rstrip(_TRAILING).strip()


def bounded(text: str, limit: int = HEAD_CHARS + TAIL_CHARS) -> str:
    """``text``, or its head and tail (half of ``limit`` each) when it is longer."""
    if len(text) <= limit:
        return text
    half = limit // 2
    return f"{text[:half]}\n{text[-half:]}"


def _shown(text: str) -> str:
    """One line of at most ``FACT_CHARS`` characters, escapes removed (shown literally)."""
    return _SPACE.sub(" ", _clean(text)).strip()[:FACT_CHARS].rstrip()


def _arguments(arguments: str) -> dict[str, object]:
    """A call's arguments as a dict (``{}`` when not a JSON object). Short ones are cached: a
    message's calls are read for their command and again for their text (never mutate the
    result); a long one (a patch) is parsed again rather than held."""
    if len(arguments) <= CACHED_ARGUMENTS:
        return _cached_arguments(arguments)
    return _parse_arguments(arguments)


CACHED_ARGUMENTS = 4_096


@lru_cache(maxsize=1024)
def _cached_arguments(arguments: str) -> dict[str, object]:
    return _parse_arguments(arguments)


def _parse_arguments(arguments: str) -> dict[str, object]:
    try:
        parsed = json.loads(arguments) if arguments.strip() else {}
    except (ValueError, RecursionError):
        return {}
    return parsed if isinstance(parsed, dict) else {}


def _command(name: str, args: dict[str, object]) -> str:
    """The shell command of a call, or ``""`` when the call is not one."""
    shell = name.casefold() in SHELL_TOOLS
    for key in _COMMAND_KEYS:
        value = args.get(key)
        if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
            # Codex's ["bash", "-lc", "pytest -x"]: the script is the last word
            script = len(value) >= 3 and value[-2] in ("-c", "-lc")
            value = value[-1] if script else " ".join(value)
        usable = isinstance(value, str) and value.strip()
        if usable and (shell or key in ("command", "cmd")):
            return str(value).strip().splitlines()[0]
    return ""


def _strings(args: dict[str, object]) -> Iterator[str]:
    for value in args.values():
        if isinstance(value, str):
            yield value
        elif isinstance(value, list):
            yield from (v for v in value if isinstance(v, str))


def texts(m: Message, limit: int = HEAD_CHARS + TAIL_CHARS) -> list[str]:
    """What facts are drawn from in a message: its content and its calls' string arguments,
    each bounded and cleaned."""
    pieces = [m.content]
    for call in m.tool_calls:
        args = _arguments(call.arguments)
        pieces.extend(_strings(args) if args else [call.arguments])
    return [_clean(bounded(p, limit)) for p in pieces if p]


def _typed(m: Message) -> bool:
    return m.role == "user" and not m.injected and not m.is_summary


class _Spans:
    """Disjoint spans of a text already taken by a fact, kept sorted: whether a new one
    overlaps them is a bisection, so a text of 20,000 facts costs 20,000 look-ups, not their
    square."""

    __slots__ = ("ends", "starts")

    def __init__(self) -> None:
        self.starts: list[int] = []
        self.ends: list[int] = []

    def outside(self, start: int, end: int) -> bool:
        """Whether ``[start, end)`` overlaps none of the spans (the last one starting before
        ``end`` is the only one that can: they are disjoint)."""
        i = bisect_left(self.starts, end) - 1
        return i < 0 or self.ends[i] <= start

    def add(self, start: int, end: int) -> None:
        """Take ``[start, end)``, which overlaps none of the spans."""
        i = bisect_left(self.starts, start)
        self.starts.insert(i, start)
        self.ends.insert(i, end)


_DIGIT = re.compile(r"\d")
_EXT_HINT = re.compile(rf"\.(?:{EXTENSIONS})\b")
"""A dot and one of ``PATH``'s file extensions: a text without one (nor a slash) names no
path, and the search for it runs at C speed from the literal dot."""
_MEASURED = re.compile(r"\d\s?[^\W\d_]+$|%$|^v?\d+\.\d+\.\d+")
"""What a tool output's number needs to count: a unit or a version. Bare values and
``name=value`` pairs there are data (a CSV row, a JSON record), not a measurement."""
_EXTENSION = re.compile(r"\.[A-Za-z][\w-]*$")


def _is_path(text: str) -> bool:
    """A file name with an extension, or a path rooted (``/``, ``./``, ``~/``) or two slashes
    deep: ``and/or`` and ``read/write`` are words, not paths."""
    return (
        _EXTENSION.search(text) is not None
        or text.startswith(("/", "./", "../", "~/"))
        or text.count("/") >= 2
    )


def _prose_facts(text: str, m: Message) -> Iterator[tuple[str, str]]:
    """Paths, tests, URLs, identifiers and numbers in what a person or the agent wrote."""
    taken = _Spans()
    for match in URL.finditer(text) if "://" in text else ():
        taken.add(*match.span())
        yield "url", match.group(0).rstrip(_TRAILING)
    for match in TEST_ID.finditer(text) if "::" in text else ():
        if taken.outside(*match.span()):
            taken.add(*match.span())
            yield "test", match.group(1)
    yield from _paths(text, taken)
    if m.role in ("user", "assistant"):
        named = _Spans()
        for hint, pattern in IDENTIFIERS:
            present = hint in text if hint else not text.islower()  # CamelCase: a capital
            for match in pattern.finditer(text) if present else ():
                if taken.outside(*match.span()) and named.outside(*match.span(1)):
                    named.add(*match.span(1))
                    yield "identifier", match.group(1)
    if _DIGIT.search(text) is not None:
        for start, end, value in numbers(text):
            if taken.outside(start, end):
                yield "number", value


def _paths(text: str, taken: _Spans) -> Iterator[tuple[str, str]]:
    """File paths outside what is ``taken`` (which they join); a diff's ``a/``/``b/`` dropped."""
    diff: bool | None = None
    for match in PATH.finditer(text) if "/" in text or _EXT_HINT.search(text) else ():
        path = match.group(1)
        if taken.outside(*match.span(1)) and _is_path(path):
            taken.add(*match.span(1))
            if path.startswith(("a/", "b/")):
                diff = is_diff(text) if diff is None else diff
                path = path[2:] if diff else path
            yield "path", path


def _output_facts(text: str) -> Iterator[tuple[str, str]]:
    """Errors, failing tests and the paths and figures on error lines of a tool output."""
    if any(hint in text for hint in ERROR_HINTS):
        for line in error_lines(text):
            if CODE_LINE.match(line.lstrip("> ")) or not line.strip():
                continue
            yield "error", line
            yield from ((k, v) for k, v in _prose_facts(line, _TOOL) if k in ("path", "test"))
            yield from (("error", e) for e in EXCEPTION.findall(line))
    for match in URL.finditer(text) if "://" in text else ():
        yield "url", match.group(0).rstrip(_TRAILING)
    for line in _closing_lines(text):
        for _, _, value in numbers(line):
            if _MEASURED.search(value):
                yield "number", value


def _closing_lines(text: str) -> list[str]:
    """The last ``CLOSING_LINES`` lines of an output that are neither source code nor a
    progress bar: where a run states its figures (``5 passed in 2.31s``)."""
    lines = [
        line
        for line in text[-CLOSING_LINES * 400 :].splitlines()[-CLOSING_LINES * 2 :]
        if line.strip() and not CODE_LINE.match(line) and not _NOISE.search(line)
    ]
    return lines[-CLOSING_LINES:]


_TOOL = Message(role="tool")


_IMPERATIVE_WORDS = frozenset(
    {"please", "don't", "must", "never", "only", "always", "avoid", "shouldn't", "without"}
)
_PHRASE_WORDS = frozenset({"not", "sure", "more", "most", "least"})
_HINTS = ("pleas", "don", "must", "never", "only", "alway", "avoid", "shouldn", "without",
          "not", "sure", "most", "least")  # fmt: skip
"""A piece of every word above: a text holding none is refused at C speed."""
_IMPERATIVE_PHRASES = ("do not", "make sure", "should not", "no more than", "at most", "at least")
_PUNCTUATION = str.maketrans(dict.fromkeys('.,;:!?()[]{}<>"`*_/|', " "))


def _instructs(text: str) -> bool:
    """Whether ``text`` may hold an instruction: one of ``IMPERATIVE``'s words, found by one
    set of its words (the case-folding pattern reads a few MB/s, and users write a lot)."""
    lower = text.lower()
    if not any(hint in lower for hint in _HINTS):
        return False
    words = set(lower.translate(_PUNCTUATION).split())
    if not _IMPERATIVE_WORDS.isdisjoint(words):
        return True
    return not _PHRASE_WORDS.isdisjoint(words) and any(p in lower for p in _IMPERATIVE_PHRASES)


def _instructions(text: str) -> Iterator[tuple[str, str]]:
    if not _instructs(text):
        return
    for sentence in SENTENCE_SPLIT.split(text):
        if sentence and IMPERATIVE.search(sentence):
            yield "instruction", sentence


def message_facts(m: Message, limit: int = HEAD_CHARS + TAIL_CHARS) -> Iterator[tuple[str, str]]:
    """``(kind, text)`` pairs of one message, in the order they occur (duplicates kept)."""
    output = m.role == "tool" or m.is_error
    for call in m.tool_calls:
        command = _command(call.name, _arguments(call.arguments))
        if command:
            yield "command", command
    for text in texts(m, limit):
        if output:
            counts: dict[str, int] = {}
            for kind, value in _output_facts(text):
                counts[kind] = counts.get(kind, 0) + 1
                if counts[kind] <= PER_MESSAGE:
                    yield kind, value
            continue
        yield from _prose_facts(text, m)
        if _typed(m):
            yield from _instructions(text)


_SENTENCES = frozenset({"error", "instruction", "command"})
"""Kinds shown as the whole line or sentence; the others lose a trailing full stop."""


SEGMENT_CHARS = 262_144
"""Of a longer segment only the newest this many characters are read for facts, as the
stand-in summary reads them; the older messages give only the user's instructions."""


def read_from(messages: Sequence[Message], first: int, last: int, budget: int) -> int:
    """The oldest index of the newest messages of ``[first, last]`` within ``budget``."""
    start, size = last + 1, 0
    while start > first:
        m = messages[start - 1]
        size += min(len(m.content), HEAD_CHARS + TAIL_CHARS)
        if m.tool_calls:
            size += sum(len(c.arguments) for c in m.tool_calls)
        if size > budget and start <= last:
            break
        start -= 1
    return start


Stated = tuple[str, str, str, int]
"""A fact as one message states it: kind, text, key, and how often the message does."""


def _stated(pairs: Iterable[tuple[str, str]]) -> tuple[Stated, ...]:
    """``(kind, raw)`` pairs as shown and keyed, one per kind and key in the order of their
    first mention, each with its count (keys under two characters are no fact)."""
    found: dict[tuple[str, str], list[Any]] = {}
    for kind, raw in pairs:
        text = _shown(raw) if kind in _SENTENCES else _shown(raw).rstrip(_TRAILING)
        key = fact_key(text)
        if len(key) < 2:
            continue
        old = found.get((kind, key))
        if old is None:
            found[kind, key] = [kind, text, key, 1]
        else:
            old[3] += 1
    return tuple((k, t, key, n) for k, t, key, n in found.values())


def _longest(m: Message) -> int:
    """At least the length of every text ``texts`` reads from ``m`` (a JSON string's value is
    never longer than its encoding): below a read limit, the limit changes nothing."""
    return max((len(m.content), *(len(c.arguments) for c in m.tool_calls)))


StoredFacts = Mapping[bytes, tuple[Stated, ...]]
"""Facts kept across runs: each message's, read up to ``HEAD_CHARS + TAIL_CHARS``, by its
``message_key`` (the count cache's key) and a byte of the flags the rules read (``_flags``):
everything a rule reads of a message is in the two."""


class FactStore(Protocol):
    """Facts kept across runs; the shells hand one to the core, which never touches a disk."""

    def wants(self, messages: Sequence[Message]) -> bool:
        """Whether finding the facts of ``messages`` is slow enough to store."""
        ...

    def load(self) -> dict[bytes, tuple[Stated, ...]]:
        """Every stored message's facts; empty when there are none."""
        ...

    def store(self, recent: Iterable[tuple[bytes, tuple[Stated, ...]]], older: StoredFacts) -> bool:
        """Keep ``recent`` entries first, then ``older`` ones; ``True`` if they were kept."""
        ...


@dataclass(slots=True)
class _Kept:
    known: StoredFacts  # what the store held when the index was primed
    used: dict[bytes, tuple[Stated, ...]]  # every message read since, found or stored
    keys: Sequence[bytes]  # each message's key (``count_store.message_keys``)


class FactIndex:
    """Each message's facts, found once and kept by its place in an immutable session, so
    every segment's facts are merged from facts already found: auditing all the compactions
    of a session reads each message once, however often the ranges overlap (a recorded
    summary and its stand-in, a replay's compactions and their stand-ins' fact lines).
    Primed from a ``FactStore`` (``remember_facts``), a message whose facts a run before
    found is not read again."""

    __slots__ = ("_asked", "_facts", "kept", "messages")

    def __init__(self, messages: Sequence[Message]) -> None:
        self.messages = messages
        self._facts: dict[tuple[int, int], tuple[Stated, ...]] = {}
        self._asked: dict[int, tuple[Stated, ...]] = {}
        self.kept: _Kept | None = None

    def facts(self, i: int, limit: int = HEAD_CHARS + TAIL_CHARS) -> tuple[Stated, ...]:
        """Message ``i``'s facts, each of its texts read up to ``limit`` characters."""
        m = self.messages[i]
        cut = _longest(m) > limit
        slot = (i, limit if cut else 0)
        found = self._facts.get(slot)
        if found is not None:
            return found
        kept = self.kept
        # stored facts are read up to the full limit: a message under ``limit`` reads alike
        key = None
        if kept is not None and (not cut or limit == FULL_READ):
            key = kept.keys[i] + _flags(m)
        found = kept.known.get(key) if kept is not None and key is not None else None
        if found is None:
            found = _stated(message_facts(m, limit))
        if kept is not None and key is not None:
            kept.used[key] = found
        self._facts[slot] = found
        return found

    def instructions(self, i: int) -> tuple[Stated, ...]:
        """Message ``i``'s instructions alone (what an older message of a long segment gives)."""
        found = self._asked.get(i)
        if found is None:
            m = self.messages[i]
            asked = _typed(m) and _instructs(m.content[: HEAD_CHARS + TAIL_CHARS])
            pairs = _instructions(_clean(bounded(m.content))) if asked else ()
            found = self._asked[i] = _stated(pairs)
        return found


_INDEXES: dict[int, tuple[weakref.ref[Session], FactIndex]] = {}


def fact_index(session: Session) -> FactIndex:
    """The session's ``FactIndex``, made on first use and dropped with the session, so that
    every audit, stand-in and fact line of one session shares it."""
    held = _INDEXES.get(id(session))
    if held is not None and held[0]() is session:
        return held[1]
    index = FactIndex(session.messages)
    _INDEXES[id(session)] = (weakref.ref(session), index)
    weakref.finalize(session, _INDEXES.pop, id(session), None)
    return index


def _flags(m: Message) -> bytes:
    """What the rules read of a message beside what ``message_key`` hashes: whether it is
    an error, injected, a summary (a user's own words give instructions; an error, errors)."""
    return bytes((m.is_error | m.injected << 1 | m.is_summary << 2,))


def remember_facts(session: Session, store: FactStore | None) -> bool:
    """Prime ``session``'s ``FactIndex`` with the facts ``store`` kept, when the session is
    big enough for the store to want it; ``keep_facts`` writes back what this run found."""
    if store is None or not store.wants(session.messages):
        return False
    index = fact_index(session)
    if index.kept is None:
        index.kept = _Kept(store.load(), {}, message_keys(session))
    return True


def keep_facts(session: Session, store: FactStore | None) -> bool:
    """Write the facts found for ``session`` since ``remember_facts`` (those read this run
    first, then the rest the store held); ``False`` when there was nothing new."""
    held = _INDEXES.get(id(session))
    kept = held[1].kept if held is not None and held[0]() is session else None
    if store is None or kept is None or all(k in kept.known for k in kept.used):
        return False
    if not store.store(kept.used.items(), kept.known):
        return False
    kept.known = {**kept.known, **kept.used}
    return True


def segment_facts(
    session: Session,
    first: int,
    last: int,
    budget: int = SEGMENT_CHARS,
    instructions_before: bool = True,
) -> tuple[Fact, ...]:
    """The facts of ``messages[first:last + 1]``, one per kind and key, oldest mention first
    (of the messages before the newest ``budget`` characters, only the user's instructions,
    and those only with ``instructions_before``), merged from ``fact_index``."""
    index = fact_index(session)
    found: dict[tuple[str, str], list[Any]] = {}
    start = read_from(session.messages, first, last, budget)
    limit = min(budget, HEAD_CHARS + TAIL_CHARS)  # one huge message never costs more
    users = session.index.turn_starts if instructions_before else ()
    older = users[bisect_left(users, first) : bisect_left(users, start)]
    for i in (*older, *range(start, last + 1)):
        m = session.messages[i]
        if m.is_summary:
            continue  # an earlier summary's facts were counted where they came from
        typed = _typed(m)
        for kind, text, key, mentions in (
            index.facts(i, limit) if i >= start else index.instructions(i)
        ):
            old = found.get((kind, key))
            if old is None:
                found[kind, key] = [kind, text, key, i, m.role, mentions, typed]
            else:
                old[5] += mentions
                old[6] = old[6] or typed
    facts = [Fact(*row) for row in found.values()]
    return tuple(sorted(facts, key=lambda f: (f.message_index, KINDS.index(f.kind))))


def used_text(messages: Sequence[Message], budget: int) -> str:
    """The normalised text of ``messages``, read in order until ``budget`` characters."""
    out: list[str] = []
    spent = 0
    for m in messages:
        for text in texts(m):
            if spent >= budget:
                return "\n".join(out)
            piece = text[: budget - spent]
            spent += len(piece)
            out.append(normalise(piece))
    return "\n".join(out)


_WORD_SPLIT = str.maketrans(dict.fromkeys(",;:()[]{}<>=|", " "))


def words_of(normalised: str) -> frozenset[str]:
    """The words of a normalised text, each without a leading ``./`` or trailing punctuation."""
    words = set(normalised.translate(_WORD_SPLIT).split())
    odd = [w for w in words if w.endswith(_TRAILING_TUPLE) or w.startswith("./")]
    words.difference_update(odd)
    for word in odd:
        word = word.rstrip(_TRAILING)
        while word.startswith("./"):
            word = word[2:]
        if word:
            words.add(word)
    return frozenset(words)
