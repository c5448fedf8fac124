"""The structured summary a compaction writes, offline and deterministic.

It reads only the messages being compacted and fills the plan's six sections (docs/plan.md,
"A structured summary") with bullets that each cite their message, so every line can be
checked against the transcript.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from ctxtui.core.session.models import Message, Session
from ctxtui.core.summaries.fact_lines import FactLine, fact_lines, held, room
from ctxtui.core.summaries.text_rules import (
    CODE_LINE,
    CONSTRAINT,
    ERROR_HINTS,
    LIST_LINE,
    PLAN_MARKER,
    clean_text,
    decision_sentences,
    error_lines,
    file_paths,
    is_diff,
    patch_target,
    sentences,
    states_decision,
)
from ctxtui.core.wording import plural

SUMMARY_TITLE = "# Summary of Previous Conversation"

SUMMARY_TEMPLATE = (
    "# Summary of Previous Conversation\n"
    "\n"
    "## Goal\n"
    "[Current objective]\n"
    "\n"
    "## Constraints\n"
    "[Key limitations or requirements]\n"
    "\n"
    "## Progress\n"
    "- [List of completed items]\n"
    "\n"
    "## Key Decisions\n"
    "- [Decision 1 with rationale]\n"
    "- [Decision 2 with rationale]\n"
    "\n"
    "## Next Steps\n"
    "- [Planned action]\n"
    "\n"
    "## Critical Context\n"
    "[Any other context needed to continue]"
)
"""The plan's ``SummaryTemplate``, byte for byte (326 characters)."""

MAX_ITEMS = 8  # per section: a summary that grows with the history would defeat compaction
PLAN_LOOKBACK = 20
"""How many of the newest assistant messages may hold "the last stated plan": an older plan
is history, not the next step."""
GIST_CHARS = 160
SCAN_CHARS = 262_144
"""How much text, newest first, the sections read from the replaced range (at least one
message): each section keeps its newest ``MAX_ITEMS`` bullets, which the newest messages
supply, so a summary's cost is bounded however long the range. About 64k tokens."""
GIST_READ_FACTOR = 64
"""A gist reads at most this many characters of text per character it keeps: room for
whitespace and escape sequences, never the whole of a huge line."""
ARG_GIST_CHARS = 60

_ARG_KEYS = ("path", "file_path", "file", "filename", "command", "cmd", "query", "pattern", "url")


@dataclass(frozen=True, slots=True)
class SummaryItem:
    """One bullet, with the index of the message it was taken from."""

    text: str
    index: int

    def render(self) -> str:
        return f"- {self.text} (#{self.index})"


@dataclass(frozen=True, slots=True)
class SummarySection:
    """One of the six sections; ``omitted`` counts older bullets left out to bound its size."""

    title: str
    items: tuple[SummaryItem, ...]
    omitted: int = 0


@dataclass(frozen=True, slots=True)
class StructuredSummary:
    """The six sections filled from ``messages[first:last + 1]``. ``read_from`` is the oldest
    message read; older ones feed only the goal's first request, so ``omitted`` is then a
    lower bound."""

    first: int
    last: int
    sections: tuple[SummarySection, ...]
    read_from: int = -1
    facts: tuple[FactLine, ...] = ()
    held: str = ""  # what the range held, by role (``summary_facts.held``)

    @property
    def unread(self) -> int:
        """How many of the oldest messages of the range the sections did not read."""
        return max(self.read_from - self.first, 0)

    def section(self, title: str) -> SummarySection:
        """The section with this template heading (``KeyError`` if there is none)."""
        for s in self.sections:
            if s.title == title:
                return s
        raise KeyError(title)

    def references(self) -> str:
        """What the ``(#N)`` citations number: the messages before compaction, which is all
        that still leads back to the transcript once the range is replaced. Short: it costs
        tokens in every later request."""
        return "(#N cites message N as numbered before this compaction.)"

    def render_markdown(self) -> str:
        """The summary under the template's own headings, empty sections saying so."""
        blocks = [SUMMARY_TITLE, self.references()]
        if self.held:
            blocks.append(f"(replaces messages #{self.first}-#{self.last}: {self.held})")
        if self.unread:
            blocks.append(
                f"(from messages #{self.read_from}-#{self.last}; the {self.unread:,} older ones "
                "were not read, except for the first request)"
            )
        for s in self.sections:
            lines = [f"## {s.title}"]
            if s.omitted:
                cut = plural(s.omitted, "item")
                lines.append(f"- ({cut} omitted: a section keeps at most {MAX_ITEMS})")
            lines.extend(item.render() for item in s.items)
            if s.title == "Critical Context":
                lines.extend(self.fact_bullets())
            if len(lines) == 1:
                lines.append("(none)")
            blocks.append("\n".join(lines))
        return "\n\n".join(blocks)

    def fact_bullets(self) -> list[str]:
        """The fact lines as bullets citing their newest message."""
        return [SummaryItem(line.text, line.index).render() for line in self.facts]


