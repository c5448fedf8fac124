"""Detection picks the right format for every reference example (formats.md §10.1, §11)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from ctxtui.importers import FORMAT_NAMES, FORMATS, detect_format, importer, load_session
from ctxtui.importers._stream import open_source

EXAMPLES = Path("/work/shared/reference/examples")

EXPECTED = {
    "anthropic_messages.json": "anthropic",
    "anthropic_response_usage.json": "anthropic",
    "claude_code_session.jsonl": "claude-code",
    "codex_rollout.jsonl": "codex",
    "codex_rollout_legacy_2025.jsonl": "codex",
    "openai_chat.json": "openai-chat",
    "openai_chat_legacy_function.json": "openai-chat",
    "openai_responses_input.json": "openai-responses",
    "opencode_demo.db": "opencode",
    "opencode_storage": "opencode",
    "picoclaw_legacy_session.json": "picoclaw",
    "picoclaw_seahorse_demo.db": "picoclaw",
    "picoclaw_session.jsonl": "picoclaw",
    "picoclaw_session.meta.json": "picoclaw",
    "sharegpt.json": "sharegpt",
}

pytestmark = pytest.mark.skipif(not EXAMPLES.is_dir(), reason="reference examples not present")


def test_all_fifteen_examples_are_covered() -> None:
    assert sorted(p.name for p in EXAMPLES.iterdir()) == sorted(EXPECTED)


@pytest.mark.parametrize(("file", "expected"), sorted(EXPECTED.items()))
def test_reference_example_is_detected(file: str, expected: str, tmp_path: Path) -> None:
    assert _detect(EXAMPLES / file) == expected


@pytest.mark.parametrize(
    ("file", "expected"),
    [
        ("anthropic_messages.json", "anthropic"),
        ("openai_chat.json", "openai-chat"),
        ("openai_responses_input.json", "openai-responses"),
        ("sharegpt.json", "sharegpt"),
        ("picoclaw_legacy_session.json", "picoclaw"),
        ("codex_rollout.jsonl", "codex"),
        ("claude_code_session.jsonl", "claude-code"),
    ],
)
def test_detection_uses_content_not_the_file_name(file: str, expected: str, tmp_path: Path) -> None:
    copy = tmp_path / "renamed.txt"
    shutil.copyfile(EXAMPLES / file, copy)
    assert _detect(copy) == expected


def test_path_hint_for_a_codex_rollout(tmp_path: Path) -> None:
    path = tmp_path / "sessions" / "2026" / "01" / "05" / "rollout-2026-01-05T10-00-00-x.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text('{"role": "user", "content": "hi"}\n')
    assert _detect(path) == "codex"


def test_path_hint_for_claude_code(tmp_path: Path) -> None:
    path = tmp_path / ".claude" / "projects" / "-home-me" / "abc.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text('{"role": "user", "content": "hi"}\n')
    assert _detect(path) == "claude-code"


def test_fine_tuning_jsonl_is_openai_chat(tmp_path: Path) -> None:
    path = tmp_path / "train.jsonl"
    path.write_text('{"messages": [{"role": "user", "content": "hi"}]}\n')
    assert _detect(path) == "openai-chat"


def test_native_envelope_is_detected(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    path.write_text('{"schema": "ctxtui.session/1", "session": {"messages": []}}')
    assert _detect(path) == "native"


def test_registry_lists_nine_formats_in_detection_order() -> None:
    assert FORMAT_NAMES == (
        "native",
        "claude-code",
        "codex",
        "opencode",
        "picoclaw",
        "anthropic",
        "openai-responses",
        "sharegpt",
        "openai-chat",
    )
    assert all(f.title and f.description and f.extensions for f in FORMATS)


@pytest.mark.parametrize("name", FORMAT_NAMES)
def test_each_available_importer_exposes_the_interface(name: str) -> None:
    module = importer(name)
    assert module.FORMAT.name == name
    assert callable(module.sniff) and callable(module.load)


def test_leading_system_messages_become_the_system_prompt(tmp_path: Path) -> None:
    """A system message first in the list is the system prompt: never summarised or dropped."""
    doc = {
        "messages": [
            {"role": "system", "content": "Rule one."},
            {"role": "developer", "content": "Rule two."},
            {"role": "user", "content": "hi"},
            {"role": "system", "content": "mid-conversation note"},
            {"role": "assistant", "content": "hello", "tool_calls": []},
        ]
    }
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    s = load_session(path)
    assert s.system_prompt == "Rule one.\n\nRule two."
    assert [m.role for m in s.messages] == ["user", "system", "assistant"]


def _detect(path: Path) -> str:
    with open_source(path) as source:
        return detect_format(source)


SAMPLES = Path(__file__).resolve().parents[2] / "sample_sessions"


@pytest.mark.parametrize(
    ("sample", "where", "expected"),
    [
        ("claude_code_compacted.jsonl", "rollout-x.jsonl", "claude-code"),  # Codex's name
        ("codex_rollout.jsonl", ".claude/projects/x/s.jsonl", "codex"),  # Claude Code's place
        ("claude_code_compacted.jsonl", "cc.jsonl", "claude-code"),  # beside a PicoClaw meta
    ],
)
def test_a_file_named_like_another_agents_is_read_as_what_it_holds(
    tmp_path: Path, sample: str, where: str, expected: str
) -> None:
    """The path hint chose an importer that read nothing of it: a session of 0 messages and
    exit 0, a wrong answer. What the file holds decides then."""
    path = tmp_path / where
    path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(SAMPLES / sample, path)
    (tmp_path / "cc.meta.json").write_text('{"key": "k", "skip": 0}')
    session = load_session(path)
    assert session.meta.format == expected
    assert session.messages == load_session(SAMPLES / sample).messages
