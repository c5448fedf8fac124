"""The structured summary a compaction writes, and the exact prompt an LLM summariser would get.

The offline summariser is deterministic: it reads only the messages being compacted and fills
the plan's six sections (algorithms.md §1.5) with bullets that each cite the message they came
from, so a reader can check every line against the transcript. ``build_llm_prompt`` renders
what PicoClaw's seahorse would send instead (§2.7), with the template's rules reconciled with
the leaf prompt's (defect X19) when structured summaries are on.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone

from ctxtui.core.models import Message, Session

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

SECTION_TITLES: tuple[str, ...] = (
    "Goal",
    "Constraints",
    "Progress",
    "Key Decisions",
    "Next Steps",
    "Critical Context",
)

MAX_ITEMS = 8  # per section: a summary that grows with the history would defeat compaction
PLAN_LOOKBACK = 20
"""How many of the newest assistant messages may hold "the last stated plan": an older plan
is history, not the next step (and searching all of 50k replies took a second)."""
GIST_CHARS = 160
ARG_GIST_CHARS = 60

_SENTENCE_SPLIT = re.compile(r"(?<=[.!?])\s+|\n+")
_CONSTRAINT = re.compile(
    r"\b(must|never|don't|do not|only|without|always|avoid|should not|shouldn't|"
    r"cannot|can't|no more than|at most|at least|make sure)\b",
    re.IGNORECASE,
)
_DECISION = re.compile(
    r"\b(decided|decide to|instead|because|will use|i'll use|we'll use|going to use|chose|"
    r"choose|opted|rather than|switch(?:ed)? to|settled on)\b",
    re.IGNORECASE,
)
_PLAN_MARKER = re.compile(
    r"\b(next|then|plan|i will|i'll|we will|we'll|let me|todo|remaining|after that)\b",
    re.IGNORECASE,
)
_LIST_LINE = re.compile(r"^\s*(?:[-*]|\d+[.)])\s+(.+)$")
_PATH = re.compile(
    r"(?<![\w/.-])((?:\.{0,2}/)?(?:[\w.-]+/)+[\w.-]+|[\w-]+\.(?:py|ts|tsx|js|jsx|go|rs|rb|"
    r"java|kt|c|h|cc|cpp|hpp|md|toml|yaml|yml|json|jsonl|txt|cfg|ini|sh|sql|html|css|tcss|lock))"
    r"(?![\w/])"
)
_ERROR_LINE = re.compile(r"(?:Error|Exception)\b|Traceback|\bFAILED\b|\bfailed\b|\berror:|\bpanic:")
_ERROR_HINTS = ("Error", "Exception", "Traceback", "FAILED", "failed", "error:", "panic:")
"""Substrings every ``_ERROR_LINE`` match contains: a cheap test that skips clean outputs."""
_CODE_LINE = re.compile(
    r"^\s*(?:\d+\s*[:|]?\s+)?(?:(?:raise|except|class|def|import|from|throw|catch|assert|"
    r"if|elif|return|try)\b|#|//|/?\*)"
)
"""A line of source code (a file read, maybe with line numbers): ``raise FooError(...)`` there
is a definition, not an error that happened, and would crowd the real ones out."""
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
    """The six sections filled from ``messages[first:last + 1]``."""

    first: int
    last: int
    sections: tuple[SummarySection, ...]

    def section(self, title: str) -> SummarySection:
        """The section with this template heading (``KeyError`` if there is none)."""
        for s in self.sections:
            if s.title == title:
                return s
        raise KeyError(title)

    def render_markdown(self) -> str:
        """The summary under the template's own headings, empty sections saying so."""
        blocks = [SUMMARY_TITLE]
        for s in self.sections:
            lines = [f"## {s.title}"]
            if s.omitted:
                lines.append(f"- ({s.omitted:,} earlier items omitted)")
            lines.extend(item.render() for item in s.items)
            if not s.items:
                lines.append(f"(none found in messages #{self.first}-#{self.last})")
            blocks.append("\n".join(lines))
        return "\n\n".join(blocks)


def _gist(text: str, limit: int = GIST_CHARS) -> str:
    """One line, whitespace collapsed, cut at ``limit`` characters with an ellipsis."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE_SPLIT.split(text) if s and s.strip()]


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


def _goal(span: Sequence[tuple[int, Message]]) -> SummarySection:
    """The user's requests: the first line of each message a person typed."""
    items = [
        SummaryItem(_gist(m.content.strip().splitlines()[0]), i)
        for i, m in span
        if _typed_by_user(m)
    ]
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
        for s in _sentences(m.content)
        if pattern.search(s)
    ]


