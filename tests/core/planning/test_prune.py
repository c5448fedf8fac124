"""Pruning: the plan's sketch with its §1.6 vector and defects, beside the fixed rules."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxtui.core.planning.planner import build_plan
from ctxtui.core.planning.prune import (
    STUB,
    StubCost,
    ToolOutputs,
    index_tool_outputs,
    prune_by_tokens,
    prune_by_turns,
)
from ctxtui.core.planning.tail import min_turns_start
from ctxtui.core.policies.policy import preset
from ctxtui.core.session.models import ContentPart, Message, PartKind, Session, ToolCall
from ctxtui.core.tokens.counts import SessionCounts
from ctxtui.core.tokens.tokenizers import TokenizerInfo, resolve
from tests.core.fakes import CharTokenizer


def prune_tool_outputs_as_sketched(
    messages: Sequence[Message], protected_turns: int, prune_threshold: int
) -> Sequence[Message]:
    """The plan's ``PruneToolOutputs`` as sketched (docs/plan.md), defects X24–X28 included,
    kept here to show each defect beside the planner's fix."""
    if not messages or protected_turns <= 0:
        return messages
    out = list(messages)
    protected_end = max(0, len(out) - protected_turns)  # messages, not turns (X24)
    pruned = 0
    for i in range(protected_end - 1, -1, -1):
        if out[i].role == "tool":
            out[i] = out[i].model_copy(update={"content": STUB})  # whatever its size (X25)
            pruned += 1  # already-stubbed outputs count again (X27)
    if pruned < prune_threshold:
        return messages
    return out


def _pico(message: Message) -> int:
    """PicoClaw's estimator shape: (content + call id + 12) × 2 / 5."""
    return (len(message.content) + len(message.tool_call_id or "") + 12) * 2 // 5


def _tool(call: str, content: str = "output") -> Message:
    return Message(role="tool", tool_call_id=call, content=content)


def _call(*ids: str) -> Message:
    return Message(role="assistant", tool_calls=tuple(ToolCall(id=i, name="t") for i in ids))


def _index(messages: list[Message], tokens: list[int], stub: int = 10) -> ToolOutputs:
    return index_tool_outputs(Session(messages=tuple(messages)), tokens, lambda _i: stub)


def test_stub_text_is_the_plans_byte_for_byte() -> None:
    assert len(STUB) == 45
    assert len(STUB.encode()) == 47
    assert "\u2014" in STUB


def test_sketch_vector_stubs_the_second_message_only() -> None:
    messages = [
        Message(role="user", content="hello"),
        Message(role="tool", content="very long output..."),
        Message(role="user", content="again"),
        Message(role="tool", content="another long output..."),
    ]
    out = prune_tool_outputs_as_sketched(messages, 2, 1)
    assert [m.content for m in out] == ["hello", STUB, "again", "another long output..."]
    assert messages[1].content == "very long output..."  # the input is not modified


def test_x24_sketch_counts_messages_so_the_current_turn_is_stubbed() -> None:
    turn = [Message(role="user"), _call("a", "b", "c"), _tool("a"), _tool("b"), _tool("c")]
    turn.append(Message(role="assistant"))
    sketched = prune_tool_outputs_as_sketched(turn, 2, 1)
    assert [m.content for m in sketched[2:4]] == [STUB, STUB]
    # Fixed: two *turns* are protected, so nothing of the one and only turn is pruned.
    session = Session(messages=tuple(turn))
    boundary = min_turns_start(session, 2)
    assert len(prune_by_turns(_index(turn, [5, 5, 50, 50, 50, 5]), boundary, 1)) == 0


