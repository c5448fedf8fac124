"""Replay over a long PicoClaw session: compactions shrink the prompt, and what the walk
keeps grows with the requests, not with their square (issue 37, item 5)."""

from __future__ import annotations

from itertools import pairwise

import pytest

from ctxtui.core.policies.policy import preset
from ctxtui.core.session.models import Message, Session, ToolCall
from ctxtui.core.simulation.live_context import Counted
from ctxtui.core.simulation.replay import replay
from ctxtui.core.tokens.counting import count_session
from ctxtui.core.tokens.tokenizers import resolve


def picoclaw_session(requests: int) -> Session:
    """Turns of a user message, 0–3 tool calls and an answer, about ``requests`` calls."""
    messages: list[Message] = []
    k = 0
    while k < requests:
        messages.append(Message(role="user", content=f"u{k}"))
        for j in range(k % 4):
            cid = f"c{k}-{j}"
            messages.append(Message(role="assistant", tool_calls=(ToolCall(id=cid, name="exec"),)))
            output = "o" * (40 * (k % 7))
            messages.append(
                Message(role="tool", tool_call_id=cid, tool_name="exec", content=output)
            )
            k += 1
        messages.append(Message(role="assistant", content=f"a{k}"))
        k += 1
    return Session(messages=tuple(messages))


@pytest.mark.parametrize(("name", "requests"), [("picoclaw", 15_000), ("picoclaw-seahorse", 5_000)])
def test_a_long_picoclaw_replay_compacts_down_and_keeps_linear_state(
    name: str, requests: int
) -> None:
    session = picoclaw_session(requests)
    policy = preset(name, context_window=8_000, max_tokens=2_000)
    tokenizer, info = resolve(policy.tokenizer)
    counts = count_session(session, tokenizer, info)
    assert counts is not None
    result = replay(Counted(session, policy, counts, tokenizer))
    assert len(result.requests) >= requests
    assert result.compactions
    assert all(c.tokens_after < c.tokens_before for c in result.compactions)
    assert len(result.compactions) < len(result.requests) // 4  # not every turn or request
    held = sum(
        len(s.meta_summary or "") + len(s.stand_in.content if s.stand_in else "")
        for s in result.segments
    )
    history = sum(len(m.content) for m in session.messages)
    assert held <= 2 * history  # summaries held once each, no copy per request


def test_seahorse_condenses_its_leaves_once_the_context_is_over_the_window() -> None:
    """``Compact``'s phase 2 (``Budget`` the window): past it, leaves merge into condensed
    summaries, so the summaries stop adding up without bound."""
    session = picoclaw_session(1_500)
    policy = preset("picoclaw-seahorse", context_window=8_000, max_tokens=2_000)
    tokenizer, info = resolve(policy.tokenizer)
    counts = count_session(session, tokenizer, info)
    assert counts is not None
    result = replay(Counted(session, policy, counts, tokenizer))
    last = result.segments[-1].stand_in
    assert last is not None and "[Condensed from" in last.content
    held = [s.stand_in_tokens for s in result.segments[1:]]
    assert any(b < a for a, b in pairwise(held))  # a pass shrank them