def _arg_gist(arguments: str) -> str:
    """The argument a reader recognises a call by (a path, a command, a query)."""
    try:
        parsed = json.loads(arguments) if arguments.strip() else {}
    except ValueError:
        return _gist(arguments, ARG_GIST_CHARS)
    if isinstance(parsed, dict):
        for key in _ARG_KEYS:
            value = parsed.get(key)
            if isinstance(value, str) and value:
                return _gist(value, ARG_GIST_CHARS)
        for value in parsed.values():
            if isinstance(value, (str, int, float)) and not isinstance(value, bool):
                return _gist(str(value), ARG_GIST_CHARS)
        return ""
    return _gist(json.dumps(parsed), ARG_GIST_CHARS)


def _progress(session: Session, first: int, last: int) -> SummarySection:
    """Completed tool work: calls in range whose result is in range and not an error."""
    items: list[SummaryItem] = []
    pairs = session.call_of_result
    for r in range(first, last + 1):
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
    """The last plan the assistant stated: its list items, else its forward-looking sentences.

    Only the newest ``PLAN_LOOKBACK`` assistant replies are read.
    """
    replies = ((i, m) for i, m in reversed(span) if m.role == "assistant" and m.content.strip())
    for i, m in itertools.islice(replies, PLAN_LOOKBACK):
        listed = [g.group(1) for g in map(_LIST_LINE.match, m.content.splitlines()) if g]
        steps = listed or [s for s in _sentences(m.content) if _PLAN_MARKER.search(s)]
        if steps:
            return _bounded("Next Steps", (SummaryItem(_gist(s), i) for s in steps))
    return SummarySection("Next Steps", ())


def _error_lines(text: str) -> Iterator[str]:
    """The lines of ``text`` that hold an error marker, found in one scan of the whole text.

    Searching line by line costs a regex call per line of every tool output (294k calls on a
    10k-message session); scanning once and cutting out the matching lines costs one per hit.
    """
    end = -1
    for match in _ERROR_LINE.finditer(text):
        if match.start() <= end:
            continue  # this line was already yielded
        start = text.rfind("\n", 0, match.start()) + 1
        end = text.find("\n", match.end())
        if end == -1:
            end = len(text)
        yield text[start:end]


def _critical_context(span: Sequence[tuple[int, Message]]) -> SummarySection:
    """Files the conversation worked on and error lines its tools reported, newest kept.

    Paths come from what people and the agent wrote, from tool-call arguments and from error
    lines, not from the rest of tool outputs: a file listing or a source file mentions hundreds
    of paths that do not matter.
    Errors come only from tool outputs, and only outputs holding an error marker are scanned.
    """
    files: list[SummaryItem] = []
    errors: list[SummaryItem] = []
    for i, m in span:
        if m.role == "tool" or m.is_error:
            text = m.content
            if any(hint in text for hint in _ERROR_HINTS):
                for line in _error_lines(text):
                    if _CODE_LINE.match(line):
                        continue
                    errors.append(SummaryItem(f"Error: {_gist(line.strip())}", i))
                    # a path on an error line (a failing test, a traceback frame) matters
                    files.extend(
                        SummaryItem(f"File: {p.group(1)}", i) for p in _PATH.finditer(line)
                    )
            if m.role == "tool":
                continue
        for text in (m.content, *(call.arguments for call in m.tool_calls)):
            files.extend(SummaryItem(f"File: {p.group(1)}", i) for p in _PATH.finditer(text))
    half = MAX_ITEMS // 2
    f = _bounded("Critical Context", files)
    e = _bounded("Critical Context", errors)
    kept_f, kept_e = f.items[-half:], e.items[-half:]
    omitted = f.omitted + e.omitted + len(f.items) - len(kept_f) + len(e.items) - len(kept_e)
    merged = tuple(sorted((*kept_f, *kept_e), key=lambda x: x.index))
    return SummarySection("Critical Context", merged, omitted=omitted)


def build_structured_summary(session: Session, first: int, last: int) -> StructuredSummary:
    """Fill the six sections from ``messages[first:last + 1]``, offline and deterministically."""
    if not 0 <= first <= last < len(session.messages):
        raise ValueError(
            f"summary range [{first}, {last}] is outside the session's "
            f"{len(session.messages):,} messages"
        )
    span = [(i, session.messages[i]) for i in range(first, last + 1)]
    sections = (
        _goal(span),
        _bounded("Constraints", _matching_sentences(span, _typed_by_user, _CONSTRAINT)),
        _progress(session, first, last),
        _bounded(
            "Key Decisions",
            _matching_sentences(span, lambda m: m.role == "assistant", _DECISION),
        ),
        _next_steps(span),
        _critical_context(span),
    )
    return StructuredSummary(first, last, sections)


