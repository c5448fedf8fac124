"""Fresh tail: the plan's budget table, and defects X1–X8 shown fixed on their concrete cases."""

from __future__ import annotations

from itertools import accumulate

import pytest

from ctxtui.core.planning.plan import FreshTail, TailReason
from ctxtui.core.planning.tail import (
    Boundaries,
    calculate_fresh_tail_budget,
    effective_budget,
    fresh_tail_by_tokens,
    list_prefix,
)
from ctxtui.core.policies.policy import Policy, preset
from ctxtui.core.session.models import Message, Session, ToolCall


def _session(roles: list[str]) -> Session:
    """``call`` is an assistant making one tool call; ``tool`` answers the latest call.

    Whatever comes between a ``call`` and its ``tool`` (a user interjection) stays between
    them; ``orphan`` is a tool result whose call is not in the session.
    """
    messages: list[Message] = []
    call = ""
    for i, role in enumerate(roles):
        if role == "call":
            call = f"c{i}"
            messages.append(Message(role="assistant", tool_calls=(ToolCall(id=call, name="t"),)))
        elif role == "tool":
            messages.append(Message(role="tool", tool_call_id=call, content="out"))
        elif role == "orphan":
            messages.append(Message(role="tool", tool_call_id="gone", content="out"))
        else:
            messages.append(Message(role=role))  # type: ignore[arg-type]
    return Session(messages=tuple(messages))


def _tail(roles: list[str], tokens: list[int], budget: int, policy: Policy) -> FreshTail:
    prefix = [0, *accumulate(tokens)]
    return fresh_tail_by_tokens(_session(roles), list_prefix(prefix), budget, policy)


PLAN = preset("plan", tail_min_turns=0)


@pytest.mark.parametrize(
    ("budget", "expected"),
    [(4_000, 2_000), (8_000, 2_000), (10_000, 2_500), (20_000, 5_000), (32_000, 8_000)],
)
def test_plan_budget_table(budget: int, expected: int) -> None:
    assert calculate_fresh_tail_budget(budget, preset("plan")) == expected


def test_picoclaw_defaults_give_an_8000_token_tail() -> None:
    budget = effective_budget(131_072, 32_768)
    assert budget == 98_304
    assert calculate_fresh_tail_budget(budget, preset("plan")) == 8_000


def test_x5_floor_never_exceeds_the_budget() -> None:
    assert calculate_fresh_tail_budget(200, preset("plan")) == 200


def test_adapter_budget_halves_the_window_when_the_reserve_eats_it() -> None:
    assert effective_budget(5_000, 2_000) == 3_000
    assert effective_budget(5_000, 5_000) == 2_500


def test_x1_tail_is_contiguous_and_stops_at_the_first_miss() -> None:
    # The sketch gives {m1, m2, m3, m5}; the fixed tail is only m5.
    roles = ["user", "assistant", "user", "assistant", "user"]
    tail = _tail(roles, [100, 900, 300, 1_800, 500], 2_000, PLAN)
    assert tail.start == 4
    assert tail.tokens == 500
    assert tail.reason is TailReason.BUDGET


def test_x2_active_turn_over_budget_is_kept_whole() -> None:
    tail = _tail(["user", "call", "tool"], [100, 100, 9_000], 2_000, PLAN)
    assert tail.start == 0
    assert tail.reason is TailReason.ACTIVE_TURN
    assert tail.over_budget
    assert tail.tokens == 9_200


def test_x2_single_huge_message_is_never_empty_tail() -> None:
    tail = _tail(["user"], [9_000], 2_000, PLAN)
    assert (tail.start, tail.tokens, tail.over_budget) == (0, 9_000, True)


def test_x3_minimum_turns_are_held_over_budget() -> None:
    roles = ["user", "assistant"] * 4
    policy = preset("plan", tail_min_turns=2)
    tail = _tail(roles, [750] * 8, 2_000, policy)
    assert tail.start == 4
    assert tail.turns == 2
    assert tail.reason is TailReason.MIN_TURNS
    assert tail.over_budget


def test_x3_minimum_turns_do_not_move_a_tail_that_already_holds_them() -> None:
    roles = ["user", "assistant"] * 4
    tail = _tail(roles, [10] * 8, 35, preset("plan", tail_min_turns=1))
    assert tail.start == 5
    assert tail.reason is TailReason.BUDGET


def test_x4_boundary_inside_a_tool_pair_moves_past_the_results() -> None:
    roles = ["user", "call", "tool", "tool", "assistant", "user", "assistant"]
    # Budget 35 reaches back to the second tool result (index 3): its call is outside.
    tail = _tail(roles, [10, 10, 10, 10, 5, 10, 10], 35, PLAN)
    assert tail.start == 4
    assert tail.reason is TailReason.TOOL_PAIR
    assert tail.tokens <= 35


