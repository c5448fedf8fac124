"""What choosing a compaction reason changes under a policy, in words a newcomer can act on.

The reasons (``proactive``, ``retry``, ``overflow``) name *when* an agent compacts. In the
presets ctxtui models, most of them change nothing about *what* is compacted: the same history
is replaced the same way, and the reason is only recorded. Saying so plainly, per preset, stops
the reason dialog from looking broken ("I picked retry and nothing changed"). The sentences
describe ctxtui's own compaction (``core.compaction``); a test compacts under every reason and
fails if one of them claims "only labels" while changing the outcome.
"""

from __future__ import annotations

from dataclasses import dataclass

from ctxtui.core.policy import Policy
from ctxtui.core.reasons import CompactReason

WHEN: dict[str, str] = {
    "proactive": "Before the LLM call: the next request would not fit the budget.",
    "retry": "After the provider rejected the request as too long.",
    "overflow": "During streaming, when the reply overflows the window.",
    "summarize": "After a turn, when the history passes PicoClaw legacy's message or size limit.",
}
"""When each reason fires, in the plan's words (one line each)."""

_ACTIONS: dict[str, str] = {
    "summarize": "replaces the history before the fresh tail with one summary",
    "drop_oldest_half": "drops the oldest half of the history and notes it in the summary",
}


ONLY_LABELS = "Only labels the event"
"""How an effect sentence starts when the reason changes nothing about the outcome."""


def compaction_action(policy: Policy) -> str:
    """What a compaction does under ``policy``, as a verb phrase."""
    style = str(policy.compaction_style.value)
    return _ACTIONS.get(style, f"compacts in its {style.replace('_', ' ')} style")


def _post_turn_summary(policy: Policy, reason: CompactReason) -> bool:
    """PicoClaw legacy's post-turn summary: the one reason with a compaction of its own."""
    return reason.value == "summarize" and getattr(policy, "summarize_message_threshold", 0) > 0


def reason_effect(policy: Policy, reason: CompactReason) -> str:
    """One or two sentences: what ``reason`` changes under ``policy``, or that it only labels."""
    if _post_turn_summary(policy, reason):
        return (
            "Changes the compaction: the older history is summarised into the session's "
            "summary after the turn, instead of the emergency drop the other reasons run."
        )
    text = (
        f"{ONLY_LABELS}: the {policy.preset} preset {compaction_action(policy)} "
        "whatever the reason, so the outcome is the same for every reason."
    )
    if reason is CompactReason.OVERFLOW and policy.preset.startswith("picoclaw"):
        text += " PicoClaw itself never gives this reason."
    return text


def reason_wire_name(reason: CompactReason) -> str:
    """PicoClaw's name for the reason, or that it has none (without defect numbers)."""
    wire = reason.picoclaw_name
    return f"PicoClaw: {wire}" if wire else "PicoClaw: no name for it"


@dataclass(frozen=True, slots=True)
class ReasonChoice:
    """Everything the reason dialog shows for one reason."""

    reason: CompactReason
    when: str
    effect: str
    wire: str

    @property
    def labels_only(self) -> bool:
        """Whether picking this reason changes nothing but the label of the event."""
        return self.effect.startswith(ONLY_LABELS)


def reason_choices(
    policy: Policy, reasons: tuple[CompactReason, ...] | None = None
) -> list[ReasonChoice]:
    """The reasons a user may pick (the plan's three by default), each with its sentences."""
    picked = reasons or (CompactReason.PROACTIVE, CompactReason.RETRY, CompactReason.OVERFLOW)
    return [
        ReasonChoice(r, WHEN.get(r.value, ""), reason_effect(policy, r), reason_wire_name(r))
        for r in picked
    ]