# -- the LLM prompt ---------------------------------------------------------------------------

_LEAF_HEAD = """\
You summarize a SEGMENT of a conversation for future model turns.
Treat this as incremental memory compaction input, not a full-conversation summary.

Normal summary policy:
- Preserve key decisions, rationale, constraints, and active tasks.
- Keep essential technical details needed to continue work safely.
- Remove obvious repetition and conversational filler.

Output requirements:
- Plain text only.
- No preamble, headings, or markdown formatting.
- Track file operations (created, modified, deleted, renamed) with file paths and current status.
- If no file operations appear, include exactly: "Files: none".
- End with exactly: "Expand for details about: <comma-separated list of what was dropped or \
compressed>".
- Target length: about {target} tokens or less."""

_TEMPLATE_RULES = """\
Structured summary template (this overrides the plain-text rules above):
- Write the summary by filling in the template below. Its Markdown headings replace the \
"Plain text only" and "No preamble, headings, or markdown formatting" rules: use exactly these \
headings, in this order, and no others.
- Keep every section. Under a section with nothing to record, write "(none)".
- Put the file operations (or the exact line "Files: none") inside "## Critical Context".
- "## Critical Context" comes last and ends with exactly: "Expand for details about: \
<comma-separated list of what was dropped or compressed>".

<template>
{template}
</template>"""

_ZERO_TIME = "0001-01-01 00:00 UTC"


def _timestamp(created_at: datetime | None) -> str:
    """Go's ``2006-01-02 15:04 MST``; a missing time renders as Go's zero time does."""
    if created_at is None:
        return _ZERO_TIME
    if created_at.tzinfo is None:
        created_at = created_at.replace(tzinfo=timezone.utc)
    zone = created_at.tzname() or "UTC"
    return f"{created_at:%Y-%m-%d %H:%M} {zone}"


def _readable(m: Message) -> str:
    """The content, or for an empty message what it carried (parts, tool calls)."""
    if m.content:
        return m.content
    labels = [p.label or p.kind.value for p in m.parts]
    calls = [f"{c.name}({c.arguments})" for c in m.tool_calls]
    return "\n".join(labels + calls)


def render_segment(session: Session, first: int, last: int) -> str:
    """``[YYYY-MM-DD HH:MM TZ]\\n<content>\\n\\n`` per message; the role is not included."""
    return "".join(
        f"[{_timestamp(m.created_at)}]\n{_readable(m)}\n\n"
        for m in session.messages[first : last + 1]
    )


def previous_context(session: Session, first: int) -> str:
    """Up to two summaries before the segment (seahorse), else the source's own summary."""
    earlier = [m.content for m in session.messages[:first] if m.is_summary][-2:]
    if earlier:
        return "\n\n".join(earlier)
    return session.meta.summary or ""


def build_llm_prompt(
    session: Session,
    first: int,
    last: int,
    structured: bool,
    target_tokens: int,
    previous: str | None = None,
) -> str:
    """The leaf-summary prompt seahorse would send for ``messages[first:last + 1]``.

    ``previous`` replaces the earlier summaries found in the session: a summariser that makes
    several leaf calls hands each call the summary the call before it wrote.
    """
    context = previous_context(session, first) if previous is None else previous
    prev = context.strip() or "(none)"
    blocks = [_LEAF_HEAD.format(target=target_tokens)]
    if structured:
        blocks.append(_TEMPLATE_RULES.format(template=SUMMARY_TEMPLATE))
    blocks.append(f"<previous_context>\n{prev}\n</previous_context>")
    blocks.append(
        f"<conversation_segment>\n{render_segment(session, first, last)}\n</conversation_segment>"
    )
    return "\n\n".join(blocks)


def leaf_target_tokens(input_tokens: int, floor: int = 0) -> int:
    """Seahorse's leaf target ``min(1200, int(0.35 · input))``, raised to ``floor``.

    With structured summaries the floor is the empty template's size: a target below it
    rejects every structured summary (defect X21).
    """
    return max(min(1200, int(input_tokens * 0.35)), floor)


def legacy_fallback_text(session: Session, first: int, last: int) -> str:
    """Seahorse's deterministic L3 leaf: contents joined, cut to 2,048 bytes, then a note."""
    joined = "\n".join(m.content for m in session.messages[first : last + 1])
    raw = joined.encode("utf-8")
    if len(raw) > 2048:
        joined = raw[:2048].decode("utf-8", errors="ignore")  # never split a character
    return f"{joined}\n[Truncated from {last - first + 1} messages]"
