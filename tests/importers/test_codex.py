"""Codex rollouts: response_items only, injected context, usage, compaction, legacy layout."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ctxtui.core.session.models import PartKind, Session
from ctxtui.importers import codex
from ctxtui.importers._jsonl import iter_records
from ctxtui.importers._stream import open_file

EXAMPLES = Path("/work/shared/reference/examples")
ROLLOUT = EXAMPLES / "codex_rollout.jsonl"
LEGACY = EXAMPLES / "codex_rollout_legacy_2025.jsonl"


def _line(kind: str, payload: dict[str, Any]) -> dict[str, Any]:
    return {"timestamp": "2026-01-01T00:00:00Z", "type": kind, "payload": payload}


def _msg(role: str, text: str) -> dict[str, Any]:
    kind = "output_text" if role == "assistant" else "input_text"
    return {"type": "message", "role": role, "content": [{"type": kind, "text": text}]}


def _write(tmp_path: Path, lines: list[Any]) -> Path:
    path = tmp_path / "rollout.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    return path


def test_example_after_compaction_is_the_replacement_history() -> None:
    session = load(ROLLOUT)
    assert [m.role for m in session.messages] == ["user", "user"]
    assert not session.messages[0].is_summary
    assert session.messages[1].is_summary and session.messages[1].content.startswith("Summary:")
    assert session.system_prompt == "You are Codex..."
    assert session.meta.model == "gpt-5-codex"
    assert session.meta.context_window == 272000
    assert any(
        "compacted at line 13: 5 earlier messages replaced" in w and "9,150" in w
        for w in session.meta.events
    )
    assert not any("compacted at line" in w for w in session.meta.warnings)  # an event


def test_example_before_compaction_pairs_calls_and_keeps_usage() -> None:
    with open_file(ROLLOUT) as source:
        typed = codex.Live.RECORD
        records = [r for r in iter_records(source, [], typed=typed) if r.line < 13]
    live = codex.Live()
    live.add(records)
    session = live.session(str(ROLLOUT))
    roles = [m.role for m in session.messages]
    assert roles == ["user", "user", "assistant", "tool", "assistant"]  # no event_msg mirrors
    env, prompt, call, output, answer = session.messages
    assert env.injected and not prompt.injected
    assert call.reasoning == "**Checking file size**"
    assert [p.kind for p in call.parts] == [PartKind.OPAQUE]
    assert "gAAAA" not in call.reasoning + call.content
    assert call.tool_calls[0].id == "call_C3" and output.tool_name == "shell"
    assert output.content.startswith('{"output":"2048 notes.txt')  # the string the model saw
    assert session.call_of_result == {3: 2} and session.orphan_results == ()
    assert call.usage is not None and call.usage.prompt_total == 9000
    assert answer.usage is not None
    assert answer.usage.prompt_total == 9150 and answer.usage.output == 12
    assert answer.usage.prompt_total + answer.usage.output == 9162
    assert answer.usage.cached_read == 9000


def test_legacy_layout() -> None:
    session = load(LEGACY)
    assert [m.role for m in session.messages] == ["user", "assistant", "tool", "assistant"]
    assert session.system_prompt is None  # instructions: null
    assert session.messages[1].tool_calls[0].id == "call_L1"
    assert session.call_of_result == {2: 1}


def test_compacted_without_replacement_history_keeps_users_and_summary(tmp_path: Path) -> None:
    lines = [
        _line("session_meta", {"id": "a", "instructions": "sys"}),
        _line("response_item", _msg("developer", "<permissions instructions>x")),
        _line("response_item", _msg("user", "first")),
        _line("response_item", _msg("assistant", "reply")),
        _line("response_item", _msg("user", "second")),
        _line("compacted", {"message": "the summary"}),
        _line("response_item", _msg("user", "third")),
    ]
    session = load(_write(tmp_path, lines))
    assert [m.content for m in session.messages] == [
        "<permissions instructions>x",
        "first",
        "second",
        "the summary",
        "third",
    ]
    assert session.messages[0].injected and session.messages[3].is_summary
    assert session.system_prompt == "sys"
    assert any("no replacement history" in w for w in session.meta.events)


def test_fork_replay_rollback_and_output_shapes(tmp_path: Path) -> None:
    image = {"type": "input_image", "image_url": "data:image/png;base64,QUJD"}
    lines = [
        _line("session_meta", {"id": "child", "base_instructions": {"text": "child sys"}}),
        _line("session_meta", {"id": "parent", "base_instructions": {"text": "parent sys"}}),
        _line("response_item", _msg("user", "one")),
        _line("response_item", {"type": "custom_tool_call", "call_id": "c1", "name": "apply_patch",
                                "input": "*** Begin Patch"}),
        _line("response_item", {"type": "custom_tool_call_output", "call_id": "c1",
                                "output": [{"type": "input_text", "text": "done"}, image]}),
        _line("response_item", {"type": "function_call", "call_id": "c2", "name": "shell",
                                "arguments": "{}"}),
        _line("response_item", {"type": "function_call_output", "call_id": "c2",
                                "output": {"content": "boom", "success": False}}),
        _line("response_item", _msg("user", "two")),
        _line("response_item", _msg("assistant", "answer two")),
        _line("event_msg", {"type": "thread_rolled_back", "num_turns": 1}),
    ]  # fmt: skip
    session = load(_write(tmp_path, lines))
    assert session.system_prompt == "child sys"
    assert any("second session_meta" in w for w in session.meta.warnings)
    roles = [m.role for m in session.messages]
    assert roles == ["user", "assistant", "tool", "assistant", "tool"]  # "two" rolled back
    patch = session.messages[1].tool_calls[0]
    assert patch.type == "custom" and patch.arguments == "*** Begin Patch"
    assert session.messages[2].content == "done"
    assert session.messages[2].media_parts[0].byte_size == 3
    assert session.messages[4].is_error and session.messages[4].content == "boom"
    assert any("rolled back 1 turn (" in w for w in session.meta.warnings)


def test_sniff() -> None:
    assert codex.sniff(ROLLOUT, json.loads(ROLLOUT.read_text().splitlines()[0])) >= 90
    assert codex.sniff(LEGACY, json.loads(LEGACY.read_text().splitlines()[0])) >= 80
    assert codex.sniff(ROLLOUT, {"role": "user", "content": "x"}) == 0


def test_content_parts_read_as_the_responses_importer_reads_them(tmp_path: Path) -> None:
    """A bare base64 ``file_data`` is sized (it used to be 0 bytes, labelled with the base64
    itself when there was no filename), and an image by ``file_id`` is labelled with it."""
    content = [
        {"type": "input_text", "text": "look"},
        {"type": "input_file", "file_data": "aGVsbG8="},
        {"type": "input_image", "file_id": "file-1"},
    ]
    item = {"type": "message", "role": "user", "content": content}
    (message,) = load(_write(tmp_path, [_line("response_item", item)])).messages
    _, file, image = message.parts
    assert (file.kind, file.byte_size, file.label) == (PartKind.OTHER, 5, "file")
    assert (image.kind, image.label) == (PartKind.IMAGE, "file-1")


def load(path: Path) -> Session:
    with open_file(path) as source:
        return codex.load(source)
