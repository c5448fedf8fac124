"""Replay invariants over random transcripts, counts and policies (hypothesis).

The transcripts, counts and policies are the planner property tests' own strategies: tool
results paired by id but not always adjacent, orphans, headless runs, every knob free.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ctxtui.core.compacting.compaction import compact
from ctxtui.core.planning.planner import build_plan
from ctxtui.core.planning.tail import Boundaries
from ctxtui.core.policies.modes import TriggerCheck, TriggerCount
from ctxtui.core.policies.policy import Policy
from ctxtui.core.policies.reasons import CompactReason
from ctxtui.core.session.models import Session, SessionIndex
from ctxtui.core.simulation.live_context import Counted, live_counts, live_session
from ctxtui.core.simulation.replay import EventKind, Replay, replay
from ctxtui.core.tokens.counts import SessionCounts
from tests.core.planning.test_plan_properties import TOKENIZER, policies, sessions

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _replay(case: tuple[Session, SessionCounts], policy: Policy, exact: bool = False) -> Replay:
    session, counts = case
    return replay(Counted(session, policy, counts, TOKENIZER), exact=exact)


@SETTINGS
@given(sessions(), policies())
def test_prompt_never_exceeds_the_window_unless_the_request_says_overflow(
    case: tuple[Session, SessionCounts], policy: Policy
) -> None:
    for request in _replay(case, policy).requests:
        overflow = request.has(EventKind.OVERFLOW)
        assert overflow == (request.simulated_tokens > policy.context_window)


@SETTINGS
@given(sessions(), policies())
def test_one_request_per_assistant_message_in_order(
    case: tuple[Session, SessionCounts], policy: Policy
) -> None:
    session = case[0]
    result = _replay(case, policy)
    points = [r.message_index for r in result.requests]
    assert points == sorted(set(points)) == list(session.index.requests)
    assert [r.index for r in result.requests] == list(range(len(points)))
    calls = [i for i, m in enumerate(session.messages) if m.role == "assistant"]
    assert points == calls  # no harness-written assistants in these transcripts


@SETTINGS
@given(sessions(), policies())
def test_prefix_sums_agree_with_a_plan_per_request(
    case: tuple[Session, SessionCounts], policy: Policy
) -> None:
    """The incremental walk is the planner's answer, request by request."""
    fast, exact = _replay(case, policy), _replay(case, policy, exact=True)
    assert [r.simulated_tokens for r in fast.requests] == [
        r.simulated_tokens for r in exact.requests
    ]
    assert [r.events for r in fast.requests] == [r.events for r in exact.requests]
    assert fast.compactions == exact.compactions
    assert fast.segments == exact.segments


@SETTINGS
@given(sessions(), policies(), st.data())
def test_context_at_a_request_is_the_context_that_was_counted(
    case: tuple[Session, SessionCounts], policy: Policy, data: st.DataObject
) -> None:
    result = _replay(case, policy)
    if not result.requests:
        return
    k = data.draw(st.integers(0, len(result.requests) - 1))
    request = result.requests[k]
    context = result.context_at(k)
    assert context.plan.totals.tokens == request.simulated_tokens
    rows = len(context.session.messages)
    shown = [context.history_index(i) for i in range(rows)]
    history = [i for i in shown if i is not None]
    assert history == list(range(context.start, request.message_index))
    assert (shown[:1] == [None]) == context.stand_in


@SETTINGS
@given(sessions(), policies(), st.data())
def test_context_at_plans_as_a_plan_of_the_context_alone(
    case: tuple[Session, SessionCounts], policy: Policy, data: st.DataObject
) -> None:
    """``context_at`` reuses the walk's truncation and tool-output index; the plan is the
    one ``build_plan`` makes of that context from nothing."""
    result = _replay(case, policy)
    if not result.requests:
        return
    k = data.draw(st.integers(0, len(result.requests) - 1))
    context = result.context_at(k)
    counts = live_counts(
        result.counts, result.segments[result.requests[k].segment], k_stop(result, k)
    )
    alone = build_plan(context.session, policy, counts, TOKENIZER)
    plan = context.plan
    assert (plan.kept_start, plan.excluded, plan.totals) == (
        alone.kept_start,
        alone.excluded,
        alone.totals,
    )
    assert dict(plan.pruned) == dict(alone.pruned)
    assert dict(plan.truncated) == dict(alone.truncated)
    assert list(plan.effective_tokens) == list(alone.effective_tokens)


