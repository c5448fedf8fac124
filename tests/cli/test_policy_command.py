"""``ctxtui policy``: the effective policy, each knob with its origin."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ctxtui.cli.main import main
from tests.core.tuning.test_observed import PLANTED, planted_transcript


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    settings = {"env": {"CLAUDE_AUTOCOMPACT_PCT_OVERRIDE": "95"}, "autoCompactWindow": 150_000}
    (home / ".claude/settings.json").write_text(json.dumps(settings))
    monkeypatch.setenv("HOME", str(home))
    for name in ("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE", "CLAUDE_CODE_AUTO_COMPACT_WINDOW"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    return home


def _doc(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, object]:
    assert main(["policy", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]


def test_the_sessions_agent_preset_takes_its_configured_values(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = planted_transcript(tmp_path / "s.jsonl", PLANTED, [])
    doc = _doc(capsys, str(path), "--tail-turns", "3")
    assert doc["schema"] == "ctxtui.policy/1"
    assert (doc["preset"], doc["preset_origin"]) == ("claude-code", "from the transcript")
    origins = {row["knob"]: row["origin"] for row in doc["knobs"]}  # type: ignore[attr-defined]
    assert origins["context_window"] == "~/.claude/settings.json autoCompactWindow"
    assert origins["trigger_buffer"] == (
        "~/.claude/settings.json env.CLAUDE_AUTOCOMPACT_PCT_OVERRIDE"
    )
    assert origins["trigger_output_cap"] == "preset claude-code"
    assert origins["tail_min_turns"] == "--tail-turns"
    assert origins["chars_per_token"] == "default"
    # 95 % of 150,000 − 20,000 asked, capped at the default threshold 117,000
    assert doc["trigger"] == 117_000
    assert doc["observed"]["auto"]["count"] == 5  # type: ignore[index]


def test_a_flag_wins_over_the_agents_setting(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = _doc(capsys, "--preset", "claude-code", "--context-window", "300000")
    origins = {row["knob"]: row["origin"] for row in doc["knobs"]}  # type: ignore[attr-defined]
    assert origins["context_window"] == "--context-window"
    assert "observed" not in doc


def test_text_lists_every_knob_and_its_origin(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["policy", "--preset", "codex"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("preset: codex (from --preset)\ntrigger: 244,800 tokens")
    assert "compact_trigger_ratio" in out and "preset codex" in out


def test_an_unreadable_settings_file_is_named_not_fatal(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (home / ".claude/settings.json").write_text("{not json")
    assert main(["policy", "--preset", "claude-code"]) == 0
    out = capsys.readouterr().out
    assert "could not read ~/.claude/settings.json: " in out
    assert "trigger: 167,000 tokens" in out  # the preset's own, nothing configured


def test_replay_takes_the_configured_trigger_too(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = planted_transcript(tmp_path / "s.jsonl", PLANTED, [])
    assert main(["replay", str(path), "--preset", "claude-code", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    # autoCompactWindow 150,000, 95 % capped at the default threshold: 117,000
    assert doc["policy"]["context_window"] == 150_000
    assert doc["trigger_tokens"] == 117_000 - 1