def _gist(text: str, limit: int = GIST_CHARS) -> str:
    """One line, whitespace and escapes removed, cut at ``limit`` characters with an ellipsis;
    only a bounded head is read, so a huge line costs no more than a short one."""
    head = text[: limit * GIST_READ_FACTOR]
    flat = " ".join(clean_text(head).split())
    if len(flat) <= limit and len(head) == len(text):
        return flat
    return flat[: limit - 1].rstrip() + "…"


def _bounded(title: str, items: Iterable[SummaryItem]) -> SummarySection:
    """Dedupe by text (keeping the latest mention) and keep the newest ``MAX_ITEMS``."""
    latest: dict[str, SummaryItem] = {}
    for item in items:
        latest.pop(item.text, None)
        latest[item.text] = item
    ordered = sorted(latest.values(), key=lambda i: i.index)
    kept = ordered[-MAX_ITEMS:]
    return SummarySection(title, tuple(kept), omitted=len(ordered) - len(kept))


def _typed_by_user(m: Message) -> bool:
    return m.role == "user" and not m.injected and not m.is_summary and bool(m.content.strip())


def _request(i: int, m: Message) -> SummaryItem:
    return SummaryItem(_gist(m.content.strip().splitlines()[0]), i)


def _goal(
    span: Sequence[tuple[int, Message]], older: Sequence[Message] = (), first: int = 0
) -> SummarySection:
    """The first line of each message a person typed; of the unread ``older`` messages before
    ``span``, only the first request is looked for."""
    items = [_request(i, m) for i, m in span if _typed_by_user(m)]
    head = next((_request(first + k, m) for k, m in enumerate(older) if _typed_by_user(m)), None)
    if head is not None:
        items.insert(0, head)
    if len(items) > MAX_ITEMS:
        # The first request usually states the objective; keep it and the newest others.
        head, rest = items[0], items[1:]
        kept = (head, *rest[-(MAX_ITEMS - 1) :])
        return SummarySection("Goal", kept, omitted=len(items) - len(kept))
    return SummarySection("Goal", tuple(items))


def _matching_sentences(
    span: Sequence[tuple[int, Message]], keep: Callable[[Message], bool], pattern: re.Pattern[str]
) -> list[SummaryItem]:
    # A sentence can only match if the whole text does: one search rules most messages out
    # before they are split into sentences.
    return [
        SummaryItem(_gist(s), i)
        for i, m in span
        if keep(m) and pattern.search(m.content)
        for s in sentences(m.content)
        if pattern.search(s)
    ]


def _value_gist(value: str) -> str:
    """An argument's gist; a patch is named by the file it changes, not its first bytes."""
    target = patch_target(value) if is_diff(value) else ""
    return _gist(target or value, ARG_GIST_CHARS)


def _decisions(span: Sequence[tuple[int, Message]]) -> list[SummaryItem]:
    """Assistant sentences stating a decision or a finding (``decision_sentences``)."""
    return [
        SummaryItem(_gist(s), i)
        for i, m in span
        if m.role == "assistant" and states_decision(m.content)
        for s in decision_sentences(sentences(m.content))
    ]


def _arg_gist(arguments: str) -> str:
    """The argument a reader recognises a call by (a path, a command, a query)."""
    try:
        parsed = json.loads(arguments) if arguments.strip() else {}
    except (ValueError, RecursionError):  # arguments are raw model output: any text at all
        return _value_gist(arguments)
    if isinstance(parsed, dict):
        for key in _ARG_KEYS:
            value = parsed.get(key)
            if isinstance(value, str) and value:
                return _value_gist(value)
        for value in parsed.values():
            if isinstance(value, (str, int, float)) and not isinstance(value, bool):
                return _value_gist(str(value))
        return ""
    return _gist(json.dumps(parsed), ARG_GIST_CHARS)


def _progress(session: Session, start: int, last: int, first: int) -> SummarySection:
    """Completed tool work: calls in ``[first, last]`` whose result is in ``[start, last]`` and
    not an error."""
    items: list[SummaryItem] = []
    pairs = session.call_of_result
    for r in range(start, last + 1):
        result = session.messages[r]
        c = pairs.get(r)
        if result.role != "tool" or c is None or c < first or result.is_error:
            continue
        call = next(
            (t for t in session.messages[c].tool_calls if t.id == result.tool_call_id), None
        )
        if call is None:
            continue
        gist = _arg_gist(call.arguments)
        items.append(SummaryItem(f"{call.name}({gist})" if gist else f"{call.name}()", r))
    return _bounded("Progress", items)


