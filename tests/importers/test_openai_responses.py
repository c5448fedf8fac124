"""OpenAI Responses: the reference example, call_id joins, opaque reasoning and compaction."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ctxtui.core.session.models import PartKind
from ctxtui.importers import load_session

EXAMPLES = Path("/work/shared/reference/examples")
needs_examples = pytest.mark.skipif(not EXAMPLES.is_dir(), reason="reference examples absent")


def _write(tmp_path: Path, value: Any) -> Path:
    path = tmp_path / "resp.json"
    path.write_text(json.dumps(value))
    return path


@needs_examples
def test_reference_example() -> None:
    s = load_session(EXAMPLES / "openai_responses_input.json")
    assert s.meta.format == "openai-responses" and s.meta.model == "gpt-5"
    assert s.system_prompt == "You are a file assistant."
    assert [m.role for m in s.messages] == ["user", "assistant", "tool", "assistant"]
    reply = s.messages[1]
    assert reply.reasoning == "Need to stat the file."
    assert reply.opaque_bytes == len("gAAAAB...opaque...")
    assert reply.content == ""
    call = reply.tool_calls[0]
    assert (call.id, call.name) == ("call_B7", "stat_file"), "joined on call_id, not the item id"
    assert s.messages[2].tool_call_id == "call_B7" and s.messages[2].tool_name == "stat_file"
    assert s.messages[3].content == "notes.txt is 2 KiB.", "EasyInputMessage without a type"
    assert s.call_of_result == {2: 1}


def test_custom_tools_images_compaction_and_usage(tmp_path: Path) -> None:
    doc = {
        "instructions": "sys",
        "previous_response_id": "resp_1",
        "input": [
            {"type": "compaction", "encrypted_content": "E" * 50},
            {
                "type": "message",
                "role": "user",
                "content": [
                    {"type": "input_text", "text": "look"},
                    {"type": "input_image", "image_url": "data:image/jpeg;base64,QUJDRA=="},
                ],
            },
            {"type": "custom_tool_call", "call_id": "c1", "name": "patch", "input": "*** diff"},
            {"type": "custom_tool_call_output", "call_id": "c1", "output": "ok"},
            {"type": "function_call", "call_id": "c2", "name": "f", "arguments": "{}"},
            {
                "type": "function_call_output",
                "call_id": "c2",
                "output": [{"type": "input_text", "text": "part out"}],
            },
            {"type": "item_reference", "id": "msg_9"},
        ],
        "output": [{"type": "message", "role": "assistant",
                    "content": [{"type": "output_text", "text": "fin"}]}],
        "usage": {"input_tokens": 50, "input_tokens_details": {"cached_tokens": 20},
                  "output_tokens": 5, "output_tokens_details": {"reasoning_tokens": 2}},
    }  # fmt: skip
    s = load_session(_write(tmp_path, doc))
    assert s.messages[0].is_summary and s.messages[0].opaque_bytes == 50
    image = s.messages[1].parts[1]
    assert (image.kind, image.media_type, image.byte_size) == (PartKind.IMAGE, "image/jpeg", 4)
    assert s.messages[1].content == "look"
    assert s.messages[2].tool_calls[0].type == "custom"
    assert s.messages[2].tool_calls[0].arguments == "*** diff"
    assert s.messages[5].content == "part out"
    assert s.results_of_call == {2: (3,), 4: (5,)}
    last = s.messages[-1]
    assert last.content == "fin" and last.usage is not None
    assert (last.usage.prompt_total, last.usage.cached_read, last.usage.reasoning) == (50, 20, 2)
    assert any("previous_response_id" in w for w in s.meta.warnings)
    assert any("msg_9" in w for w in s.meta.warnings)


def test_string_input_is_one_user_message(tmp_path: Path) -> None:
    s = load_session(_write(tmp_path, {"model": "gpt-5", "instructions": "i", "input": "hello"}))
    assert s.meta.format == "openai-responses"
    assert [(m.role, m.content) for m in s.messages] == [("user", "hello")]