@SETTINGS
@given(sessions(), policies(), st.data())
def test_a_contexts_index_and_cut_marks_are_cut_from_the_historys(
    case: tuple[Session, SessionCounts], policy: Policy, data: st.DataObject
) -> None:
    """``live_index`` is ``SessionIndex.of`` the live context, and ``live_bounds`` (where it
    answers) its ``Boundaries.of``, at any request of any segment."""
    result = _replay(case, policy)
    if not result.requests or result.account is None:
        return
    k = data.draw(st.integers(0, len(result.requests) - 1))
    segment = result.segments[result.requests[k].segment]
    stop = k_stop(result, k)
    live = live_session(result.session, segment, stop)
    index = result.account.live_index(segment, stop)
    if index is not None:
        assert index == SessionIndex.of(live.messages)
    bounds = result.account.live_bounds(segment, stop)
    if bounds is not None:
        assert bounds == Boundaries.of(live)


def k_stop(result: Replay, k: int) -> int:
    return result.requests[k].message_index


@SETTINGS
@given(sessions(), policies())
def test_each_compaction_starts_a_later_segment_and_is_an_event(
    case: tuple[Session, SessionCounts], policy: Policy
) -> None:
    result = _replay(case, policy)
    starts = [s.start for s in result.segments]
    assert starts == sorted(starts)
    assert len(result.segments) == len(result.compactions) + 1
    marked = [r.index for r in result.requests if r.has(EventKind.COMPACTION)]
    assert marked == sorted({c.request for c in result.compactions})
    for r in result.requests:  # an after-turn pass and the trigger's may share a request
        events = [e for e in r.events if e.kind is EventKind.COMPACTION]
        assert len(events) == sum(c.request == r.index for c in result.compactions)
    last_at = {c.request: c for c in result.compactions}
    for c in result.compactions:
        request = result.requests[c.request]
        if last_at[c.request] is c:
            assert c.tokens_after == request.simulated_tokens
        first, last = c.replaced
        assert first <= last < request.message_index


@SETTINGS
@given(sessions(), policies())
def test_a_request_over_the_trigger_compacts_unless_nothing_could_go(
    case: tuple[Session, SessionCounts], policy: Policy
) -> None:
    result = _replay(case, policy)
    trigger = result.trigger_tokens
    for request in result.requests:
        if trigger is None or policy.trigger_check is not TriggerCheck.REQUEST:
            return  # checked once per turn, or never: a request over it may stand
        if policy.trigger_count is not TriggerCount.LOCAL:
            return  # a reported figure decided, not this count
        if request.simulated_tokens <= trigger or request.has(EventKind.COMPACTION):
            continue
        context = result.context_at(request.index)
        if len(context.session.messages) == 0:
            continue
        done = compact(context.session, context.plan, CompactReason.PROACTIVE, TOKENIZER)
        replaced = done.replaced
        assert replaced is None or (context.stand_in and replaced[1] == 0)


@SETTINGS
@given(sessions(), policies())
def test_no_simulated_compaction_leaves_a_larger_prompt(
    case: tuple[Session, SessionCounts], policy: Policy
) -> None:
    """Where the trigger counts locally, a compaction that would not shrink the prompt (a
    summary or note bigger than what it replaced) is not simulated (issue 37, item 5)."""
    local = policy.with_changes(trigger_count=TriggerCount.LOCAL)
    for c in _replay(case, local).compactions:
        assert c.tokens_after < c.tokens_before
