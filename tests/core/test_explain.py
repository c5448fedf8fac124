"""explain.why: one sentence per message naming the rule that placed it, with its figures."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from ctxtui.core.counts import SessionCounts
from ctxtui.core.explain import why
from ctxtui.core.models import Message, Session, ToolCall, ToolDefinition
from ctxtui.core.plan import Plan, TokenizerInfo, Zone
from ctxtui.core.planner import build_plan
from ctxtui.core.policy import Policy, preset


class CharTokenizer:
    name = "chars"

    def count_text(self, text: str) -> int:
        return len(text)

    def count_message(self, message: Message) -> int:
        return len(message.content) + 1

    def count_tool_defs(self, tools: Sequence[ToolDefinition]) -> int:
        return 0

    def count_system(self, system_prompt: str) -> int:
        return len(system_prompt)


def _build(policy: Policy) -> tuple[Session, Plan]:
    messages: list[Message] = []
    for t in range(12):
        call = ToolCall(id=f"c{t}", name="bash")
        messages += [
            Message(role="user", content="q" * 400),
            Message(role="assistant", tool_calls=(call,)),
            Message(role="tool", tool_call_id=f"c{t}", tool_name="bash", content="y\n" * 400),
        ]
    session = Session(messages=tuple(messages))
    tokenizer = CharTokenizer()
    counts = SessionCounts(
        TokenizerInfo("chars", "chars"), [tokenizer.count_message(m) for m in messages]
    )
    return session, build_plan(session, policy, counts, tokenizer)


POLICY = preset("plan", context_window=5_000, max_tokens=1_000, truncate_max_lines=100)


def test_every_message_gets_one_sentence_naming_its_zone() -> None:
    session, plan = _build(POLICY)
    seen = set()
    for i in range(len(plan)):
        text = why(session, plan, i)
        zone = plan.zone(i)
        seen.add(zone)
        assert text.endswith(".") and text.count(". ") == 0
        assert {Zone.TAIL: "fresh tail", Zone.KEPT: "is kept", Zone.DROPPED: "dropped"}[
            zone
        ] in text
        assert f"{plan.effective_tokens[i]:,} tokens" in text
    assert seen == set(Zone)


def test_tail_sentence_names_the_rule_and_its_figures() -> None:
    session, plan = _build(POLICY)
    text = why(session, plan, len(plan) - 1)
    assert f"{plan.tail.tokens:,}" in text and f"{plan.tail.budget:,}" in text


def test_min_turns_rule_is_named() -> None:
    session, plan = _build(POLICY.with_changes(tail_min_turns=3))
    assert "last 3 turns" in why(session, plan, len(plan) - 1)


def test_pruned_and_truncated_figures_are_given() -> None:
    session, plan = _build(POLICY)
    index = next(iter(plan.pruned))
    text = why(session, plan, index)
    pruned, truncated = plan.pruned[index], plan.truncated[index]
    assert f"{pruned.tokens_before:,} → {pruned.tokens_after:,}" in text
    assert f"from {truncated.tokens_before:,} to {truncated.tokens_after:,}" in text


def test_out_of_range_index_is_an_error() -> None:
    session, plan = _build(POLICY)
    with pytest.raises(IndexError):
        why(session, plan, len(plan))
