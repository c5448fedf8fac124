"""PicoClaw as shipped: the assembler, adapter and proactive-check vectors of §2.4, §2.5, §2.8."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pytest

from ctxtui.core.planning.picoclaw_legacy import force_compression_range
from ctxtui.core.planning.plan import Plan, TailReason
from ctxtui.core.planning.planner import build_plan
from ctxtui.core.planning.tail import effective_budget, find_safe_boundary
from ctxtui.core.policies.policy import preset
from ctxtui.core.session.models import Message, Session, ToolCall, ToolDefinition
from ctxtui.core.tokens.counts import SessionCounts
from ctxtui.core.tokens.tokenizers import TokenizerInfo


class PicoEstimator:
    """PicoClaw's estimator shape (§2.1): (chars + 12 per message) × 2 / 5."""

    name = "fake-picoclaw"

    def count_text(self, text: str) -> int:
        return len(text) * 2 // 5

    def count_message(self, message: Message) -> int:
        chars = len(message.content) + len(message.tool_call_id or "") + 12
        return chars * 2 // 5

    def count_tool_defs(self, tools: Sequence[ToolDefinition]) -> int:
        return sum((len(t.name) + len(t.description) + 20) * 2 // 5 for t in tools)

    def count_system(self, system_prompt: str) -> int:
        return (len(system_prompt) + 12) * 2 // 5


def _plan(messages: list[Message], tokens: list[int], budget: int) -> Plan:
    """Plan with PicoClaw's preset and an assembly budget of exactly ``budget`` tokens."""
    session = Session(messages=tuple(messages))
    counts = SessionCounts(TokenizerInfo("fake", "fake"), tokens)
    policy = preset("picoclaw-seahorse", context_window=budget + 256, max_tokens=256)
    return build_plan(session, policy, counts, PicoEstimator())


def _prompt(plan: Plan) -> range:
    return range(plan.kept_start, len(plan))


def test_forty_messages_in_a_budget_of_200_keep_exactly_20() -> None:
    messages = [Message(role="user" if i % 2 == 0 else "assistant") for i in range(40)]
    plan = _plan(messages, [10] * 40, 200)
    assert plan.tail.start == 20
    assert _prompt(plan) == range(20, 40)
    assert plan.totals.kept + plan.totals.tail <= 200


def test_active_tool_turn_is_kept_over_budget() -> None:
    call = ToolCall(id="c1", name="read")
    messages = [
        Message(role="assistant"),
        Message(role="user"),
        Message(role="assistant", tool_calls=(call,)),
        Message(role="tool", tool_call_id="c1"),
        Message(role="assistant"),
    ]
    plan = _plan(messages, [20, 5, 5, 200, 5], 210)
    assert plan.tail.start == 1
    assert plan.tail.tokens == 215
    assert plan.tail.over_budget
    assert plan.tail.reason is TailReason.ACTIVE_TURN
    assert _prompt(plan) == range(1, 5)


def test_five_small_messages_all_fit() -> None:
    messages = [Message(role="user" if i % 2 == 0 else "assistant") for i in range(5)]
    plan = _plan(messages, [10] * 5, 100)
    assert plan.tail.start == 0
    assert plan.kept_start == 0
    assert plan.totals.tail == 50


def test_trim_drops_a_leading_tool_call_for_a_provider_safe_start() -> None:
    call = ToolCall(id="c1", name="read")
    messages = [
        Message(role="user"),
        Message(role="assistant", tool_calls=(call,)),
        Message(role="tool", tool_call_id="c1"),
        Message(role="assistant"),
        Message(role="user"),
        Message(role="assistant"),
    ]
    # 35 fits from the call on; the call and its result go, so the tail starts at index 3.
    plan = _plan(messages, [10, 5, 10, 5, 10, 5], 35)
    assert plan.tail.start == 3
    assert plan.tail.reason is TailReason.TOOL_PAIR


def test_adapter_budget_5000_with_2000_reserved_is_3000() -> None:
    assert effective_budget(5_000, 2_000) == 3_000


# The PicoClaw test's small message set: a 1,000-character system prompt, q1, a1, hello.
_SMALL_SET = (
    PicoEstimator().count_system("x" * 1_000)
    + sum(PicoEstimator().count_message(Message(role="user", content=c)) for c in ("q1", "a1"))
    + PicoEstimator().count_message(Message(role="user", content="hello"))
    + PicoEstimator().count_tool_defs([ToolDefinition(name="test_tool", description="A test tool")])
)


@pytest.mark.parametrize(
    ("window", "max_tokens", "over"),
    [
        (100_000, 4_096, False),
        (2_000, 1_800, True),
        (131_072, 32_768, False),
    ],  # the vectors a policy accepts: a window under 256 or below max_tokens is refused
)
def test_is_over_context_budget_vectors(window: int, max_tokens: int, over: bool) -> None:
    policy = preset("picoclaw", context_window=window, max_tokens=max_tokens)
    assert policy.compacts(_SMALL_SET) is over


def test_proactive_check_is_strict() -> None:
    policy = preset("picoclaw", context_window=1_000, max_tokens=100)
    assert not policy.compacts(900)
    assert policy.compacts(901)


def _turns(n: int) -> Session:
    roles = ["user", "assistant"] * n
    return Session(messages=tuple(Message(role=r) for r in roles))  # type: ignore[arg-type]


def test_force_compression_drops_the_oldest_half_of_turns() -> None:
    session = _turns(5)  # turns start at 0, 2, 4, 6, 8
    mid = session.turn_starts[len(session.turn_starts) // 2]
    assert force_compression_range(session) == (0, mid - 1)


def test_force_compression_leaves_two_messages_alone() -> None:
    assert force_compression_range(_turns(1)) is None


def test_safe_boundary_of_a_single_turn_is_zero() -> None:
    session = Session(messages=(Message(role="user"), Message(role="assistant")))
    assert find_safe_boundary(session, 1) == 0


def test_safe_boundary_snaps_back_to_a_turn_start() -> None:
    session = _turns(3)  # turn starts 0, 2, 4
    assert find_safe_boundary(session, 3) == 2
    assert find_safe_boundary(session, 1) == 2  # the start ≤ 1 is 0, so the next one


def _agent_turns(count: int) -> list[Message]:
    """``count`` messages of [user, tool call, tool result, answer] turns."""
    messages: list[Message] = []
    while len(messages) < count:
        k = len(messages)
        call = ToolCall(id=f"c{k}", name="read")
        messages += [
            Message(role="user"),
            Message(role="assistant", tool_calls=(call,)),
            Message(role="tool", tool_call_id=f"c{k}"),
            Message(role="assistant"),
        ]
    return messages[:count]


@pytest.mark.parametrize("count", [40, 41, 42, 43])
def test_a_tail_that_fits_stays_where_the_count_put_it(count: int) -> None:
    # main does not move a 32-item tail that fits, even onto a result (42) or a call (41).
    plan = _plan(_agent_turns(count), [10] * count, 10_000)
    assert plan.tail.start == count - 32
    assert plan.tail.reason is TailReason.ITEMS
    assert plan.kept_start == 0  # the evictable rest all fits, call and result together
    # A last call still waiting for its result goes: its block holds none (the second pass).
    assert plan.excluded == ({count - 1} if count % 4 == 2 else set())
    assert not plan.unpaired


def test_one_long_agent_turn_keeps_its_last_32_items() -> None:
    call_steps: list[Message] = []
    for k in range(20):
        call = ToolCall(id=f"c{k}", name="read")
        call_steps += [
            Message(role="assistant", tool_calls=(call,)),
            Message(role="tool", tool_call_id=f"c{k}"),
        ]
    messages = [Message(role="user"), *call_steps]
    plan = _plan(messages, [10] * len(messages), 10_000)
    assert plan.tail.start == len(messages) - 32
    assert plan.kept_start == 0


def test_a_trim_past_an_interjection_leaves_the_result_to_the_sanitizer() -> None:
    call = ToolCall(id="c1", name="read")
    messages = [
        Message(role="user"),
        Message(role="assistant"),
        Message(role="assistant", tool_calls=(call,)),
        Message(role="user"),  # the user types while the tool runs
        Message(role="tool", tool_call_id="c1"),
        Message(role="assistant"),
    ]
    # The trim stops at the user message (30 of 35 tokens): main's provider-safe start looks
    # at roles only, so the result at 4 leads its turn without its call; the request
    # sanitizer then drops it (the nearest earlier message is a user message).
    plan = _plan(messages, [10] * 6, 35)
    assert (plan.tail.start, plan.tail.reason) == (3, TailReason.BUDGET)
    assert plan.excluded == frozenset({4})
    assert plan.zone(4).value == "dropped"


def plan_pairs(messages: list[Message]) -> Mapping[int, int]:
    return Session(messages=tuple(messages)).call_of_result


def test_x6_items_mode_keeps_trim_fresh_tail_to_safe_budget() -> None:
    # The sketch's Replace block deletes the trim; the picoclaw preset still keeps the active
    # turn over budget and drops a leading tool call and its result.
    call = ToolCall(id="c1", name="read")
    active = [
        Message(role="assistant"),
        Message(role="user"),
        Message(role="assistant", tool_calls=(call,)),
        Message(role="tool", tool_call_id="c1"),
        Message(role="assistant"),
    ]
    over = _plan(active, [20, 5, 5, 200, 5], 210)
    assert (over.tail.start, over.tail.reason, over.tail.over_budget) == (
        1,
        TailReason.ACTIVE_TURN,
        True,
    )
    leading = [Message(role="user"), *active[2:], Message(role="user"), Message(role="assistant")]
    trimmed = _plan(leading, [10, 5, 10, 5, 10, 5], 35)
    assert trimmed.tail.start == 3


def test_a_trimmed_tail_leaves_a_hole_and_the_sanitizer_drops_the_unanswered_call() -> None:
    call = ToolCall(id="c1", name="read")
    messages = [
        Message(role="user"),
        Message(role="assistant"),
        Message(role="user"),
        Message(role="assistant", tool_calls=(call,)),
        Message(role="tool", tool_call_id="c1"),  # the first of the last 32 items
        *(Message(role="assistant" if k % 2 == 0 else "user") for k in range(31)),
    ]
    tokens = [10, 10, 10, 10, 100] + [10] * 31
    plan = _plan(messages, tokens, 330)
    # 410 tokens of tail are over 330: the trim starts it at #5 (310); 20 tokens remain, and
    # the fill takes #2-#3 from before the 32 items — never #4, which the trim took off.
    assert (plan.tail.start, plan.tail.reason) == (5, TailReason.BUDGET)
    assert plan.kept_start == 2
    # The call at #3 has no result in the block after it, so the second pass drops it too.
    assert plan.excluded == frozenset({3, 4})
    assert [plan.zone(i).value for i in (1, 2, 3, 4, 5)] == [
        "dropped",
        "kept",
        "dropped",
        "dropped",
        "tail",
    ]
    assert plan.unpaired == {}
    assert any("sanitizer drops 1 message(s)" in w and "(#3)" in w for w in plan.warnings)
    assert plan.totals.kept + plan.totals.tail == 320
