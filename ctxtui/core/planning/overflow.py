"""Why a request cannot fit: one rule for the planner's forecast and the compaction's result.

Which part overflows is decided once, here: a sentence with figures for the plan's forecast,
a stable code (``fresh_tail_exceeds_window``) for the compaction's result, which scripts read.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from ctxtui.core.errors import OverflowInfo

UNKNOWN_MODEL = "unknown"


class OverflowCause(StrEnum):
    """Which part of the request leaves no room for the rest."""

    FIXED = "system_prompt_tools_and_reserve_exceed_window"
    KEPT = "fresh_tail_exceeds_window"
    SUMMARY = "history_exceeds_window_after_compaction"


CAUSE_WORDS: dict[str, str] = {
    OverflowCause.FIXED: (
        "the system prompt, tool definitions and output reserve exceed the window on their own"
    ),
    OverflowCause.KEPT: (
        "the fresh tail does not fit beside the system prompt, tool definitions and output reserve"
    ),
    OverflowCause.SUMMARY: "the summary takes what the compaction keeps past the window",
}
"""Each cause's code in words, for a reason that has no figures with it."""


def overflow_words(reason: str) -> str:
    """An ``OverflowInfo.reason`` for people: a cause's code becomes its sentence; a sentence
    (the plan's forecast, with its figures) is returned as it is. Scripts keep the code."""
    return CAUSE_WORDS.get(reason, reason)


@dataclass(frozen=True, slots=True)
class RequestParts:
    """A request as the window sees it: what every request carries, the summary, the rest."""

    system: int
    tool_defs: int
    output_reserve: int
    summary: int
    kept: int  # the history sent verbatim
    kept_label: str = "fresh tail"

    @property
    def fixed(self) -> int:
        return self.system + self.tool_defs + self.output_reserve

    @property
    def requested(self) -> int:
        return self.fixed + self.summary + self.kept


def overflow_info(
    parts: RequestParts, window: int, model: str | None, *, prose: bool = False
) -> OverflowInfo | None:
    """``None`` when the request fits; otherwise the real estimate (X9) and which part (X12),
    as a code or, with ``prose``, a sentence."""
    requested = parts.requested
    if requested <= window:
        return None
    if parts.fixed > window:
        cause = OverflowCause.FIXED
        sentence = (
            f"system prompt ({parts.system:,}) + tool definitions ({parts.tool_defs:,}) + "
            f"output reserve ({parts.output_reserve:,}) exceed the window on their own"
        )
    elif parts.fixed + parts.kept > window:
        cause = OverflowCause.KEPT
        sentence = (
            f"the {parts.kept_label} ({parts.kept:,} tokens) does not fit beside the system "
            f"prompt, tool definitions and output reserve ({parts.fixed:,} tokens)"
        )
    else:
        cause = OverflowCause.SUMMARY
        sentence = (
            f"the summary (~{parts.summary:,} tokens) takes the {parts.kept_label} "
            f"({parts.kept:,} tokens) {requested - window:,} tokens past the window"
        )
    return OverflowInfo(
        model=model or UNKNOWN_MODEL,
        context_window=window,
        requested_tokens=requested,
        reason=sentence if prose else cause.value,
    )
