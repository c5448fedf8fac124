"""Why a compaction runs: the plan's ``CompactReason`` and PicoClaw's wire names for it.

The plan renamed PicoClaw's values (defect X13), so ctxtui keeps both: the plan's name is the
one used everywhere, and ``parse`` also takes what PicoClaw ``main`` would log or emit.
"""

from __future__ import annotations

from enum import StrEnum


class CompactReason(StrEnum):
    """The plan's three reasons (docs/plan.md, "Why a compaction runs")."""

    PROACTIVE = "proactive"  # before the LLM call: the request would not fit
    RETRY = "retry"  # after the provider rejected the request as too long
    OVERFLOW = "overflow"  # during streaming (no producer in PicoClaw: defect X15)

    @property
    def picoclaw_words(self) -> str:
        """What PicoClaw ``main``'s reason is, in words ."""
        return _PICOCLAW_WORDS.get(self, "no such reason")

    @property
    def label(self) -> str:
        """The reason for people: ``proactive (in PicoClaw: the proactive budget check)``."""
        return f"{self.value} (in PicoClaw: {self.picoclaw_words})"

    @classmethod
    def parse(cls, value: str) -> CompactReason:
        """Accept the plan's names and PicoClaw's (``proactive_budget``, ``llm_retry``).

        PicoClaw's post-turn ``summarize`` has no counterpart in the plan (defect X14); it maps
        to ``proactive``, the reason a post-turn check would give. (A plan says which of
        PicoClaw legacy's two triggers fired with ``CompactionNeed.post_turn``.)
        """
        v = value.strip().lower()
        for reason in cls:
            if v == reason.value or v == _PICOCLAW.get(reason):
                return reason
        if v == "summarize":
            return cls.PROACTIVE
        names = ", ".join(r.value for r in cls)
        raise ValueError(f"reason: unknown compaction reason {value!r} (expected {names})")


_PICOCLAW: dict[CompactReason, str] = {
    CompactReason.PROACTIVE: "proactive_budget",
    CompactReason.RETRY: "llm_retry",
}

_PICOCLAW_WORDS: dict[CompactReason, str] = {
    CompactReason.PROACTIVE: "the proactive budget check",
    CompactReason.RETRY: "the retry after the LLM refuses the request",
}
