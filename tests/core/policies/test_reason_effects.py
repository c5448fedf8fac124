"""Each reason says what it changes in the preset, and "only labels" is checked by compacting."""

from __future__ import annotations

import re

import pytest

from ctxtui.core.engine import Engine
from ctxtui.core.policies.policy import preset
from ctxtui.core.policies.presets import PRESETS
from ctxtui.core.policies.reason_effects import reason_choices, reason_effect
from ctxtui.core.policies.reasons import CompactReason
from ctxtui.core.session.models import Message, Session


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
        "In PicoClaw: the proactive budget check",
        "In PicoClaw: the retry after the LLM refuses the request",
        "In PicoClaw: no such reason",
    ]


def test_picoclaw_past_its_after_turn_limit_says_proactive_summarises() -> None:
    """The long PicoClaw chat is past legacy's after-turn limit: a proactive compaction
    summarises what precedes the fresh tail into the session's summary (the preview shows a
    summary), a retry drops the oldest half. Neither sentence may claim the reason only labels
    the event, and each says what its own compaction does."""
    from ctxtui.importers import load_session
    from ctxtui.samples import samples_dir

    session = load_session(samples_dir() / "picoclaw_long_chat.jsonl")
    policy = preset("picoclaw", context_window=131_072)
    engine = Engine(session)
    plan = engine.plan(policy)
    assert plan.compaction.post_turn
    proactive = engine.compact(policy, CompactReason.PROACTIVE)
    retry = engine.compact(policy, CompactReason.RETRY)
    assert proactive.prompt and proactive.summary_text  # summarised, with an LLM prompt
    assert proactive.replaced == (0, plan.tail.start - 1)
    assert not retry.prompt and retry.replaced != proactive.replaced  # the emergency drop
    choices = {c.reason: c for c in reason_choices(policy, post_turn=True)}
    said = choices[CompactReason.PROACTIVE].effect
    assert not choices[CompactReason.PROACTIVE].labels_only
    assert "summarises the messages before the fresh tail" in said
    assert "drops the oldest half" not in said
    assert "drops the oldest half" in choices[CompactReason.RETRY].effect
    assert not choices[CompactReason.RETRY].labels_only
    assert all(not c.labels_only for c in choices.values())


def test_what_a_reason_says_follows_the_knobs_not_the_presets_name() -> None:
    """A preset is never a special case: PicoClaw's summary template, not a name starting with
    "picoclaw", is what brings the note that PicoClaw never gives the overflow reason."""
    note = "PicoClaw itself never gives this reason."
    borrowed = preset("plan", summary_template="picoclaw")
    assert reason_effect(borrowed, CompactReason.OVERFLOW).endswith(note)
    renamed = preset("picoclaw", summary_template="plan")
    assert not reason_effect(renamed, CompactReason.OVERFLOW).endswith(note)
    assert all(
        reason_effect(preset(name), CompactReason.OVERFLOW).endswith(note)
        == (PRESETS[name].knobs.get("summary_template") == "picoclaw")
        for name in PRESETS
    )
