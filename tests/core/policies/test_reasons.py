"""Compaction reasons: the plan's names, PicoClaw's wire names, and the two gaps (X13–X15)."""

from __future__ import annotations

import pytest

from ctxtui.core.policies.reasons import CompactReason


@pytest.mark.parametrize(
    ("wire", "reason"),
    [
        ("proactive", CompactReason.PROACTIVE),
        ("proactive_budget", CompactReason.PROACTIVE),
        ("retry", CompactReason.RETRY),
        ("llm_retry", CompactReason.RETRY),
        ("overflow", CompactReason.OVERFLOW),
        ("  LLM_Retry ", CompactReason.RETRY),
    ],
)
def test_x13_both_names_of_a_reason_parse_to_it(wire: str, reason: CompactReason) -> None:
    assert CompactReason.parse(wire) is reason


def test_x14_picoclaws_post_turn_summarize_is_a_proactive_compaction() -> None:
    assert CompactReason.parse("summarize") is CompactReason.PROACTIVE


def test_x15_overflow_has_no_picoclaw_reason() -> None:
    assert CompactReason.OVERFLOW.picoclaw_words == "no such reason"


def test_an_unknown_reason_names_the_known_ones() -> None:
    with pytest.raises(ValueError, match="proactive, retry, overflow"):
        CompactReason.parse("panic")