def test_whole_session_fits() -> None:
    tail = _tail(["user", "assistant"], [10, 10], 100, PLAN)
    assert (tail.start, tail.reason, tail.tokens) == (0, TailReason.WHOLE_SESSION, 20)


def test_empty_session() -> None:
    tail = _tail([], [], 100, PLAN)
    assert (tail.start, tail.reason) == (0, TailReason.EMPTY)


def test_session_without_user_keeps_the_newest_call_and_its_result() -> None:
    tail = _tail(["assistant", "call", "tool"], [10, 10, 500], 100, PLAN)
    assert tail.start == 1
    assert tail.reason is TailReason.ACTIVE_TURN


def test_x4_a_result_after_an_interjection_stays_with_its_call() -> None:
    # The call (1) is answered (3) after a user message (2); the budget reaches back to 2.
    roles = ["user", "call", "user", "tool", "assistant", "user", "assistant"]
    tail = _tail(roles, [10] * 7, 50, PLAN)
    assert tail.start == 4
    assert tail.reason is TailReason.TOOL_PAIR


def test_x4_the_active_turn_grows_back_to_a_call_answered_inside_it() -> None:
    # The active turn starts at 2, but its result (3) answers the call at 1.
    roles = ["user", "call", "user", "tool", "assistant"]
    tail = _tail(roles, [10] * 5, 30, PLAN)
    assert tail.start == 1
    assert tail.reason is TailReason.ACTIVE_TURN
    assert (tail.tokens, tail.over_budget) == (40, True)


def test_x4_minimum_turns_grow_back_to_a_call_answered_inside_them() -> None:
    roles = ["user", "call", "user", "tool", "assistant", "user", "assistant"]
    tail = _tail(roles, [10] * 7, 20, preset("plan", tail_min_turns=2))
    assert tail.start == 1
    assert tail.reason is TailReason.MIN_TURNS


def test_x4_an_orphan_result_never_starts_the_tail() -> None:
    roles = ["user", "assistant", "orphan", "assistant", "user", "assistant"]
    tail = _tail(roles, [10] * 6, 40, PLAN)
    assert tail.start == 3
    assert tail.reason is TailReason.TOOL_PAIR


def test_x4_parallel_results_answered_out_of_order_stay_together() -> None:
    calls = (ToolCall(id="a", name="t"), ToolCall(id="b", name="t"))
    session = Session(
        messages=(
            Message(role="user"),
            Message(role="assistant", tool_calls=calls),
            Message(role="tool", tool_call_id="b"),
            Message(role="assistant", content="while waiting"),
            Message(role="tool", tool_call_id="a"),
            Message(role="assistant"),
            Message(role="user"),
            Message(role="assistant"),
        )
    )
    bounds = Boundaries.of(session)
    assert [b for b in range(9) if bounds.pair[b]] == [0, 1, 5, 6, 7, 8]
    prefix = [0, *accumulate([10] * 8)]
    tail = fresh_tail_by_tokens(session, list_prefix(prefix), 50, PLAN, bounds)
    assert tail.start == 5  # 3 would fit, but result "a" at 4 belongs to the call at 1
    assert tail.reason is TailReason.TOOL_PAIR


def test_x5_mains_forty_messages_in_a_budget_of_200_keep_twenty() -> None:
    # PicoClaw's own vector: the 2,000-token floor would keep all 40 (400 tokens).
    roles = ["user", "assistant"] * 20
    tail_budget = calculate_fresh_tail_budget(200, PLAN)
    tail = _tail(roles, [10] * 40, tail_budget, PLAN)
    assert (tail.start, tail.tokens) == (20, 200)


def test_x6_the_plan_keeps_the_active_turn_picoclaw_trims_for() -> None:
    # §2.5's vector: applying the sketch deletes trimFreshTailToSafeBudget and this guarantee.
    roles = ["assistant", "user", "call", "tool", "assistant"]
    tail = _tail(roles, [20, 5, 5, 200, 5], 210, PLAN)
    assert (tail.start, tail.tokens) == (1, 215)
    assert tail.reason is TailReason.ACTIVE_TURN and tail.over_budget


def test_x8_the_walk_stops_at_the_budget_or_the_oldest_message_only() -> None:
    roles = ["user", "assistant"] * 3
    exact = _tail(roles, [10] * 6, 60, PLAN)
    short = _tail(roles, [10] * 6, 59, PLAN)
    assert (exact.start, exact.reason) == (0, TailReason.WHOLE_SESSION)
    assert (short.start, short.reason) == (1, TailReason.BUDGET)