def _next_steps(span: Sequence[tuple[int, Message]]) -> SummarySection:
    """The last plan among the newest ``PLAN_LOOKBACK`` assistant replies: its list items,
    else its forward-looking sentences."""
    replies = ((i, m) for i, m in reversed(span) if m.role == "assistant" and m.content.strip())
    for i, m in itertools.islice(replies, PLAN_LOOKBACK):
        listed = [g.group(1) for g in map(LIST_LINE.match, m.content.splitlines()) if g]
        steps = listed or [s for s in sentences(m.content) if PLAN_MARKER.search(s)]
        if steps:
            return _bounded("Next Steps", (SummaryItem(_gist(s), i) for s in steps))
    return SummarySection("Next Steps", ())


def _critical_context(span: Sequence[tuple[int, Message]]) -> SummarySection:
    """Files worked on and error lines tools reported, newest kept. Paths come from prose,
    tool-call arguments and error lines, not other tool output (a listing names hundreds that
    do not matter); errors only from outputs holding an error marker."""
    files: list[SummaryItem] = []
    errors: list[SummaryItem] = []
    for i, m in span:
        if m.role == "tool" or m.is_error:
            text = m.content
            if any(hint in text for hint in ERROR_HINTS):
                for line in error_lines(text):
                    if CODE_LINE.match(line):
                        continue
                    errors.append(SummaryItem(f"Error: {_gist(line.strip())}", i))
                    # a path on an error line (a failing test, a traceback frame) matters
                    files.extend(SummaryItem(f"File: {p}", i) for p in file_paths(line))
            if m.role == "tool":
                continue
        for text in (m.content, *(call.arguments for call in m.tool_calls)):
            files.extend(SummaryItem(f"File: {p}", i) for p in file_paths(text))
    return _files_and_errors(_bounded("", files), _bounded("", errors))


def _files_and_errors(f: SummarySection, e: SummarySection) -> SummarySection:
    """Files and errors in one section of at most ``MAX_ITEMS``, newest of each kept: each has
    half the room, and what one leaves unused goes to the other."""
    half = MAX_ITEMS // 2
    n_f, n_e = len(f.items), len(e.items)
    keep_f = min(n_f, max(half, MAX_ITEMS - n_e))
    keep_e = min(n_e, MAX_ITEMS - keep_f)
    kept_f, kept_e = f.items[n_f - keep_f :], e.items[n_e - keep_e :]
    omitted = f.omitted + e.omitted + n_f - keep_f + n_e - keep_e
    merged = tuple(sorted((*kept_f, *kept_e), key=lambda x: x.index))
    return SummarySection("Critical Context", merged, omitted=omitted)


def _read_from(messages: Sequence[Message], first: int, last: int) -> int:
    """The oldest index of the newest messages of ``[first, last]`` within ``SCAN_CHARS``."""
    start, size = last, _text_size(messages[last])
    while start > first:
        size += _text_size(messages[start - 1])
        if size > SCAN_CHARS:
            break
        start -= 1
    return start


def _text_size(m: Message) -> int:
    return len(m.content) + sum(len(c.arguments) for c in m.tool_calls)


def build_structured_summary(session: Session, first: int, last: int) -> StructuredSummary:
    """Fill the six sections from the newest ``SCAN_CHARS`` of ``messages[first:last + 1]``."""
    messages = session.messages
    if not 0 <= first <= last < len(messages):
        raise ValueError(
            f"summary range [{first}, {last}] is outside the session's "
            f"{plural(len(messages), 'message')}"
        )
    start = _read_from(messages, first, last)
    span = [(i, messages[i]) for i in range(start, last + 1)]
    sections = (
        _goal(span, messages[first:start], first),
        _bounded("Constraints", _matching_sentences(span, _typed_by_user, CONSTRAINT)),
        _progress(session, start, last, first),
        _bounded("Key Decisions", _decisions(span)),
        _next_steps(span),
        _critical_context(span),
    )
    written = "\n".join(item.text for section in sections for item in section.items)
    facts = fact_lines(session, first, last, written, room(span, written))
    if not written and not facts:
        sections = (*sections[:-1], _contents(span))
    return StructuredSummary(first, last, sections, start, facts, held(session, first, last))


def _contents(span: Sequence[tuple[int, Message]]) -> SummarySection:
    """When no section found anything: the newest messages' gists, so the summary says what
    the range held instead of reading as if it were empty."""
    items = [SummaryItem(f"{m.role}: {_gist(m.content)}", i) for i, m in span if m.content.strip()]
    return _bounded("Critical Context", items)
