"""Properties every plan keeps, over random sessions with tool pairs and random valid policies."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from ctxtui.core.counts import SessionCounts
from ctxtui.core.models import Message, Session, ToolCall, ToolDefinition
from ctxtui.core.plan import Plan, TailReason, TokenizerInfo
from ctxtui.core.planner import build_plan, history_budget
from ctxtui.core.policy import CompactionStyle, Policy, PruneMode, TailMode, make_policy


class QuarterTokenizer:
    """A tiny Tokenizer: a quarter token per character plus 3 per message."""

    name = "quarter"

    def count_text(self, text: str) -> int:
        return len(text) // 4

    def count_message(self, message: Message) -> int:
        return len(message.content) // 4 + 3

    def count_tool_defs(self, tools: Sequence[ToolDefinition]) -> int:
        return 10 * len(tools)

    def count_system(self, system_prompt: str) -> int:
        return len(system_prompt) // 4 + 3


TOKENIZER = QuarterTokenizer()
_output = st.text(alphabet="ab\n", max_size=60)


@st.composite
def sessions(draw: st.DrawFn) -> tuple[Session, SessionCounts]:
    """Valid role sequences: turns of a user message, tool steps (calls then results), a reply."""
    messages: list[Message] = []
    if draw(st.booleans()):
        messages.append(Message(role="assistant", content="prelude"))
    for _ in range(draw(st.integers(0, 6))):
        messages.append(Message(role="user", content="q"))
        for _ in range(draw(st.integers(0, 2))):
            ids = [f"c{len(messages)}_{k}" for k in range(draw(st.integers(1, 3)))]
            calls = tuple(ToolCall(id=i, name="bash") for i in ids)
            messages.append(Message(role="assistant", tool_calls=calls))
            for i in ids:
                content = draw(_output)
                messages.append(
                    Message(role="tool", tool_call_id=i, tool_name="bash", content=content)
                )
        if draw(st.booleans()):
            messages.append(Message(role="assistant", content="a"))
    tokens = draw(st.lists(st.integers(0, 400), min_size=len(messages), max_size=len(messages)))
    counts = SessionCounts(
        TokenizerInfo("quarter", "quarter"),
        tokens,
        system_tokens=draw(st.integers(0, 300)),
        tool_def_tokens=draw(st.integers(0, 300)),
        summary_tokens=draw(st.integers(0, 200)),
    )
    return Session(messages=tuple(messages)), counts


# Knobs with no relation to one another, so any order of changes stays valid.
FREE_KNOBS: dict[str, st.SearchStrategy[Any]] = {
    "tail_mode": st.sampled_from(list(TailMode)),
    "tail_ratio": st.floats(0, 1),
    "tail_min_turns": st.integers(0, 3),
    "tail_items": st.integers(1, 20),
    "prune_mode": st.sampled_from(list(PruneMode)),
    "prune_protected_turns": st.integers(0, 3),
    "prune_threshold": st.integers(0, 3),
    "prune_protect_tokens": st.integers(0, 1_500),
    "prune_minimum_tokens": st.integers(0, 500),
    "truncate_enabled": st.booleans(),
    "truncate_max_lines": st.integers(1, 10),
    "truncate_max_bytes": st.integers(1, 60),
    "compact_trigger_ratio": st.floats(0.01, 1),
    "reserve_system_and_tools": st.booleans(),
    "compaction_style": st.sampled_from(list(CompactionStyle)),
}


@st.composite
def policies(draw: st.DrawFn) -> Policy:
    window = draw(st.integers(256, 6_000))
    low = draw(st.integers(0, 3_000))
    values = {name: draw(strategy) for name, strategy in FREE_KNOBS.items()}
    values |= {
        "context_window": window,
        "max_tokens": draw(st.integers(0, window - 1)),
        "tail_min_tokens": low,
        "tail_max_tokens": draw(st.integers(low, 6_000)),
    }
    return make_policy(values)


def _plan(case: tuple[Session, SessionCounts], policy: Policy) -> Plan:
    session, counts = case
    return build_plan(session, policy, counts, TOKENIZER)


@settings(max_examples=500)
@given(case=sessions(), policy=policies())
def test_zones_are_contiguous_and_add_up(
    case: tuple[Session, SessionCounts], policy: Policy
) -> None:
    plan = _plan(case, policy)
    n = len(case[0])
    assert 0 <= plan.kept_start <= plan.tail.start <= n
    zones = [plan.zone(i).value for i in range(n)]
    assert zones == sorted(zones, key=["dropped", "kept", "tail"].index)
    t = plan.totals
    assert t.dropped + t.kept + t.tail == t.history == sum(plan.effective_tokens)
    assert plan.tail.tokens == sum(plan.effective_tokens[plan.tail.start :])


@settings(max_examples=500)
@given(case=sessions(), policy=policies())
def test_no_tool_call_is_cut_from_its_results(
    case: tuple[Session, SessionCounts], policy: Policy
) -> None:
    plan = _plan(case, policy)
    boundaries = [plan.kept_start] if plan.kept_start < plan.tail.start else []
    if policy.tail_mode is TailMode.TOKENS:
        boundaries.append(plan.tail.start)  # items mode keeps PicoClaw's pair-blind 32-item cut
    for result, call in case[0].call_of_result.items():
        for boundary in boundaries:
            assert not call < boundary <= result


@settings(max_examples=500)
@given(case=sessions(), policy=policies())
def test_tail_stays_in_budget_unless_a_floor_rule_says_otherwise(
    case: tuple[Session, SessionCounts], policy: Policy
) -> None:
    tail = _plan(case, policy).tail
    if tail.reason not in (TailReason.MIN_TURNS, TailReason.ACTIVE_TURN):
        assert tail.tokens <= tail.budget
        assert not tail.over_budget


@settings(max_examples=500)
@given(case=sessions(), policy=policies())
def test_kept_history_fits_what_the_tail_left(
    case: tuple[Session, SessionCounts], policy: Policy
) -> None:
    plan = _plan(case, policy)
    assert plan.totals.kept <= max(0, history_budget(policy, case[1]) - plan.tail.tokens)


@settings(max_examples=500)
@given(case=sessions(), policy=policies())
def test_pruning_never_touches_the_tail_and_conserves_tokens(
    case: tuple[Session, SessionCounts], policy: Policy
) -> None:
    plan = _plan(case, policy)
    assert all(i < plan.tail.start for i in plan.pruned)
    assert all(case[0].messages[i].role == "tool" for i in plan.pruned)
    freed = plan.tokens_freed_by_pruning
    assert all(p.tokens_freed > 0 for p in plan.pruned.values())
    truncated = list(plan.message_tokens)
    for i, t in plan.truncated.items():
        truncated[i] = t.tokens_after
    assert sum(truncated) == sum(plan.effective_tokens) + freed
    for i, p in plan.pruned.items():
        assert p.tokens_before == truncated[i]
        assert plan.effective_tokens[i] == p.tokens_after


@settings(max_examples=500)
@given(case=sessions(), policy=policies())
def test_compaction_need_matches_the_strict_trigger(
    case: tuple[Session, SessionCounts], policy: Policy
) -> None:
    plan = _plan(case, policy)
    trigger = int(policy.compact_trigger_ratio * policy.context_window)
    assert plan.compaction.needed is (plan.totals.requested > trigger)
    if plan.overflow is not None:
        assert plan.compaction.needed
        assert plan.overflow.requested_tokens > policy.context_window
        assert plan.overflow.reason


@settings(max_examples=500)
@given(
    case=sessions(),
    policy=policies(),
    changes=st.fixed_dictionaries({}, optional=FREE_KNOBS),
    data=st.data(),
)
def test_plan_is_the_same_whatever_order_knobs_change_in(
    case: tuple[Session, SessionCounts],
    policy: Policy,
    changes: dict[str, Any],
    data: st.DataObject,
) -> None:
    items = list(changes.items())
    first, second = policy, policy
    for name, value in items:
        first = first.with_changes(**{name: value})
    for name, value in data.draw(st.permutations(items)):
        second = second.with_changes(**{name: value})
    assert _plan(case, first) == _plan(case, second)
