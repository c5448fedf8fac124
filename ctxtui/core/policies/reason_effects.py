"""What choosing a compaction reason changes under a policy, in words a newcomer can act on.

The reasons (``proactive``, ``retry``, ``overflow``) name *when* an agent compacts. In the
presets ctxtui models, most of them change nothing about *what* is compacted: the same history
is replaced the same way, and the reason is only recorded. Saying so plainly, per preset, stops
the reason dialog from looking broken ("I picked retry and nothing changed"). The sentences
describe ctxtui's own compaction (``core.compacting.compaction``); a test compacts under every
reason and fails if one of them claims "only labels" while changing the outcome.
"""

from __future__ import annotations

from dataclasses import dataclass

from ctxtui.core.policies.modes import SummaryTemplate
from ctxtui.core.policies.policy import Policy
from ctxtui.core.policies.reasons import CompactReason

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


def reason_effect(policy: Policy, reason: CompactReason, post_turn: bool = False) -> str:
    """One or two sentences: what ``reason`` changes under ``policy``, or that it only labels.

    ``post_turn`` is the plan's ``compaction.post_turn``: PicoClaw legacy past its after-turn
    limit compacts in another way for the proactive reason than for the others.
    """
    if post_turn and policy.summarize_message_threshold > 0:  # legacy's after-turn limit
        if reason is CompactReason.PROACTIVE:
            return (
                "Changes the compaction: the history is past PicoClaw's after-turn limit, so "
                f"the {policy.preset} preset summarises the messages before the fresh tail into "
                "the session's summary; retry and overflow drop the oldest half instead."
            )
        return (
            f"Changes the compaction: the {policy.preset} preset "
            f"{_ACTIONS['drop_oldest_half']}, where proactive would summarise the messages "
            "before the fresh tail (the history is past PicoClaw's after-turn limit)."
        )
    text = (
        f"{ONLY_LABELS}: the {policy.preset} preset {compaction_action(policy)} "
        "whatever the reason, so the outcome is the same for every reason."
    )
    if reason is CompactReason.OVERFLOW and policy.summary_template is SummaryTemplate.PICOCLAW:
        text += " PicoClaw itself never gives this reason."  # its compaction, whichever preset
    return text


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
    policy: Policy, reasons: tuple[CompactReason, ...] | None = None, post_turn: bool = False
) -> list[ReasonChoice]:
    """The reasons a user may pick (the plan's three by default), each with its sentences;
    ``post_turn`` as for ``reason_effect``."""
    picked = reasons or (CompactReason.PROACTIVE, CompactReason.RETRY, CompactReason.OVERFLOW)
    return [
        ReasonChoice(
            r,
            WHEN.get(r.value, ""),
            reason_effect(policy, r, post_turn),
            f"In PicoClaw: {r.picoclaw_words}",
        )
        for r in picked
    ]
