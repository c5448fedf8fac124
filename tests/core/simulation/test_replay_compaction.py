"""Replay's own summarising compaction writes the stand-in ``compact`` writes, under every
summary template, structured or not (the property tests leave both knobs at their defaults)."""

from __future__ import annotations

import pytest

from ctxtui.core.engine import Engine
from ctxtui.core.policies.policy import policy_for_session
from ctxtui.core.simulation.live_context import Counted
from ctxtui.core.simulation.replay import replay
from ctxtui.core.summaries.summary_template import SummaryTemplate
from ctxtui.importers import load_session
from ctxtui.samples import samples_dir


@pytest.mark.parametrize("structured", [True, False])
@pytest.mark.parametrize("template", list(SummaryTemplate))
def test_stand_ins_are_the_compactors_own(template: SummaryTemplate, structured: bool) -> None:
    session = load_session(samples_dir() / "claude_code_replay.jsonl", full_history=True)
    knobs = {
        "context_window": 8_000,
        "max_tokens": 1_000,
        "summary_template": template,
        "structured_summaries": structured,
    }
    policy = policy_for_session("plan", session, knobs)
    engine = Engine(session)
    counts = engine.counts(policy)
    assert counts is not None
    tokenizer = engine.tokenizer(policy)
    fast = replay(Counted(session, policy, counts, tokenizer))
    exact = replay(Counted(session, policy, counts, tokenizer), exact=True)
    assert len(fast.compactions) >= 3
    assert fast.segments == exact.segments
    assert fast.compactions == exact.compactions
    assert [r.simulated_tokens for r in fast.requests] == [
        r.simulated_tokens for r in exact.requests
    ]
