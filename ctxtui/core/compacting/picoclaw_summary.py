"""PicoClaw legacy's post-turn summary (``summarizeSession``; docs/presets.md), offline.

Without an LLM, ``main`` writes ``Conversation summary: role: <head of content>... | …`` over
the user and assistant messages, leaving out (and saying so) any larger than the window
(``bytes / 2 > window / 2``); the prompt is what ``summarizeBatch`` would send
(``pkg/agent/context_legacy.go``).
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


MAX_SUMMARIZATION_MESSAGES = 10
"""Over this many messages ``summarizeSession`` summarises two halves and joins them."""


def _batch(session: Session, batch: list[int]) -> str:
    """``summarizeBatch``'s fallback: each message trimmed, cut to ``max(200, 10 %)`` runes
    (``...`` only when cut), as ``role: content``, joined by `` | ``."""
    parts = []
    for i in batch:
        m = session.messages[i]
        content = m.content.strip()
        if not content:
            parts.append(f"{m.role}: ")
            continue
        keep = min(len(content), max(HEAD_RUNES, len(content) * 10 // 100))
        cut = content[:keep] + ("..." if keep < len(content) else "")
        parts.append(f"{m.role}: {cut}")
    return "Conversation summary: " + " | ".join(parts)


def _nearest_user(session: Session, batch: list[int], mid: int) -> int:
    """``findNearestUserMessage``: back to a user message, else forward, else ``mid``."""
    original = mid
    while mid > 0 and session.messages[batch[mid]].role != "user":
        mid -= 1
    if session.messages[batch[mid]].role == "user":
        return mid
    mid = original
    while mid < len(batch) and session.messages[batch[mid]].role != "user":
        mid += 1
    return mid if mid < len(batch) else original


def legacy_summary_text(session: Session, first: int, last: int, window: int) -> str:
    """The fallback summary of ``messages[first:last + 1]`` (``summarizeSession`` with no LLM):
    over 10 messages, the two halves' fallbacks (split at the nearest user message) joined
    by a space, as the failed merge leaves them."""
    kept, omitted = _kept(session, first, last, window)
    if len(kept) > MAX_SUMMARIZATION_MESSAGES:
        mid = _nearest_user(session, kept, len(kept) // 2)
        text = f"{_batch(session, kept[:mid])} {_batch(session, kept[mid:])}"
    else:
        text = _batch(session, kept)
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
