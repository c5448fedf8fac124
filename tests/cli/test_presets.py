"""Each preset's published figures, asserted through ``report --json`` and ``compare --json``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ctxtui.cli import main
from tests.cli.chats import agent_chat


@pytest.fixture
def chat(tmp_path: Path) -> Path:
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(agent_chat(3, ask="ask {k}", reply="done {k}", tool_chars=400)))
    return path


def _report(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    assert main(["report", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]


@pytest.mark.parametrize(
    ("preset", "window", "output", "trigger"),
    [
        ("opencode", 200_000, 64_000, 148_000),
        ("opencode", 128_000, 16_384, 95_232),
        ("opencode", 200_000, 8_192, 183_616),
        ("opencode", 1_000_000, 32_000, 948_000),
        ("codex", 272_000, 0, 244_800),
        ("codex", 200_000, 0, 180_000),
        ("codex", 128_000, 0, 115_200),
        ("claude-code", 200_000, 20_000, 167_000),
        ("claude-code", 200_000, 64_000, 167_000),
        ("claude-code", 200_000, 8_192, 178_808),
        ("claude-code", 1_000_000, 32_000, 967_000),
    ],
)
def test_trigger_figures(
    chat: Path,
    capsys: pytest.CaptureFixture[str],
    preset: str,
    window: int,
    output: int,
    trigger: int,
) -> None:
    argv = [str(chat), "--preset", preset, "--context-window", str(window)]
    r = _report(capsys, *argv, "--max-tokens", str(output))
    assert r["totals"]["trigger"] == trigger
    assert r["policy"]["window_source"] in ("user", "preset")  # the same figure either way


def test_claude_code_categories_hold_the_autocompact_buffer(
    chat: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    r = _report(capsys, str(chat), "--preset", "claude-code", "--context-window", "200000")
    cats = {c["name"]: c["tokens"] for c in r["totals"]["categories"]}
    assert list(cats) == [
        "system prompt",
        "tool definitions",
        "messages",
        "free",
        "autocompact buffer",
    ]
    assert cats["autocompact buffer"] == 33_000  # 20,000 + 13,000
    assert sum(cats.values()) == 200_000


def _claude_code_file(tmp_path: Path, model: str) -> Path:
    lines = [
        {
            "type": "user",
            "uuid": "u1",
            "parentUuid": None,
            "sessionId": "s",
            "message": {"role": "user", "content": "hello"},
        },
        {
            "type": "assistant",
            "uuid": "a1",
            "parentUuid": "u1",
            "sessionId": "s",
            "message": {
                "role": "assistant",
                "model": model,
                "content": [{"type": "text", "text": "hi"}],
            },
        },
    ]
    path = tmp_path / "cc.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    return path


@pytest.mark.parametrize("model", ["claude-sonnet-4-5-20250929", "claude-sonnet-4-5"])
def test_a_claude_sonnet_transcript_opens_with_200k(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], model: str
) -> None:
    r = _report(capsys, str(_claude_code_file(tmp_path, model)), "--preset", "claude-code")
    assert r["totals"]["window"] == 200_000
    assert r["policy"]["window_source"] == "registry"
    assert r["totals"]["trigger"] == 167_000


def test_a_codex_rollout_opens_with_its_recorded_window(
    capsys: pytest.CaptureFixture[str],
) -> None:
    sample = Path(__file__).resolve().parents[2] / "sample_sessions" / "codex_rollout.jsonl"
    r = _report(capsys, str(sample), "--preset", "codex")
    assert r["totals"]["window"] == 272_000
    assert r["policy"]["window_source"] == "transcript"
    assert r["totals"]["trigger"] == 244_800


def test_compare_json(chat: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["compare", str(chat), "--presets", "plan,picoclaw,opencode,codex,claude-code"]
    assert main([*argv, "--json", "--context-window", "200000"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["schema"] == "ctxtui.compare/1"
    names = [p["preset"] for p in doc["presets"]]
    assert names == ["plan", "picoclaw", "opencode", "codex", "claude-code"]
    by = {p["preset"]: p for p in doc["presets"]}
    assert by["codex"]["trigger"] == 180_000
    assert by["opencode"]["trigger"] == 148_000
    assert by["claude-code"]["trigger"] == 167_000
    for p in doc["presets"]:
        assert p["window"] == 200_000
        assert {"kept", "dropped", "tail"} <= set(p["zones"])
        assert p["after_compaction"]["requested"] <= p["requested"]
    codex_after = by["codex"]["after_compaction"]
    assert codex_after["messages"] == 3 + 1  # the three user messages and the summary


def test_presets_lists_every_preset(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["presets"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in out] == [
        "plan",
        "picoclaw",
        "picoclaw-seahorse",
        "opencode",
        "codex",
        "claude-code",
    ]


def _one_message(tmp_path: Path, chars: int) -> Path:
    path = tmp_path / "one.json"
    path.write_text(json.dumps({"messages": [{"role": "user", "content": "x" * chars}]}))
    return path


def test_codex_context_left_with_its_baseline(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # one user message of 129,988 characters: 130,000 tokens at 1 character per token
    # (the estimator charges 12 characters per message)
    path = _one_message(tmp_path, 129_988)
    argv = ["--preset", "codex", "--tokenizer", "plan", "--chars-per-token", "1"]
    r = _report(capsys, str(path), *argv, "--context-window", "272000")
    assert r["totals"]["tokens"] == 130_000
    assert r["totals"]["context_left"] == 54.6
    r = _report(capsys, str(path), *argv, "--context-window", "258400")
    assert r["totals"]["context_left"] == 52.1
