"""PicoClaw ``main``'s legacy context manager (docs/presets.md, "picoclaw"): its triggers and
its emergency cut.

It sends the whole history after ``meta.skip``. Once per turn, before the turn's user message
joins the history, ``prompt + max_tokens > window`` runs ``forceCompression`` (the oldest half
of the turns go, a note joins the summary). After a turn, more than 20 messages or a history
over 75 % of the window summarizes all but the newest ~4 into ``meta.summary``.
"""

from __future__ import annotations

from ctxtui.core.planning.tail import find_safe_boundary
from ctxtui.core.session.models import Session


def force_compression_range(session: Session) -> tuple[int, int] | None:
    """What legacy ``forceCompression`` drops from the history before the current turn's user
    message, inclusive (``None``: nothing). It keeps ``history[turns[len(turns) / 2]:]``; with
    one turn, ``findSafeBoundary(len / 2)``, and at 0 only the last user message stays."""
    n = len(session)
    if n <= 2:
        return None
    starts = session.turn_starts
    mid = starts[len(starts) // 2] if len(starts) >= 2 else find_safe_boundary(session, n // 2)
    if mid > 0:
        return (0, mid - 1)
    if not starts:
        return (0, n - 1)
    return (starts[-1] + 1, n - 1) if starts[-1] + 1 < n else None


def emergency_note(dropped: int) -> str:
    """The note PicoClaw's ``forceCompression`` appends to the summary, byte for byte."""
    return f"[Emergency compression dropped {dropped} oldest messages due to context limit]"


def summarize_due(
    messages: int, history_tokens: int, window: int, threshold: int, percent: int
) -> bool:
    """``maybeSummarize``'s trigger: more than ``threshold`` messages, or the history over
    ``percent`` % of the window (``threshold`` 0: never)."""
    if threshold <= 0:
        return False
    return messages > threshold or history_tokens > window * percent // 100
