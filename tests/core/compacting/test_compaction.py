"""Compaction: replaced ranges, the summary stand-in, token conservation, overflow."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("ctxtui.core.planning.planner")

from ctxtui.core.compacting.compaction import (
    CompactionResult,
    append_emergency_note,
    compact,
)
from ctxtui.core.planning.picoclaw_legacy import force_compression_range
from ctxtui.core.planning.plan import Plan
from ctxtui.core.planning.planner import build_plan
from ctxtui.core.policies.policy import Policy, preset
from ctxtui.core.policies.reasons import CompactReason
from ctxtui.core.session.models import Message, Session, SessionMeta, ToolCall
from ctxtui.core.tokens.counting import count_session
from ctxtui.core.tokens.counts import SessionCounts
from ctxtui.core.tokens.tokenizers import Tokenizer, resolve


def _turns(n: int, size: int = 2_000, summary: str | None = None) -> Session:
    msgs: list[Message] = []
    for k in range(n):
        msgs += [
            Message(role="user", content=f"step {k}: you must keep it fast"),
            Message(
                role="assistant",
                tool_calls=(ToolCall(id=f"c{k}", name="grep", arguments='{"pattern": "x"}'),),
            ),
            Message(role="tool", tool_call_id=f"c{k}", content="y" * size),
            Message(role="assistant", content=f"Decided on option {k} because it is simple."),
        ]
    return Session(
        messages=tuple(msgs),
        system_prompt="be brief",
        meta=SessionMeta(model="m1", summary=summary),
    )


def _run(
    session: Session, policy: Policy, reason: CompactReason = CompactReason.PROACTIVE
) -> tuple[Plan, SessionCounts, Tokenizer, CompactionResult]:
    tokenizer, info = resolve(policy.tokenizer, chars_per_token=policy.chars_per_token)
    counts = count_session(session, tokenizer, info)
    assert counts is not None
    plan = build_plan(session, policy, counts, tokenizer)
    return plan, counts, tokenizer, compact(session, plan, reason, tokenizer)


def _check_conserved(session: Session, policy: Policy) -> bool:
    """Before and after are the request as sent (the plan's figure, pruning applied), the
    after side recounted from scratch; returns whether the exact balance was checked."""
    plan, _, tokenizer, result = _run(session, policy)
    assert result.tokens_before == plan.totals.requested
    after_counts = count_session(result.session, tokenizer, plan.tokenizer)
    assert after_counts is not None
    after = build_plan(result.session, policy, after_counts, tokenizer)
    assert result.tokens_after == after.totals.requested
    if result.replaced is None:
        assert result.tokens_after == result.tokens_before
        return False
    first, last = result.replaced
    assert result.replaced_tokens == sum(plan.effective_tokens[first : last + 1])
    inserted = len(result.session.messages) - (len(session.messages) - (last - first + 1))
    old = [*plan.effective_tokens[:first], *plan.effective_tokens[last + 1 :]]
    new = [*after.effective_tokens[:first], *after.effective_tokens[first + inserted :]]
    if old != new:  # pruning re-decided for a survivor: the balance below does not apply
        return False
    assert result.tokens_before - result.tokens_after == (
        result.replaced_tokens - result.summary_tokens
    )
    return True


def test_report_and_compaction_agree_when_pruning_already_freed_tokens() -> None:
    """Raw counts credited the compaction with the tool output pruning had already removed."""
    session = _turns(12)
    policy = preset("plan", context_window=20_000, max_tokens=2_000)
    plan, counts, _, result = _run(session, policy)
    assert plan.tokens_freed_by_pruning > 0
    assert result.replaced is not None
    first, last = result.replaced
    raw = sum(counts.message_tokens[first : last + 1])
    assert result.replaced_tokens < raw  # the pruned stubs, not the original outputs
    assert (
        result.tokens_before
        == plan.totals.requested
        < plan.totals.requested + (plan.tokens_freed_by_pruning)
    )


def test_summarize_replaces_the_range_with_one_summary() -> None:
    session = _turns(12)
    policy = preset("plan", context_window=20_000, max_tokens=2_000)
    plan, _, _, result = _run(session, policy)
    assert result.replaced is not None
    first, last = result.replaced
    if plan.compaction.replaced is not None:
        assert result.replaced == plan.compaction.replaced
    new = result.session.messages
    assert new[first].is_summary and new[first].role == "user"
    assert sum(m.is_summary for m in new) == 1
    assert new[:first] == session.messages[:first]
    assert new[first + 1 :] == session.messages[last + 1 :]
    assert result.messages_replaced == last - first + 1
    assert new[result.tail_kept] == session.messages[plan.tail.start]
    assert result.summary is not None
    assert result.summary_text == result.summary.render_markdown() == new[first].content
    assert "<conversation_segment>" in result.prompt and "<template>" in result.prompt
    assert result.tokens_after < result.tokens_before
    assert result.overflow is None


def test_summarize_is_conserved() -> None:
    assert _check_conserved(_turns(12), preset("plan", context_window=20_000, max_tokens=2_000))


def test_drop_oldest_half_appends_the_emergency_note() -> None:
    session = _turns(8, summary="older summary")
    policy = preset("picoclaw", context_window=20_000, max_tokens=2_000)
    _, _, _, result = _run(session, policy, CompactReason.RETRY)
    assert result.replaced is not None
    first, last = result.replaced
    dropped = last - first + 1
    assert result.session.meta.summary == (
        f"older summary\n\n[Emergency compression dropped {dropped} oldest messages due to "
        "context limit]"
    )
    assert len(result.session.messages) == len(session.messages) - dropped
    assert result.summary is None and result.prompt == ""
    assert result.reason is CompactReason.RETRY
    assert _check_conserved(session, policy)


def test_emergency_note_without_a_previous_summary() -> None:
    assert append_emergency_note(None, 3) == (
        "[Emergency compression dropped 3 oldest messages due to context limit]"
    )


def test_force_compression_drops_the_oldest_half_of_turns() -> None:
    session = _turns(4)  # turns start at 0, 4, 8, 12
    assert force_compression_range(session) == (0, 7)
    assert force_compression_range(Session(messages=session.messages[:2])) is None


def test_overflow_when_the_tail_alone_exceeds_the_window() -> None:
    session = Session(
        messages=(Message(role="user", content="z" * 40_000),), meta=SessionMeta(model="m1")
    )
    policy = preset("plan", context_window=4_096, max_tokens=1_000)
    plan, _, _, result = _run(session, policy)
    assert result.replaced is None
    assert result.tokens_after == result.tokens_before
    info = result.overflow
    assert info is not None
    assert info.model == "m1" and info.context_window == 4_096
    assert info.requested_tokens == plan.totals.requested > 4_096  # the estimate, not the window
    assert info.reason == "fresh_tail_exceeds_window"
    assert f"requested={info.requested_tokens} " in info.message()


def test_no_overflow_raises_nothing() -> None:
    _, _, _, result = _run(_turns(2, size=10), preset("plan"))
    assert result.overflow is None


@settings(max_examples=60)
@given(
    n=st.integers(min_value=1, max_value=14),
    size=st.integers(min_value=0, max_value=6_000),
    window=st.integers(min_value=4_000, max_value=40_000),
    style=st.sampled_from(["plan", "picoclaw"]),
)
def test_conservation_property(n: int, size: int, window: int, style: str) -> None:
    _check_conserved(_turns(n, size), preset(style, context_window=window, max_tokens=1_000))


def test_leaf_chunks_close_when_the_crossing_message_is_added() -> None:
    """Seahorse's rule: a chunk grows until it reaches 20,000 tokens, the crossing one included."""
    from ctxtui.core.compacting.compaction import leaf_chunks

    tokens = [9_000, 9_000, 9_000, 1, 25_000, 5]
    assert leaf_chunks(tokens, 0, 5) == [(0, 2), (3, 4), (5, 5)]
    assert leaf_chunks(tokens, 1, 1) == [(1, 1)]


def test_saved_share_and_tail_messages_come_with_the_result() -> None:
    from dataclasses import replace

    from ctxtui.core.compacting.compaction import CompactionResult
    from ctxtui.core.policies.reasons import CompactReason
    from ctxtui.core.session.models import Message, Session

    session = Session(messages=tuple(Message(role="user", content=str(i)) for i in range(5)))
    result = CompactionResult(
        session=session,
        summary=None,
        summary_text="",
        prompt="",
        reason=CompactReason.PROACTIVE,
        replaced=(0, 3),
        messages_replaced=4,
        tokens_before=1_000,
        tokens_after=750,
        tail_kept=2,
        overflow=None,
    )
    assert (result.saved_share, result.tail_messages) == (0.25, 3)
    reserved = replace(result, output_reserve=500)  # in both requests: a share of the prompt
    assert (reserved.prompt_before, reserved.prompt_after, reserved.saved_share) == (500, 250, 0.5)
    assert replace(result, tokens_before=0).saved_share == 0.0
    assert replace(result, tail_kept=9).tail_messages == 0