def test_x25_sketch_makes_a_small_output_bigger_the_fix_leaves_it() -> None:
    messages = [Message(role="user"), _call("call_1"), _tool("call_1", "ok"), Message(role="user")]
    before = _pico(messages[2])
    after = _pico(prune_tool_outputs_as_sketched(messages, 1, 1)[2])
    assert (before, after) == (8, 25)
    tokens = [_pico(m) for m in messages]
    outputs = index_tool_outputs(
        Session(messages=tuple(messages)),
        tokens,
        lambda i: _pico(messages[i].model_copy(update={"content": STUB})),
    )
    assert outputs.prunable == []
    assert len(prune_by_turns(outputs, len(messages), 0)) == 0


def test_x27_already_stubbed_outputs_are_not_counted_again() -> None:
    messages = [Message(role="user"), _call("a"), _tool("a", STUB), Message(role="user")]
    assert prune_tool_outputs_as_sketched(messages, 1, 1) is not messages  # counted again
    pruned = prune_by_turns(_index(messages, [5, 5, 19, 5]), len(messages), 1)
    assert len(pruned) == 0


def test_x28_zero_protected_turns_protects_nothing() -> None:
    messages = [Message(role="user"), _call("a"), _tool("a"), Message(role="assistant")]
    assert prune_tool_outputs_as_sketched(messages, 0, 1) is messages  # sketch: no pruning
    session = Session(messages=tuple(messages))
    boundary = min_turns_start(session, 0)
    assert boundary == len(messages)
    assert list(prune_by_turns(_index(messages, [5, 5, 100, 5]), boundary, 1)) == [2]


def test_threshold_is_a_minimum_number_of_stubbed_outputs() -> None:
    messages = [Message(role="user"), _call("a", "b"), _tool("a"), _tool("b"), Message(role="user")]
    outputs = _index(messages, [5, 5, 100, 100, 5])
    assert len(prune_by_turns(outputs, 4, 3)) == 0
    run = prune_by_turns(outputs, 4, 2)
    assert sorted(run) == [2, 3]
    assert run.tokens_freed == 2 * (100 - 10)


def test_prune_conserves_tokens() -> None:
    messages = [Message(role="user"), _call("a", "b"), _tool("a"), _tool("b"), Message(role="user")]
    tokens = [5, 5, 70, 130, 5]
    run = prune_by_turns(_index(messages, tokens, stub=9), 4, 1)
    before = sum(p.tokens_before for p in run.values())
    after = sum(p.tokens_after for p in run.values())
    assert before == after + run.tokens_freed
    assert before == 200


def _many_outputs(count: int) -> list[Message]:
    ids = [f"c{i}" for i in range(count)]
    return [Message(role="user"), _call(*ids), *(_tool(i) for i in ids), Message(role="user")]


def test_tokens_mode_protects_the_newest_outputs() -> None:
    messages = _many_outputs(4)  # outputs at 2..5, 100 tokens each
    tokens = [5, 5, 100, 100, 100, 100, 5]
    run = prune_by_tokens(_index(messages, tokens), 6, 250, 0)
    # Newest first: 100, 200 protected; 300 > 250, so index 3 and older are pruned.
    assert sorted(run) == [2, 3]


def test_tokens_mode_needs_the_minimum_freed() -> None:
    messages = _many_outputs(4)
    outputs = _index(messages, [5, 5, 100, 100, 100, 100, 5])
    # OpenCode prunes only when the outputs past the protection measure more than
    # PRUNE_MINIMUM (compaction.ts: pruned += estimate): two of 100 are 200, not what the
    # stubs free (180)
    assert len(prune_by_tokens(outputs, 6, 250, 200)) == 0
    assert len(prune_by_tokens(outputs, 6, 250, 199)) == 2


def test_tokens_mode_stops_at_an_earlier_prune() -> None:
    messages = _many_outputs(4)
    messages[3] = _tool("c1", STUB)
    outputs = _index(messages, [5, 5, 100, 19, 100, 100, 5])
    run = prune_by_tokens(outputs, 6, 150, 0)
    assert sorted(run) == [4]  # index 2 lies behind the stub at index 3


