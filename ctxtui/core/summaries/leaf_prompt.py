"""The leaf-summary prompt an LLM would be sent for a span of messages, and seahorse's
deterministic fallback when no summary can be had.

What ctxtui would ask a model for, apart from what it writes itself (``summary``). The wording
is seahorse's (docs/presets.md), with the structured template appended when the policy asks.
"""

from __future__ import annotations

from datetime import UTC, datetime

from ctxtui.core.session.models import Message, Session
from ctxtui.core.summaries.seahorse import L3_BYTES, leaf_target
from ctxtui.core.summaries.summary import SUMMARY_TEMPLATE

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


def _timestamp(created_at: datetime) -> str:
    """Go's ``2006-01-02 15:04 MST``."""
    if created_at.tzinfo is None:
        created_at = created_at.replace(tzinfo=UTC)
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
    """``[YYYY-MM-DD HH:MM TZ]\\n<content>\\n\\n`` per message, no role; no time line without
    a time (seahorse's Go zero time, ``0001-01-01``, would read as a real date)."""
    return "".join(
        (f"[{_timestamp(m.created_at)}]\n" if m.created_at is not None else "")
        + f"{_readable(m)}\n\n"
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
    span: tuple[int, int],
    structured: bool,
    target_tokens: int,
    previous: str | None = None,
) -> str:
    """The leaf-summary prompt seahorse would send for ``messages[first:last + 1]`` (``span``,
    inclusive); ``previous`` (the last call's summary) replaces the session's earlier ones."""
    first, last = span
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
    """Seahorse's leaf target ``min(1200, int(0.35 · input))``, raised to ``floor`` (the empty
    template's size: a target below it rejects every structured summary, X21)."""
    return max(leaf_target(input_tokens), floor)


def legacy_fallback_text(session: Session, first: int, last: int) -> str:
    """Seahorse's deterministic L3 leaf: contents joined, cut to 2,048 bytes, then a note."""
    joined = "\n".join(m.content for m in session.messages[first : last + 1])
    raw = joined.encode("utf-8")
    if len(raw) > L3_BYTES:
        joined = raw[:L3_BYTES].decode("utf-8", errors="ignore")  # never split a character
    return f"{joined}\n[Truncated from {last - first + 1} messages]"
