"""build_plan end to end: truncation, reserves (X42), compaction need, overflow (X9, X12), speed."""

from __future__ import annotations

from collections.abc import Sequence

from ctxtui.core.planning.picoclaw_legacy import force_compression_range
from ctxtui.core.planning.plan import Plan
from ctxtui.core.planning.planner import build_plan
from ctxtui.core.planning.truncation import Saved, planned_path, preview_of, render
from ctxtui.core.policies.modes import CompactionStyle
from ctxtui.core.policies.policy import Policy, preset
from ctxtui.core.policies.reasons import CompactReason
from ctxtui.core.session.models import Message, Session, SessionMeta, ToolCall
from ctxtui.core.tokens.counts import SessionCounts
from ctxtui.core.tokens.tokenizers import TokenizerInfo
from tests.core.fakes import CharTokenizer

TOKENIZER = CharTokenizer()


def _counts(tokens: Sequence[int], system: int = 0, tools: int = 0) -> SessionCounts:
    return SessionCounts(TokenizerInfo("chars", "chars"), tokens, system, tools)


def _chat(turns: int, size: int = 1_000, model: str | None = None) -> Session:
    messages: list[Message] = []
    for _ in range(turns):
        messages += [Message(role="user", content="q"), Message(role="assistant", content="a")]
    return Session(messages=tuple(messages), meta=SessionMeta(model=model))


def _plan(session: Session, policy: Policy, tokens: Sequence[int], **kw: int) -> Plan:
    return build_plan(session, policy, _counts(tokens, **kw), TOKENIZER)


def test_huge_tool_output_is_counted_as_its_preview_and_hint() -> None:
    output = "x\n" * 5_000
    call = ToolCall(id="c1", name="bash")
    messages = (
        Message(role="user", content="run"),
        Message(role="assistant", tool_calls=(call,)),
        Message(role="tool", tool_call_id="c1", tool_name="bash", content=output),
    )
    session = Session(messages=messages)
    policy = preset("plan", truncate_max_lines=100)
    plan = build_plan(session, policy, _counts([4, 1, 10_001]), TOKENIZER)
    truncated = plan.truncated[2]
    shown = render(output, 100, policy.truncate_max_bytes, Saved(planned_path("bash")))
    assert shown.preview == preview_of(output, 100, policy.truncate_max_bytes)  # room to spare
    assert "...100 of 5,000 lines" in shown.text  # the model is told it sees a part (X38)
    expected = len(shown.text) + 1
    assert (truncated.tokens_before, truncated.tokens_after) == (10_001, expected)
    assert truncated.lines == 5_000
    assert plan.effective_tokens[2] == expected
    off_policy = policy.with_changes(truncate_enabled=False)
    off = build_plan(session, off_policy, plan_counts(plan), TOKENIZER)
    assert off.truncated == {}


def plan_counts(plan: Plan) -> SessionCounts:
    return _counts(plan.message_tokens)


def test_x42_reserving_system_and_tools_shrinks_the_history_budget() -> None:
    session = _chat(20)
    tokens = [500] * 40
    base = preset("plan", context_window=20_000, max_tokens=4_000, prune_mode="off")
    reserved = _plan(session, base, tokens, system=3_000, tools=2_000)
    shipped = _plan(
        session,
        base.with_changes(reserve_system_and_tools=False),
        tokens,
        system=3_000,
        tools=2_000,
    )
    assert reserved.totals.kept + reserved.totals.tail <= 16_000 - 5_000
    assert shipped.totals.kept + shipped.totals.tail > 16_000 - 5_000
    assert reserved.kept_start > shipped.kept_start


def test_x5_tail_budget_is_capped_by_the_history_budget_after_the_x42_reserve() -> None:
    # 25 % of 32,000 is 8,000, but a 26,000-token system prompt leaves history only 6,000.
    session = _chat(10)
    policy = preset("plan", context_window=40_000, max_tokens=8_000, prune_mode="off")
    plan = _plan(session, policy, [1_000] * 20, system=26_000)
    assert plan.tail.budget == 6_000
    assert plan.tail.tokens <= 6_000
    assert plan.totals.kept + plan.totals.tail <= 6_000
    unreserved = _plan(
        session, policy.with_changes(reserve_system_and_tools=False), [1_000] * 20, system=26_000
    )
    assert unreserved.tail.budget == 8_000


def test_x7_compaction_replaces_exactly_what_the_tail_does_not_protect() -> None:
    # One tail definition: no message is both unprotected and outside the summarised range.
    session = _chat(10)
    for changes in ({}, {"tail_mode": "items", "tail_items": 5}, {"tail_ratio": 0.5}):
        policy = preset("plan", context_window=4_000, max_tokens=1_000, **changes)
        plan = _plan(session, policy, [500] * 20)
        assert plan.compaction.replaced == (0, plan.tail.start - 1)


