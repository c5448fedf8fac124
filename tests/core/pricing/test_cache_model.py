"""What-if pricing (``core.pricing.cache_model``): the simulated run priced with a prefix-cache
model, checked against the recorded cache reads of the bundled samples under their own agents'
presets (the figures docs/cost.md states)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxtui.core.engine import Engine
from ctxtui.core.policies.policy import Policy
from ctxtui.core.pricing.cache_model import WhatIf, token_scale, what_if
from ctxtui.core.pricing.cost import session_cost
from ctxtui.core.session.models import Message, Session, SessionMeta, Usage
from ctxtui.core.simulation.live_context import Counted
from ctxtui.core.simulation.replay import replay
from ctxtui.core.tokens.calibration import calibrate
from ctxtui.importers import load_session
from ctxtui.options import build_policy
from ctxtui.samples import samples_dir


def _whatif(session: Session, policy: Policy) -> WhatIf:
    engine = Engine(session)
    counts = engine.counts(policy)
    assert counts is not None
    result = replay(Counted(session, policy, counts, engine.tokenizer(policy)))
    calibration = calibrate(session, result.points, {counts.tokenizer.used: counts})
    scale = token_scale(session, counts, calibration.fit)
    return what_if(result, session_cost(session, result.points), scale)


@pytest.mark.parametrize(
    ("name", "preset", "requests", "within", "median"),
    [
        # the Claude Code sample's reads are drawn as prompt - U(200, 2000)
        ("claude_code_replay.jsonl", "claude-code", 76, 0.54, 0.044),
        # the Codex sample's reads are always prompt - 1500: no prefix cache behaves so
        ("codex_replay.jsonl", "codex", 103, 0.0, 0.079),
        # the cache story's reads follow a prefix cache (tools/make_replay_samples.py)
        ("claude_code_cache_story.jsonl", "claude-code", 14, 1.0, 0.0),
    ],
)
def test_cache_model_against_the_recorded_reads(
    name: str, preset: str, requests: int, within: float, median: float
) -> None:
    session = load_session(samples_dir() / name, full_history=True)
    policy = build_policy(preset, {}, session)
    whatif = _whatif(session, policy)
    figures = whatif.agreement()
    assert figures["requests"] == requests
    assert figures["within_tolerance"] == pytest.approx(within, abs=0.01)
    assert figures["median_error"] == pytest.approx(median, abs=0.001)
    # recorded and simulated side by side
    assert whatif.recorded.total > 0 and whatif.total > 0
    assert whatif.compactions_recorded >= 1


START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def _chat(gaps: list[int], model_at: int | None = None) -> Session:
    """User / assistant turns; reply ``k`` comes ``gaps[k]`` seconds after the one before."""
    messages: list[Message] = []
    at = START
    prompt = 1_000
    for k, gap in enumerate(gaps):
        at += timedelta(seconds=gap)
        messages.append(Message(role="user", content="question " * 50, created_at=at))
        prompt += 200
        model = "claude-opus-4-5" if model_at is not None and k >= model_at else None
        usage = Usage(prompt_total=prompt, cached_read=prompt - 200, cache_write=200, output=5)
        messages.append(
            Message(
                role="assistant",
                content="answer " * 20,
                created_at=at,
                model=model or "claude-sonnet-4-5",
                usage=usage,
            )
        )
    return Session(messages=tuple(messages), meta=SessionMeta(format="claude-code"))


def test_a_warm_run_reads_the_previous_prompt() -> None:
    session = _chat([10] * 6)
    whatif = _whatif(session, build_policy("claude-code", {}, session))
    assert [r.broke for r in whatif.requests if r] == [None] * 6
    reads = [r.usage.cache_read for r in whatif.requests if r]
    prompts = [r.usage.prompt for r in whatif.requests if r]
    assert reads[1:] == prompts[:-1]


def test_a_long_pause_and_a_model_switch_empty_the_simulated_cache() -> None:
    session = _chat([10, 10, 400, 10, 10], model_at=4)
    whatif = _whatif(session, build_policy("claude-code", {}, session))
    assert [r.broke for r in whatif.requests if r] == [None, None, "ttl", None, "model"]
    assert [r.usage.cache_read for r in whatif.requests if r][2] == 0


@settings(max_examples=40, deadline=None)
@given(
    gaps=st.lists(st.integers(1, 900), min_size=1, max_size=12),
    switch=st.one_of(st.none(), st.integers(0, 11)),
)
def test_the_simulated_cache_never_reads_what_it_did_not_hold(
    gaps: list[int], switch: int | None
) -> None:
    """Each simulated read is within its prompt and the previous simulated prompt; a pause
    past the lifetime or a switch of model reads nothing; otherwise the previous prompt."""
    session = _chat(gaps, model_at=switch)
    whatif = _whatif(session, build_policy("claude-code", {}, session))
    requests = [r for r in whatif.requests if r is not None]
    assert len(requests) == len(gaps)
    for k, r in enumerate(requests):
        assert 0 <= r.usage.cache_read <= r.usage.prompt
        assert r.cost is not None and r.cost >= 0
        if k == 0:
            continue
        before = requests[k - 1].usage.prompt
        assert r.usage.cache_read <= before
        switched = switch is not None and k == switch and switch > 0
        if switched:
            assert r.broke == "model" and r.usage.cache_read == 0
        elif gaps[k] > 300:
            assert r.broke == "ttl" and r.usage.cache_read == 0
        else:
            assert r.broke is None and r.usage.cache_read == before
