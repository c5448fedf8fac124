"""Anthropic Messages: the reference examples, tool-result splitting, blobs and cache usage."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest

from ctxtui.core.session.models import PartKind
from ctxtui.importers import load_session

EXAMPLES = Path("/work/shared/reference/examples")
needs_examples = pytest.mark.skipif(not EXAMPLES.is_dir(), reason="reference examples absent")


def _write(tmp_path: Path, value: Any) -> Path:
    path = tmp_path / "req.json"
    path.write_text(json.dumps(value))
    return path


@needs_examples
def test_request_example() -> None:
    s = load_session(EXAMPLES / "anthropic_messages.json")
    assert s.meta.format == "anthropic" and s.meta.model == "claude-sonnet-4-5"
    assert s.system_prompt == "You are a file assistant."
    assert [m.role for m in s.messages] == ["user", "assistant", "tool", "assistant"]
    assistant = s.messages[1]
    assert assistant.reasoning == "I should stat the file."
    assert assistant.content == "Let me check."
    assert assistant.opaque_bytes == len("EqQBCkYI...opaque...")
    assert "EqQB" not in assistant.content + assistant.reasoning
    call = assistant.tool_calls[0]
    assert (call.id, call.name, call.arguments) == (
        "toolu_01X",
        "stat_file",
        '{"path":"notes.txt"}',
    )
    result = s.messages[2]
    assert result.tool_call_id == "toolu_01X" and result.content == '{"size": 2048}'
    assert s.call_of_result == {2: 1} and s.orphan_results == ()


@needs_examples
def test_response_usage_example_normalises_the_cache() -> None:
    s = load_session(EXAMPLES / "anthropic_response_usage.json")
    assert len(s.messages) == 1
    usage = s.messages[0].usage
    assert usage is not None
    assert usage.prompt_total == 4112
    assert (usage.cached_read, usage.cache_write, usage.output) == (4100, 0, 9)


def test_user_message_mixing_results_and_text_is_split(tmp_path: Path) -> None:
    doc = {
        "system": "sys",
        "messages": [
            {
                "role": "assistant",
                "content": [
                    {"type": "tool_use", "id": "t1", "name": "a", "input": {"x": "é"}},
                    {"type": "tool_use", "id": "t2", "name": "b", "input": {}},
                ],
            },
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "also this"},
                    {"type": "tool_result", "tool_use_id": "t1", "content": "r1"},
                    {"type": "tool_result", "tool_use_id": "t2", "content": "r2", "is_error": True},
                ],
            },
        ],
    }
    s = load_session(_write(tmp_path, doc))
    assert [m.role for m in s.messages] == ["assistant", "tool", "tool", "user"]
    assert s.messages[0].tool_calls[0].arguments == '{"x":"é"}'
    assert s.messages[2].is_error and s.messages[2].tool_name == "b"
    assert s.messages[3].content == "also this"
    assert s.results_of_call == {0: (1, 2)}


def test_images_documents_and_redacted_thinking(tmp_path: Path) -> None:
    png = base64.b64encode(b"\x89PNG" + b"\x00" * 96).decode()
    doc = {
        "system": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
        "messages": [
            {
                "role": "user",
                "content": [
                    {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                                 "data": png}},
                    {"type": "document", "title": "spec.pdf",
                     "source": {"type": "base64", "media_type": "application/pdf",
                                "data": "QUJD"}},
                    {"type": "image", "source": {"type": "url", "url": "https://x/y.png"}},
                ],
            },
            {"role": "assistant", "content": [{"type": "redacted_thinking", "data": "Z" * 64}]},
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "gone",
                     "content": [{"type": "image", "source": {"type": "base64",
                                                              "media_type": "image/jpeg",
                                                              "data": png}}]},
                ],
            },
        ],
    }  # fmt: skip
    s = load_session(_write(tmp_path, doc), "anthropic")
    assert s.system_prompt == "a\nb"
    image, document, remote = s.messages[0].parts
    assert (image.kind, image.media_type, image.byte_size) == (PartKind.IMAGE, "image/png", 100)
    assert (document.kind, document.label, document.byte_size) == (PartKind.OTHER, "spec.pdf", 3)
    assert remote.kind is PartKind.IMAGE and remote.label == "https://x/y.png"
    assert s.messages[0].content == ""
    assert s.messages[1].opaque_bytes == 64 and s.messages[1].content == ""
    assert s.messages[2].media_parts[0].byte_size == 100
    assert s.orphan_results == (2,)


def test_compaction_block_becomes_a_summary_message(tmp_path: Path) -> None:
    doc = {
        "system": "s",
        "messages": [
            {"role": "assistant", "content": [{"type": "compaction", "content": "earlier: X"}]},
            {"role": "user", "content": "next"},
        ],
    }
    s = load_session(_write(tmp_path, doc), "anthropic")
    summaries = [m for m in s.messages if m.is_summary]
    assert len(summaries) == 1 and summaries[0].content == "earlier: X"


def test_openai_shaped_messages_are_not_taken_for_anthropic(tmp_path: Path) -> None:
    doc = {"system": "x", "messages": [{"role": "tool", "tool_call_id": "a", "content": "r"}]}
    from ctxtui.importers.anthropic import sniff

    assert sniff(tmp_path, doc) == 0
