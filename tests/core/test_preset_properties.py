"""Properties of the agents' rules, over random transcripts: seahorse as shipped, PicoClaw's
request sanitizer, Codex's rebuilt history, OpenCode's tail and PicoClaw legacy's whole history.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from ctxtui.core.compacting.compaction import compact
from ctxtui.core.planning.picoclaw_sanitize import (
    PairIndex,
    SanitizerRun,
    sanitize_ranges,
    step,
    unpaired_sent,
)
from ctxtui.core.planning.plan import Plan, TailReason, Zone
from ctxtui.core.planning.planner import build_plan
from ctxtui.core.policies.policy import Policy, preset
from ctxtui.core.policies.reasons import CompactReason
from ctxtui.core.session.models import Session
from ctxtui.core.summaries.seahorse import FRESH_TAIL_COUNT
from ctxtui.core.summaries.templates import CODEX_SUMMARY_PREFIX
from ctxtui.core.tokens.counting import count_session
from tests.core.test_plan_properties import INFO, TOKENIZER, transcripts


def _plan(session: Session, policy: Policy) -> Plan:
    counts = count_session(session, TOKENIZER, INFO)
    assert counts is not None
    return build_plan(session, policy, counts, TOKENIZER)


_windows = st.integers(300, 4_000)


@settings(max_examples=300)
@given(session=transcripts(), window=_windows, items=st.integers(1, 40), sanitize=st.booleans())
def test_seahorse_prompt_fits_the_budget_unless_the_active_turn_alone_does_not(
    session: Session, window: int, items: int, sanitize: bool
) -> None:
    policy = preset("picoclaw-seahorse", context_window=window, max_tokens=window // 4)
    policy = policy.with_changes(tail_items=items, sanitize_history=sanitize)
    plan = _plan(session, policy)
    budget = policy.context_window - policy.max_tokens
    sent = plan.totals.kept + plan.totals.tail
    if plan.tail.reason is TailReason.ACTIVE_TURN:
        assert plan.totals.kept == 0  # nothing older is added beside an over-budget turn
    else:
        assert sent <= budget
    n = len(session)
    for i in plan.excluded:
        assert plan.kept_start <= i < n
        assert plan.zone(i) is Zone.DROPPED
        if not sanitize:  # the hole: only items the trim took off the 32 (here N) items
            assert max(0, n - items) <= i < plan.tail.start
            assert plan.kept_start < max(0, n - items)  # older history is sent past the hole


@settings(max_examples=300)
@given(session=transcripts(), cuts=st.lists(st.integers(0, 60), min_size=0, max_size=4))
def test_the_sanitizer_over_ranges_matches_a_plain_run(session: Session, cuts: list[int]) -> None:
    n = len(session)
    points = sorted({min(c, n) for c in cuts} | {0, n})
    ranges = [(a, b) for a, b in zip(points[::2], points[1::2], strict=False) if a < b]
    dropped = sanitize_ranges(session, SanitizerRun.of(session), ranges)
    expected: list[int] = []
    state = 0
    for a, b in ranges:
        for i in range(a, b):
            keep, state = step(state, session.messages[i])
            if not keep:
                expected.append(i)
    assert dropped == expected
    # and what it still sends unpaired, checked against every pair
    sent = {i for a, b in ranges for i in range(a, b)} - set(dropped)
    flagged = unpaired_sent(PairIndex.of(session), ranges, frozenset(dropped))
    for result, call in session.call_of_result.items():
        if result in sent and call not in sent:
            assert result in flagged
        if call in sent and result not in sent:
            assert call in flagged
    assert set(flagged) <= sent


@settings(max_examples=200)
@given(session=transcripts(), cap=st.integers(0, 400))
def test_codex_rebuilds_user_messages_under_the_cap_and_one_summary(
    session: Session, cap: int
) -> None:
    policy = preset("codex", tokenizer="plan", compact_user_message_tokens=cap)
    plan = _plan(session, policy)
    result = compact(session, plan, CompactReason.PROACTIVE, TOKENIZER)
    if result.replaced is None:
        assert len(session) == 0
        return
    messages = result.session.messages
    assert all(m.role == "user" for m in messages)
    assert messages[-1].is_summary and messages[-1].content.startswith(CODEX_SUMMARY_PREFIX)
    assert sum(m.is_summary for m in messages) == 1
    kept = sum(TOKENIZER.count_message(m) for m in messages[:-1])
    assert kept <= cap + 3 * len(messages[:-1])  # the quarter tokenizer's 3 per message


@settings(max_examples=300)
@given(session=transcripts(), window=st.integers(20_000, 400_000))
def test_opencode_tail_never_exceeds_its_budget(session: Session, window: int) -> None:
    out = min(32_000, window // 4)
    policy = preset("opencode", tokenizer="plan", context_window=window, max_tokens=out)
    plan = _plan(session, policy)
    assert plan.tail.tokens <= plan.tail.budget
    assert 2_000 <= plan.tail.budget <= 15_000


@settings(max_examples=300)
@given(session=transcripts(), window=_windows)
def test_picoclaw_legacy_sends_the_whole_history(session: Session, window: int) -> None:
    plan = _plan(session, preset("picoclaw", context_window=window, max_tokens=window // 4))
    assert plan.kept_start == 0
    dropped = [i for i in range(len(session)) if plan.zone(i) is Zone.DROPPED]
    assert set(dropped) == set(plan.excluded)  # only what the request sanitizer drops
    if plan.compaction.needed and not plan.compaction.post_turn:
        assert plan.totals.tokens + policy_reserve(plan) > window  # forceCompression's check


def policy_reserve(plan: Plan) -> int:
    return plan.policy.max_tokens


def test_tail_count_is_seahorses() -> None:
    assert preset("picoclaw-seahorse").tail_items == FRESH_TAIL_COUNT