def test_compaction_is_needed_strictly_above_the_trigger() -> None:
    session = _chat(2)
    policy = preset("plan", context_window=10_000, max_tokens=2_000)
    at = _plan(session, policy, [2_000] * 4)  # 8,000 + 2,000 = 10,000: not over
    over = _plan(session, policy, [2_000, 2_000, 2_000, 2_001])
    assert not at.compaction.needed
    assert over.compaction.needed
    assert over.compaction.reason is CompactReason.PROACTIVE
    assert over.compaction.trigger_tokens == 8_001  # the smallest prompt that compacts


def test_summarize_replaces_everything_before_the_tail() -> None:
    session = _chat(10)
    policy = preset("plan", context_window=4_000, max_tokens=1_000, tail_min_turns=1)
    plan = _plan(session, policy, [500] * 20)
    assert plan.compaction.needed
    assert plan.compaction.replaced == (0, plan.tail.start - 1)
    assert plan.compaction.tokens_before == 500 * plan.tail.start


def test_drop_oldest_half_replaces_up_to_picoclaws_cut() -> None:
    session = _chat(10)
    policy = preset("picoclaw", context_window=4_000, max_tokens=1_000)
    plan = _plan(session, policy, [500] * 20)
    assert policy.compaction_style is CompactionStyle.DROP_OLDEST_HALF
    assert plan.compaction.replaced == force_compression_range(session)


def test_overflow_reports_the_real_estimate_and_the_part_that_overflows() -> None:
    session = _chat(1, model="m-1")
    policy = preset("plan", context_window=10_000, max_tokens=2_000)
    plan = _plan(session, policy, [9_000, 10])
    assert plan.overflow is not None
    assert plan.overflow.model == "m-1"
    assert plan.overflow.requested_tokens == 9_010 + 2_000
    assert plan.overflow.requested_tokens != plan.overflow.context_window  # X9
    assert "fresh tail" in plan.overflow.reason  # X12: says which part
    assert any("active turn" in w for w in plan.warnings)


def test_overflow_blames_system_and_tools_when_they_alone_overflow() -> None:
    session = _chat(1)
    policy = preset("plan", context_window=10_000, max_tokens=2_000)
    plan = _plan(session, policy, [10, 10], system=5_000, tools=4_000)
    assert plan.overflow is not None
    assert "system prompt" in plan.overflow.reason
    assert plan.overflow.model == "unknown"


def test_no_overflow_when_compaction_is_enough() -> None:
    session = _chat(10)
    policy = preset("plan", context_window=4_000, max_tokens=500, tail_min_turns=1)
    plan = _plan(session, policy, [500] * 20)
    assert plan.compaction.needed
    assert plan.overflow is None


def test_pruning_in_a_plan_leaves_the_tail_alone() -> None:
    messages: list[Message] = []
    for t in range(6):
        call = ToolCall(id=f"c{t}", name="read")
        messages += [
            Message(role="user", content="q"),
            Message(role="assistant", tool_calls=(call,)),
            Message(role="tool", tool_call_id=f"c{t}", content="y" * 900),
        ]
    session = Session(messages=tuple(messages))
    tokens = [TOKENIZER.count_message(m) for m in messages]
    plan = _plan(session, preset("plan", context_window=8_000, max_tokens=2_000), tokens)
    assert plan.pruned
    assert max(plan.pruned) < min(plan.tail.start, session.turn_starts[-2])
    assert plan.totals.history == sum(tokens) - plan.tokens_freed_by_pruning


def test_orphan_results_are_warned_about() -> None:
    messages = (Message(role="user"), Message(role="tool", tool_call_id="gone"))
    plan = _plan(Session(messages=messages), preset("plan"), [1, 1])
    assert any("orphan" in w for w in plan.warnings)


def test_tail_floor_over_budget_is_warned_about() -> None:
    plan = _plan(_chat(1), preset("plan", context_window=1_000, max_tokens=500), [1, 1])
    assert plan.tail.budget == 500
    assert any("the fresh tail's minimum (2,000 tokens)" in w for w in plan.warnings)


def test_empty_session_plans() -> None:
    plan = _plan(Session(), preset("plan"), [])
    assert (plan.kept_start, plan.tail.start, plan.totals.history) == (0, 0, 0)


def test_replanning_100k_messages_moves_the_boundary_with_the_knob() -> None:
    """Re-plans at scale reuse the prepared index; the speed itself is measured in bench/."""
    session = _chat(50_000)
    counts = _counts([37] * 100_000)
    policy = preset("plan").with_changes(tail_min_turns=0, tail_max_tokens=50_000)
    starts = [
        build_plan(session, policy.with_changes(tail_ratio=r), counts, TOKENIZER).tail.start
        for r in (0.1, 0.2, 0.3, 0.4, 0.5)
    ]
    assert starts == sorted(starts, reverse=True) and len(set(starts)) == 5
