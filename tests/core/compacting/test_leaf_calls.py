"""Leaf calls: one prompt per chunk, the first equal to the preview's, later ones chained."""

from __future__ import annotations

from itertools import pairwise

from ctxtui.core.compacting.leaf_calls import leaf_calls
from ctxtui.core.engine import Engine
from ctxtui.core.policies.policy import preset
from ctxtui.core.policies.reasons import CompactReason
from ctxtui.core.session.models import Message, Session


def _long_session(n: int = 120, size: int = 2_000) -> Session:
    messages = []
    for i in range(n):
        role = "user" if i % 2 == 0 else "assistant"
        messages.append(Message(role=role, content=f"message {i} " + "word " * size))
    return Session(messages=tuple(messages))


def test_each_chunk_gets_a_call_and_the_first_is_the_previewed_prompt() -> None:
    session = _long_session()
    engine = Engine(session)
    policy = preset("plan", context_window=200_000, max_tokens=8_000)
    plan = engine.plan(policy)
    result = engine.compact(policy, CompactReason.PROACTIVE)
    calls = leaf_calls(session, plan, result, engine.tokenizer(policy))

    assert len(calls) == result.prompt_calls > 1
    assert calls.ranges[0][0] == result.replaced[0]  # type: ignore[index]
    assert calls.ranges[-1][1] == result.replaced[1]  # type: ignore[index]
    assert all(b + 1 == c for (_, b), (c, _) in pairwise(calls.ranges))
    assert calls.prompt(0) == result.prompt
    chained = calls.prompt(1, "EARLIER SUMMARY")
    assert "<previous_context>\nEARLIER SUMMARY\n</previous_context>" in chained
    first, last = calls.ranges[1]
    assert f"message {first} " in chained and f"message {last} " in chained
    assert f"message {first - 1} " not in chained


def test_a_compaction_that_drops_messages_makes_no_call() -> None:
    session = _long_session(40, 50)
    engine = Engine(session)
    policy = preset("picoclaw", context_window=4_096, max_tokens=1_024)
    result = engine.compact(policy, CompactReason.PROACTIVE)
    calls = leaf_calls(session, engine.plan(policy), result, engine.tokenizer(policy))
    assert len(calls) == 0
