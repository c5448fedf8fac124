"""PicoClaw legacy's post-turn summary (``summarizeSession``; docs/presets.md), offline.

Without an LLM, ``main`` writes ``Conversation summary: role: <head of content>... | …`` over
the user and assistant messages, leaving out (and saying so) any larger than the window
(``bytes / 2 > window / 2``); the prompt is what ``summarizeBatch`` would send.
"""

from __future__ import annotations

from ctxtui.core.session.models import Session

OMITTED_NOTE = "\n[Note: Some oversized messages were omitted from this summary for efficiency.]"
PROMPT_HEAD = (
    "Provide a concise summary of this conversation segment, preserving core context and key "
    "points.\n"
)
HEAD_RUNES = 200


def _kept(session: Session, first: int, last: int, window: int) -> tuple[list[int], bool]:
    kept: list[int] = []
    omitted = False
    for i in range(first, last + 1):
        m = session.messages[i]
        if m.role not in ("user", "assistant"):
            continue
        if len(m.content.encode("utf-8", "surrogatepass")) // 2 > window // 2:
            omitted = True
            continue
        kept.append(i)
    return kept, omitted


def legacy_summary_text(session: Session, first: int, last: int, window: int) -> str:
    """The fallback summary of ``messages[first:last + 1]``."""
    kept, omitted = _kept(session, first, last, window)
    parts = []
    for i in kept:
        m = session.messages[i]
        head = m.content[: max(HEAD_RUNES, len(m.content) // 10)]
        parts.append(f"{m.role}: {head}...")
    text = "Conversation summary: " + " | ".join(parts)
    return text + OMITTED_NOTE if omitted else text


def legacy_summary_prompt(session: Session, first: int, last: int) -> str:
    """``summarizeBatch``'s prompt: the instruction, the existing summary, one line a message."""
    lines = [PROMPT_HEAD]
    if session.meta.summary:
        lines.append(f"Existing context: {session.meta.summary}\n")
    lines.append("\nCONVERSATION:\n")
    shown = (m for m in session.messages[first : last + 1] if m.role in ("user", "assistant"))
    lines += (f"{m.role}: {m.content}\n" for m in shown)
    return "".join(lines)
