"""Each reason says what it changes in the preset, and "only labels" is checked by compacting."""

from __future__ import annotations

import re

import pytest

from ctxtui.core.engine import Engine
from ctxtui.core.models import Message, Session
from ctxtui.core.policy import PRESETS, preset
from ctxtui.core.reason_effects import reason_choices, reason_effect
from ctxtui.core.reasons import CompactReason


def _session() -> Session:
    messages: list[Message] = []
    for k in range(20):
        messages.append(Message(role="user", content=f"step {k}: " + "u" * 400))
        messages.append(Message(role="assistant", content=f"I'll use plan {k}. " + "a" * 800))
    return Session(messages=tuple(messages))


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_a_reason_that_only_labels_changes_nothing(name: str) -> None:
    session = _session()
    policy = preset(name, context_window=2_000, max_tokens=200)
    engine = Engine(session)
    base = engine.compact(policy, CompactReason.PROACTIVE)
    assert base.replaced is not None  # the session does need compacting
    for choice in reason_choices(policy, tuple(CompactReason)):
        result = engine.compact(policy, choice.reason)
        same = (result.replaced, result.tokens_after, result.summary_text, result.session) == (
            base.replaced,
            base.tokens_after,
            base.summary_text,
            base.session,
        )
        assert choice.effect.startswith("Only labels") == same, choice


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_no_jargon_and_the_preset_is_named(name: str) -> None:
    policy = preset(name)
    for choice in reason_choices(policy):
        for text in (choice.when, choice.effect, choice.wire):
            assert text and not re.search(r"\bX\d+\b|defect", text), text
        assert name in choice.effect or "Changes" in choice.effect


def test_the_sentences_for_the_two_shipped_presets() -> None:
    assert reason_effect(preset("plan"), CompactReason.RETRY) == (
        "Only labels the event: the plan preset replaces the history before the fresh tail with "
        "one summary whatever the reason, so the outcome is the same for every reason."
    )
    overflow = reason_effect(preset("picoclaw"), CompactReason.OVERFLOW)
    assert "drops the oldest half" in overflow
    assert overflow.endswith("PicoClaw itself never gives this reason.")
    wires = [c.wire for c in reason_choices(preset("plan"))]
    assert wires == [
        "PicoClaw: proactive_budget",
        "PicoClaw: llm_retry",
        "PicoClaw: no name for it",
    ]
