"""ShareGPT: the reference example, positional pairing, variants and containers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ctxtui.core.session.models import PartKind
from ctxtui.importers import load_session

EXAMPLES = Path("/work/shared/reference/examples")
needs_examples = pytest.mark.skipif(not EXAMPLES.is_dir(), reason="reference examples absent")


def _write(tmp_path: Path, value: Any, name: str = "data.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(value))
    return path


@needs_examples
def test_reference_example() -> None:
    s = load_session(EXAMPLES / "sharegpt.json")
    assert s.meta.format == "sharegpt"
    assert s.system_prompt == "You are a file assistant."
    assert [t.name for t in s.tools] == ["stat_file"]
    assert [m.role for m in s.messages] == ["user", "assistant", "tool", "assistant"]
    call = s.messages[1].tool_calls[0]
    assert call.name == "stat_file" and call.arguments == '{"path":"notes.txt"}'
    assert s.messages[2].tool_call_id == call.id and s.messages[2].content == '{"size": 2048}'
    assert s.call_of_result == {2: 1}
    assert s.messages[3].content == "notes.txt is 2 KiB."


def test_parallel_calls_pair_with_observations_in_order(tmp_path: Path) -> None:
    calls = [{"name": "a", "arguments": "{}"}, {"name": "b", "arguments": {"k": 1}}]
    conv = {
        "conversations": [
            {"from": "human", "value": "go"},
            {"from": "function_call", "value": json.dumps(calls)},
            {"from": "observation", "value": "ra"},
            {"from": "observation", "value": "rb"},
            {"from": "observation", "value": "stray"},
        ]
    }
    s = load_session(_write(tmp_path, [conv]))
    assert [c.name for c in s.messages[1].tool_calls] == ["a", "b"]
    assert s.messages[1].tool_calls[1].arguments == '{"k":1}'
    assert [m.tool_name for m in s.messages[2:4]] == ["a", "b"]
    assert s.results_of_call == {1: (2, 3)}
    assert s.orphan_results == (4,)
    assert any("no call before it" in w for w in s.meta.warnings)


def test_role_content_variant_and_images(tmp_path: Path) -> None:
    conv = {
        "conversations": [
            {"role": "user", "content": "<image>What is this?"},
            {"role": "assistant", "content": "A cat."},
        ],
        "images": ["img/cat.jpg"],
    }
    s = load_session(_write(tmp_path, conv), "sharegpt")
    assert [m.role for m in s.messages] == ["user", "assistant"]
    image = s.messages[0].parts[1]
    assert image.kind is PartKind.IMAGE and image.label == "img/cat.jpg"


def test_jsonl_takes_the_first_conversation_and_warns(tmp_path: Path) -> None:
    one = json.dumps({"conversations": [{"from": "human", "value": "first"}]})
    two = json.dumps({"conversations": [{"from": "human", "value": "second"}]})
    path = tmp_path / "data.jsonl"
    path.write_text(f"{one}\n{two}\n")
    s = load_session(path)
    assert s.meta.format == "sharegpt"
    assert [m.content for m in s.messages] == ["first"]
    assert any("2 conversations" in w for w in s.meta.warnings)


def test_unparsable_function_call_is_kept_as_arguments(tmp_path: Path) -> None:
    conv = {"conversations": [{"from": "function_call", "value": "not json"}]}
    s = load_session(_write(tmp_path, [conv]), "sharegpt")
    assert s.messages[0].tool_calls[0].arguments == "not json"
    assert s.meta.warnings
