"""Hand-built plans for tests that must not depend on the planner's decisions."""

from __future__ import annotations

from ctxtui.core.errors import OverflowInfo
from ctxtui.core.planning.plan import (
    CompactionNeed,
    FreshTail,
    Plan,
    PrunedOutput,
    TailReason,
    Totals,
)
from ctxtui.core.policies.policy import preset
from ctxtui.core.policies.reasons import CompactReason
from ctxtui.core.session.models import Message, Session, SessionMeta, ToolCall
from ctxtui.core.tokens.tokenizers import TokenizerInfo


def small_session() -> Session:
    return Session(
        messages=(
            Message(role="user", content="fix the bug"),
            Message(
                role="assistant",
                tool_calls=(ToolCall(id="c1", name="read_file", arguments='{"path": "a.py"}'),),
            ),
            Message(role="tool", tool_call_id="c1", content="x" * 400),
            Message(role="assistant", content="done"),
            Message(role="user", content="thanks"),
        ),
        system_prompt="sys",
        meta=SessionMeta(source_path="s.json", format="openai", model="m1", warnings=("w1",)),
    )


def hand_plan(tokens: tuple[int, ...] = (10, 20, 100, 5, 3), *, window: int = 1_000) -> Plan:
    """Tail = last two messages, kept = 1..2, dropped = 0; message 2 pruned to 10 tokens."""
    policy = preset("plan", context_window=window, max_tokens=200)
    effective = (*tokens[:2], 10, *tokens[3:])
    history = sum(effective)
    totals = Totals(
        window=window,
        output_reserve=200,
        system=7,
        tool_defs=0,
        summary=0,
        history=history,
        kept=effective[1] + effective[2],
        tail=effective[3] + effective[4],
        dropped=effective[0],
    )
    overflow = (
        OverflowInfo("m1", window, totals.requested, "test") if totals.requested > window else None
    )
    return Plan(
        policy=policy,
        tokenizer=TokenizerInfo("tiktoken:nope", "plan", "nope is not available"),
        message_tokens=tokens,
        effective_tokens=effective,
        kept_start=1,
        tail=FreshTail(3, 2_000, 8, TailReason.MIN_TURNS, turns=1, min_turns=2),
        totals=totals,
        compaction=CompactionNeed(True, CompactReason.PROACTIVE, (0, 0), tokens[0], window),
        overflow=overflow,
        pruned={2: PrunedOutput(2, tokens[2], 10)},
    )
