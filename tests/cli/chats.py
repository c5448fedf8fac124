"""An agent-loop chat in OpenAI format, for CLI tests that need a session file of some size."""

from __future__ import annotations

from typing import Any


def agent_chat(
    turns: int,
    *,
    ask: str,
    reply: str,
    tool_chars: int,
    path: str = "a.py",
) -> dict[str, Any]:
    """``turns`` rounds of user ask → read_file call → ``tool_chars`` of output → reply.

    ``ask`` and ``reply`` are ``str.format`` templates given the turn number ``k``.
    """
    messages: list[dict[str, Any]] = [{"role": "system", "content": "You are terse."}]
    arguments = '{"path": "' + path + '"}'
    for k in range(turns):
        messages += [
            {"role": "user", "content": ask.format(k=k)},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": f"call_{k}",
                        "type": "function",
                        "function": {"name": "read_file", "arguments": arguments},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": f"call_{k}", "content": "x" * tool_chars},
            {"role": "assistant", "content": reply.format(k=k)},
        ]
    return {"messages": messages}
