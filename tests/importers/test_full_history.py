"""``load_session(full_history=True)``: every message, before and after recorded compactions."""

from __future__ import annotations

import json
from pathlib import Path

from ctxtui.importers import load_session
from ctxtui.samples import samples_dir

SAMPLES = samples_dir()


def test_claude_code_full_history_crosses_the_boundary() -> None:
    path = SAMPLES / "claude_code_compacted.jsonl"
    now, full = load_session(path), load_session(path, full_history=True)
    assert full.meta.full_history and not now.meta.full_history
    assert len(full.messages) == 27 > len(now.messages) == 7
    assert full.messages[-len(now.messages) :] == now.messages
    (recorded,) = full.meta.recorded_compactions
    assert (recorded.trigger, recorded.pre_tokens) == ("manual", 36_474)
    assert full.messages[recorded.message_index].is_summary
    assert now.meta.recorded_compactions[0].message_index == 0  # the view starts at it


def _codex(tmp_path: Path) -> Path:
    def item(payload: dict[str, object]) -> dict[str, object]:
        return {"timestamp": "2026-01-01T00:00:00Z", "type": "response_item", "payload": payload}

    def user(text: str) -> dict[str, object]:
        return item(
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}
        )

    def answer(text: str) -> dict[str, object]:
        return item(
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": text}],
            }
        )

    usage = {"input_tokens": 900, "cached_input_tokens": 0, "output_tokens": 5}
    tokens = {"type": "token_count", "info": {"last_token_usage": usage}}
    lines = [
        {"timestamp": "t", "type": "session_meta", "payload": {"id": "s1"}},
        user("first"),
        answer("one"),
        {"timestamp": "t", "type": "event_msg", "payload": tokens},
        {
            "timestamp": "t",
            "type": "compacted",
            "payload": {
                "message": "the summary",
                "replacement_history": [user("first")["payload"], user("the summary")["payload"]],
            },
        },
        user("second"),
        answer("two"),
    ]
    path = tmp_path / "rollout.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def test_codex_full_history_appends_what_replaced_it(tmp_path: Path) -> None:
    path = _codex(tmp_path)
    now, full = load_session(path), load_session(path, full_history=True)
    assert [m.content for m in now.messages] == ["first", "the summary", "second", "two"]
    assert [m.content for m in full.messages] == [
        "first",
        "one",
        "first",
        "the summary",
        "second",
        "two",
    ]
    (recorded,) = full.meta.recorded_compactions
    assert recorded.message_index == 2
    assert recorded.pre_tokens == 900 and recorded.trigger is None
    assert full.messages[3].is_summary
    assert full.messages[1].usage is not None and full.messages[1].usage.prompt_total == 900


def test_formats_without_compactions_ignore_full_history() -> None:
    path = SAMPLES / "coding_agent_overflow.json"
    assert load_session(path, full_history=True).messages == load_session(path).messages


def test_codex_roll_back_past_a_compaction_forgets_it(tmp_path: Path) -> None:
    path = _codex(tmp_path)
    rolled = {"type": "thread_rolled_back", "num_turns": 3}
    with path.open("a") as f:
        f.write(json.dumps({"timestamp": "t", "type": "event_msg", "payload": rolled}) + "\n")
    full = load_session(path, full_history=True)
    assert [m.content for m in full.messages] == ["first", "one"]
    assert full.meta.recorded_compactions == ()
