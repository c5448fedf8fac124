"""Usage as the importers record it for pricing: Claude Code's 1-hour cache writes, and each
API response's usage counted once however its lines are split."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ctxtui.core.pricing.cost import session_cost
from ctxtui.importers import load_session

USAGE = {
    "input_tokens": 5,
    "cache_creation_input_tokens": 300,
    "cache_read_input_tokens": 1000,
    "cache_creation": {"ephemeral_5m_input_tokens": 100, "ephemeral_1h_input_tokens": 200},
    "output_tokens": 50,
}


def _line(serial: int, kind: str, message: dict[str, Any]) -> str:
    return json.dumps(
        {
            "type": kind,
            "uuid": f"u{serial}",
            "parentUuid": f"u{serial - 1}" if serial > 1 else None,
            "sessionId": "s",
            "timestamp": f"2026-03-02T09:00:{serial:02d}Z",
            "message": message,
        }
    )


def _assistant(msg_id: str, block: dict[str, Any]) -> dict[str, Any]:
    model = "claude-sonnet-4-5"
    return {"id": msg_id, "role": "assistant", "model": model, "content": [block], "usage": USAGE}


def test_claude_code_one_hour_writes_and_one_usage_per_message_id(tmp_path: Path) -> None:
    call = {"type": "tool_use", "id": "t1", "name": "grep", "input": {}}
    result = {"type": "tool_result", "tool_use_id": "t1", "content": "x"}
    lines = [
        _line(1, "user", {"role": "user", "content": "hi"}),
        _line(2, "assistant", _assistant("m1", {"type": "text", "text": "a"})),
        _line(3, "assistant", _assistant("m1", call)),
        _line(4, "user", {"role": "user", "content": [result]}),
        _line(5, "user", {"role": "user", "content": "more"}),
        # the same response written again after a user message: not a second request's usage
        _line(6, "assistant", _assistant("m1", {"type": "text", "text": "a"})),
    ]
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join(lines) + "\n")
    session = load_session(path, full_history=True)
    with_usage = [m.usage for m in session.messages if m.usage is not None]
    assert len(with_usage) == 1
    usage = with_usage[0]
    assert (usage.prompt_total, usage.cache_write, usage.cache_write_1h) == (1305, 300, 200)
    cost = session_cost(session)
    assert cost.requests_with_usage == 1 and len(cost.priced) == 1
