"""Replay over a long PicoClaw session: compactions shrink the prompt, and what the walk
keeps grows with the requests, not with their square (issue 37, item 5)."""

from __future__ import annotations

import pytest

from ctxtui.core.policies.policy import preset
from ctxtui.core.session.models import Message, Session, ToolCall
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


@pytest.mark.parametrize("name", ["picoclaw", "picoclaw-seahorse"])
def test_a_15000_request_picoclaw_replay_compacts_down_and_keeps_linear_state(name: str) -> None:
    session = picoclaw_session(15_000)
    policy = preset(name, context_window=8_000, max_tokens=2_000)
    tokenizer, info = resolve(policy.tokenizer)
    counts = count_session(session, tokenizer, info)
    assert counts is not None
    result = replay(session, policy, counts, tokenizer)
    assert len(result.requests) >= 15_000
    assert result.compactions
    assert all(c.tokens_after < c.tokens_before for c in result.compactions)
    assert len(result.compactions) < len(result.requests) // 4  # not every turn or request
    held = sum(
        len(s.meta_summary or "") + len(s.stand_in.content if s.stand_in else "")
        for s in result.segments
    )
    history = sum(len(m.content) for m in session.messages)
    assert held <= 2 * history  # summaries held once each, no copy per request