def test_nothing_at_or_after_the_boundary_is_pruned() -> None:
    messages = _many_outputs(4)
    run = prune_by_turns(_index(messages, [5, 5, 100, 100, 100, 100, 5]), 4, 1)
    assert sorted(run) == [2, 3]
    assert 4 not in run
    assert run.freed_before(3) == 90


_ids = st.text(alphabet=st.sampled_from("abc_019é€😀"), max_size=30)


@pytest.mark.parametrize("spec", ["plan", "picoclaw", "tiktoken:cl100k_base"])
@settings(max_examples=200)
@given(
    call_id=_ids,
    other_id=_ids,
    tool_name=st.sampled_from([None, "bash", "read_file"]),
    name=st.sampled_from([None, "", "worker"]),
    reasoning=st.sampled_from(["", "thinking"]),
    content=st.text(max_size=80),
    images=st.integers(0, 2),
)
def test_stub_cost_per_shape_is_the_count_of_the_stubbed_message(
    spec: str,
    call_id: str,
    other_id: str,
    tool_name: str | None,
    name: str | None,
    reasoning: str,
    content: str,
    images: int,
) -> None:
    """The shared count equals counting each stubbed result, for every ctxtui tokenizer."""
    tokenizer, _ = resolve(spec)
    cost = StubCost(tokenizer.count_message)
    parts = (
        ContentPart(kind=PartKind.TEXT, text=content),
        *(ContentPart(kind=PartKind.IMAGE, byte_size=9) for _ in range(images)),
    )

    def result(i: str) -> Message:
        return Message(
            role="tool",
            content=content,
            parts=parts,
            tool_call_id=i or None,
            tool_name=tool_name,
            name=name,
            reasoning=reasoning,
        )

    for i in (call_id, other_id):  # the second may reuse the first one's count
        stubbed = result(i).model_copy(
            update={"content": STUB, "parts": tuple(p for p in parts if p.kind is PartKind.IMAGE)}
        )
        assert cost(result(i)) == tokenizer.count_message(stubbed)


def test_stub_cost_counts_once_per_shape() -> None:
    calls: list[Message] = []

    def count(message: Message) -> int:
        calls.append(message)
        return len(message.content)

    cost = StubCost(count)
    for k in range(100):
        cost(_tool(f"call_{k:03d}", "x" * k))
    cost(_tool("call_longer_id"))
    assert len(calls) == 2
    assert all(m.content == STUB for m in calls)


def test_x28_the_caller_learns_what_was_pruned_and_what_it_freed() -> None:
    messages = [Message(role="user"), _call("a", "b"), _tool("a"), _tool("b"), Message(role="user")]
    run = prune_by_turns(_index(messages, [5, 5, 100, 60, 5]), 4, 1)
    assert (len(run), run.tokens_freed) == (2, 90 + 50)
    assert {i: (p.tokens_before, p.tokens_after) for i, p in run.items()} == {
        2: (100, 10),
        3: (60, 10),
    }


def test_x29_pruning_runs_in_every_plan_and_the_sketchs_orphans_are_named() -> None:
    # The sketch's own test input: tool messages with no call and no tool_call_id.
    messages = (
        Message(role="user", content="hello"),
        Message(role="tool", content="very long output..." * 20),
        Message(role="user", content="again"),
        Message(role="tool", content="another long output..." * 20),
    )
    session = Session(messages=messages)
    tokens = [len(m.content) + 1 for m in messages]
    policy = preset(
        "plan",
        context_window=1_000,
        max_tokens=200,
        tail_min_tokens=0,
        tail_max_tokens=100,
        tail_min_turns=1,
        prune_protected_turns=1,
    )
    counts = SessionCounts(TokenizerInfo("chars", "chars"), tokens)
    plan = build_plan(session, policy, counts, CharTokenizer())
    assert plan.tail.start == 2  # never on the orphan result at 1 or 3
    assert list(plan.pruned) == [1]
    assert plan.pruned[1].tokens_after == len(STUB) + 1
    assert any("2 tool results have no matching call" in w for w in plan.warnings)
