"""OpenAI Chat: the reference examples, containers, legacy pairing and reasoning extensions."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ctxtui.core.session.models import Message, PartKind, ToolCall, Usage
from ctxtui.importers import load_session

EXAMPLES = Path("/work/shared/reference/examples")
needs_examples = pytest.mark.skipif(not EXAMPLES.is_dir(), reason="reference examples absent")


def _write(tmp_path: Path, value: Any, name: str = "chat.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(value))
    return path


@needs_examples
def test_reference_example() -> None:
    s = load_session(EXAMPLES / "openai_chat.json")
    # the leading system message is the system prompt, not history (load_session hoists it)
    assert [m.role for m in s.messages] == ["user", "assistant", "tool", "assistant"]
    assert s.meta.format == "openai-chat" and s.meta.model == "gpt-4.1"
    assert s.system_prompt == "You are a file assistant."
    user = s.messages[0]
    assert user.content == "How big is notes.txt?"
    image = user.parts[1]
    assert image.kind is PartKind.IMAGE
    assert image.media_type == "image/png" and image.byte_size == 8
    assert "base64" not in image.label and "iVBOR" not in user.content
    call = s.messages[1].tool_calls[0]
    assert (call.id, call.name, call.arguments) == ("call_A1", "stat_file", '{"path": "notes.txt"}')
    assert s.messages[2].tool_call_id == "call_A1" and s.messages[2].tool_name == "stat_file"
    assert s.call_of_result == {2: 1}
    assert len(s.index.tool_results) == 1 and s.orphan_results == ()


@needs_examples
def test_legacy_function_call_paired_by_position() -> None:
    s = load_session(EXAMPLES / "openai_chat_legacy_function.json")
    assert [m.role for m in s.messages] == ["user", "assistant", "tool", "assistant"]
    call = s.messages[1].tool_calls[0]
    assert call.name == "get_weather" and call.arguments == '{"city": "Oslo"}'
    assert s.messages[2].tool_call_id == call.id and s.messages[2].tool_name == "get_weather"
    assert s.call_of_result == {2: 1}
    again = load_session(EXAMPLES / "openai_chat_legacy_function.json")
    assert again.messages[1].tool_calls[0].id == call.id, "synthesised ids must be stable"


def test_legacy_calls_of_the_same_name_pair_in_order(tmp_path: Path) -> None:
    fc = {"name": "f", "arguments": "{}"}
    path = _write(
        tmp_path,
        [
            {"role": "assistant", "content": None, "function_call": fc},
            {"role": "function", "name": "f", "content": "one"},
            {"role": "assistant", "content": None, "function_call": fc},
            {"role": "function", "name": "f", "content": "two"},
        ],
    )
    s = load_session(path, "openai-chat")
    assert s.call_of_result == {1: 0, 3: 2}


def test_bare_array_parallel_calls_tools_and_usage(tmp_path: Path) -> None:
    calls = [
        {"id": f"c{i}", "type": "function", "function": {"name": "read", "arguments": "{bad"}}
        for i in range(2)
    ]
    doc = {
        "model": "gpt-4o",
        "tools": [{"type": "function", "function": {"name": "read", "parameters": {"a": 1}}}],
        "messages": [
            {"role": "developer", "content": [{"type": "text", "text": "Be brief."}]},
            {"role": "user", "content": "go"},
            {"role": "assistant", "content": None, "tool_calls": calls},
            {"role": "tool", "tool_call_id": "c0", "content": [{"type": "text", "text": "A"}]},
            {"role": "tool", "tool_call_id": "c1", "content": "B"},
            {"role": "assistant", "content": "done"},
        ],
        "usage": {
            "prompt_tokens": 120,
            "completion_tokens": 30,
            "prompt_tokens_details": {"cached_tokens": 100},
            "completion_tokens_details": {"reasoning_tokens": 10},
        },
    }
    s = load_session(_write(tmp_path, doc))
    assert s.system_prompt == "Be brief." and s.messages[0].role == "user"
    assert s.messages[1].tool_calls[0].arguments == "{bad", "arguments are kept verbatim"
    assert s.results_of_call == {1: (2, 3)}
    assert s.tools[0].name == "read" and dict(s.tools[0].parameters) == {"a": 1}
    usage = s.messages[-1].usage
    assert usage is not None
    assert (usage.prompt_total, usage.cached_read, usage.output, usage.reasoning) == (
        120,
        100,
        30,
        10,
    )


def test_reasoning_extensions(tmp_path: Path) -> None:
    doc = {
        "messages": [
            {"role": "user", "content": "q"},
            {
                "role": "assistant",
                "content": "a",
                "reasoning_content": "think first",
                "thinking_blocks": [
                    {"type": "thinking", "thinking": "think first", "signature": "S" * 40}
                ],
            },
            {"role": "assistant", "content": "b", "reasoning": "openrouter says"},
        ]
    }
    s = load_session(_write(tmp_path, doc), "openai-chat")
    assert s.messages[1].reasoning == "think first"
    assert s.messages[1].opaque_bytes == 40
    assert "S" * 40 not in s.messages[1].content
    assert s.messages[2].reasoning == "openrouter says"


def test_audio_and_file_parts_are_media_not_text(tmp_path: Path) -> None:
    doc = {
        "messages": [
            {
                "role": "user",
                "content": [
                    {"type": "input_audio", "input_audio": {"data": "AAAA" * 10, "format": "wav"}},
                    {"type": "file", "file": {"file_data": "QUJD", "filename": "a.pdf"}},
                ],
            }
        ]
    }
    s = load_session(_write(tmp_path, doc), "openai-chat")
    audio, file = s.messages[0].parts
    assert (audio.kind, audio.media_type, audio.byte_size) == (PartKind.OTHER, "audio/wav", 30)
    assert (file.kind, file.label, file.byte_size) == (PartKind.OTHER, "a.pdf", 3)
    assert s.messages[0].content == ""


def test_jsonl_one_message_per_line_keeps_source_lines(tmp_path: Path) -> None:
    path = tmp_path / "chat.jsonl"
    path.write_text('{"role": "user", "content": "hi"}\n\n{"role": "assistant", "content": "yo"}\n')
    s = load_session(path, "openai-chat")
    assert [m.content for m in s.messages] == ["hi", "yo"]
    assert [m.source_line for m in s.messages] == [1, 3]


def test_jsonl_of_conversations_takes_the_first_and_warns(tmp_path: Path) -> None:
    path = tmp_path / "train.jsonl"
    line = json.dumps({"messages": [{"role": "user", "content": "first"}]})
    other = json.dumps({"messages": [{"role": "user", "content": "second"}]})
    path.write_text(f"{line}\n{other}\n{other}\n")
    s = load_session(path)
    assert [m.content for m in s.messages] == ["first"]
    assert any("3 conversations" in w for w in s.meta.warnings)


def test_corrupt_jsonl_line_becomes_a_session_warning(tmp_path: Path) -> None:
    path = tmp_path / "chat.jsonl"
    path.write_text('{"role": "user", "content": "hi"}\n{oops\n{"role": "user", "content": "x"}\n')
    s = load_session(path, "openai-chat")
    assert len(s.messages) == 2
    assert any(w.startswith("line 2:") for w in s.meta.warnings)


def test_logged_response_choice_is_appended_with_its_usage(tmp_path: Path) -> None:
    doc = {
        "messages": [{"role": "user", "content": "q"}],
        "response": {
            "choices": [{"message": {"role": "assistant", "content": "answer"}}],
            "usage": {"prompt_tokens": 7, "completion_tokens": 2},
        },
    }
    s = load_session(_write(tmp_path, doc), "openai-chat")
    assert [m.content for m in s.messages] == ["q", "answer"]
    assert s.messages[1].usage is not None and s.messages[1].usage.prompt_total == 7


def test_unknown_role_is_skipped_with_a_warning(tmp_path: Path) -> None:
    doc = {"messages": [{"role": "narrator", "content": "x"}, {"role": "user", "content": "y"}]}
    s = load_session(_write(tmp_path, doc), "openai-chat")
    assert [m.content for m in s.messages] == ["y"]
    assert any("narrator" in w for w in s.meta.warnings)


def test_every_field_comes_through_as_the_model_would_build_it(tmp_path: Path) -> None:
    """The importer passes pydantic only non-default fields; the messages must not differ."""
    doc = [
        {"role": "user", "content": "hi", "name": "ann", "model": 3},
        {
            "role": "assistant",
            "content": "",
            "refusal": "no",
            "name": "bot",
            "model": "gpt-x",
            "usage": {"prompt_tokens": 7, "completion_tokens": 2},
            "reasoning_content": "hmm",
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}},
                {"id": "c2", "type": "custom", "custom": {"name": "g", "input": "x"}},
                {"id": "", "type": "web", "function": {"name": "h", "arguments": {"q": 1}}},
                "not a call",
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "ok", "name": "ignored"},
        {"role": "tool", "tool_call_id": 5, "content": "orphan", "name": "named"},
        {"role": ["odd"], "content": "skipped"},
    ]
    session = load_session(_write(tmp_path, doc), "openai-chat")
    got = session.messages
    assert got[0] == Message(role="user", content="hi", name="ann")
    assert got[1] == Message(
        role="assistant",
        content="no",
        name="bot",
        model="gpt-x",
        usage=Usage(prompt_total=7, output=2, source="openai-chat usage.prompt_tokens"),
        reasoning="hmm",
        tool_calls=(
            ToolCall(id="c1", name="f", arguments="{}"),
            ToolCall(id="c2", name="g", arguments="x", type="custom"),
            ToolCall(id="call_1_2", name="h", arguments='{"q":1}', type="web"),
        ),
    )
    assert got[2] == Message(role="tool", content="ok", tool_call_id="c1", tool_name="f")
    assert got[3] == Message(role="tool", content="orphan", tool_name="named")
    assert len(got) == 4
    assert any("unknown role a list skipped" in w for w in session.meta.warnings)
