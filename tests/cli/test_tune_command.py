"""``ctxtui tune``: real replays of real sessions, the document and its table."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from ctxtui.cli.main import main
from ctxtui.fleet.job import Target
from ctxtui.fleet.tune import TuneSpec, run_tune, tune_session

REPO = Path(__file__).resolve().parents[2]
SAMPLES = (
    "claude_code_replay.jsonl",
    "claude_code_cache_story.jsonl",
    "claude_code_compacted.jsonl",
)


@pytest.fixture
def fleet(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    directory = tmp_path / "fleet"
    directory.mkdir()
    for k, name in enumerate(SAMPLES):
        shutil.copy(REPO / "sample_sessions" / name, directory / f"{k}-{name}")
    return directory


def _doc(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    capsys.readouterr()
    assert main(["tune", *argv, "--json"]) == 0
    doc: dict[str, Any] = json.loads(capsys.readouterr().out)
    return doc


def test_the_document(fleet: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = _doc(capsys, str(fleet), "--agent", "claude-code", "--workers", "1")
    assert doc["schema"] == "ctxtui.tune/1" and doc["agent"] == "claude-code"
    assert len(doc["sessions"]) == 3 and len(doc["train"]) == 2 and len(doc["test"]) == 1
    assert doc["knobs"][0]["agent_key"] == "CLAUDE_AUTOCOMPACT_PCT_OVERRIDE"
    assert len(doc["candidates"]) == 10
    first = doc["candidates"][0]
    assert set(first) >= {"knobs", "cost_usd", "compactions", "overflows", "lost_needed", "peak"}
    assert first["cost_usd"] is not None  # the samples' usage is priced
    assert doc["recommended"] in doc["pareto"]
    assert all(doc["candidates"][i]["overflows"] == 0 for i in doc["pareto"])
    assert doc["held_out"]["sessions"] == 1
    # 3 automatic compactions in one sample, 1 in another; the manual one is only listed
    assert doc["observed"]["auto"]["count"] == 4 and doc["observed"]["manual"] == [36_474]
    assert doc["errors"] == [] and doc["interrupted"] is False


def test_the_table(fleet: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tune", str(fleet), "--agent", "codex", "--workers", "1", "--seed", "5"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("tune codex: 11 candidates over 3 sessions")
    assert "model_auto_compact_token_limit=" in out and "recommended" in out
    assert "held out: " in out


def test_a_replay_lowers_the_compactions_a_lower_trigger_brings(fleet: Path) -> None:
    """One session, every candidate: a lower override compacts at least as often."""
    path = str(next(fleet.glob("0-*")))
    spec = TuneSpec("plan", "plan", tuple((("compact_trigger_ratio", r),) for r in (0.2, 1.0)))
    result = tune_session(Target(path), spec)
    low, high = result.scores
    assert low is not None and high is not None
    assert low.compactions > high.compactions


def test_stopping_keeps_what_finished(fleet: Path) -> None:
    targets = [Target(str(p)) for p in sorted(fleet.iterdir())]
    spec = TuneSpec("claude-code", "claude-code", ((("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE", 50),),))
    finished: list[str] = []
    run = run_tune(targets, spec, on_progress=finished.append, should_stop=lambda: bool(finished))
    assert run.interrupted and len(run.results()) == 1


def test_no_session_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "empty").mkdir()
    assert main(["tune", str(tmp_path / "empty"), "--agent", "codex"]) == 2
    assert capsys.readouterr().err.strip() == (
        "ctxtui tune: error: no codex sessions found (give PATHS, or see 'ctxtui sessions')"
    )


def test_write_config_prints_the_settings(fleet: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["tune", str(fleet), "--agent", "claude-code", "--workers", "1", "--write-config"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert out.startswith('# ~/.claude/settings.json, merged:\n{\n  "env": {')
    assert "(now unset)" in out


def test_write_config_to_a_file_keeps_a_backup_and_needs_force(
    fleet: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "settings.json"
    target.write_text('{"model": "opus"}\n')
    argv = ["tune", str(fleet), "--agent", "claude-code", "--workers", "1", "-o", str(target)]
    assert main(argv) == 2
    assert "--force" in capsys.readouterr().err
    assert target.read_text() == '{"model": "opus"}\n'
    assert main([*argv, "--force"]) == 0
    written = json.loads(target.read_text())
    assert written["model"] == "opus" and "CLAUDE_AUTOCOMPACT_PCT_OVERRIDE" in written["env"]
    [backup] = tmp_path.glob("settings.json.ctxtui-*.bak")
    assert backup.read_text() == '{"model": "opus"}\n'
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("settings")) == [
        "settings.json", backup.name
    ]  # fmt: skip


def test_write_config_to_dash_prints_and_writes_no_file(
    fleet: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    argv = ["tune", str(fleet), "--agent", "claude-code", "--workers", "1", "-o", "-"]
    assert main(argv) == 0
    assert capsys.readouterr().out.startswith("# ~/.claude/settings.json, merged:")
    assert not (tmp_path / "-").exists()


def test_write_config_never_over_a_session_it_read(
    fleet: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    session = sorted(fleet.iterdir())[0]
    before = session.read_bytes()
    argv = ["tune", str(fleet), "--agent", "claude-code", "--workers", "1"]
    assert main([*argv, "-o", str(session), "--force"]) == 2
    assert "refusing to overwrite" in capsys.readouterr().err
    assert session.read_bytes() == before
    assert sorted(fleet.iterdir()) == sorted(p for p in fleet.iterdir() if ".bak" not in p.name)


def test_an_interrupted_run_writes_no_settings(
    fleet: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A point chosen on the sessions scored before Ctrl+C is not the run's: nothing is
    written, the user's file stays as it was, and the exit says it was interrupted."""
    import ctxtui.fleet.tune as tune_module

    real = tune_module.run_tune

    def interrupted(*args: Any, **kwargs: Any) -> tune_module.TuneRun:
        run = real(*args, **kwargs)
        run.interrupted = True
        return run

    monkeypatch.setattr(tune_module, "run_tune", interrupted)
    target = tmp_path / "settings.json"
    target.write_text('{"model": "opus"}\n')
    argv = ["tune", str(fleet), "--agent", "claude-code", "--workers", "1"]
    assert main([*argv, "-o", str(target), "--force"]) == 130
    assert "no settings written" in capsys.readouterr().err
    assert target.read_text() == '{"model": "opus"}\n'
    assert not list(tmp_path.glob("settings.json.ctxtui-*.bak"))
    assert main([*argv, "--write-config"]) == 130
    assert capsys.readouterr().out == ""


def test_a_hostile_file_name_is_shown_not_acted_on(
    fleet: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An error row names the file once, its escape sequences as pictures."""
    hostile = fleet / "e\x1b]0;PWNED\x07\x1b[31m.jsonl"
    hostile.write_bytes(b"")
    assert main(["tune", str(fleet), "--agent", "claude-code", "--workers", "1"]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out
    [line] = [line for line in out.splitlines() if line.startswith("error: ")]
    assert line.count("PWNED") == 1 and "␛]0;PWNED␇␛[31m.jsonl" in line


def test_write_config_refuses_an_agents_store(
    fleet: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    store = tmp_path / "home/.codex/sessions"
    store.mkdir(parents=True)
    argv = ["tune", str(fleet), "--agent", "codex", "--workers", "1", "-o", str(store / "x.toml")]
    assert main(argv) == 2
    assert "session store" in capsys.readouterr().err


@pytest.mark.parametrize("agent", ["claude-code", "codex", "plan"])
def test_a_walk_reused_for_a_higher_trigger_is_the_walk_itself(fleet: Path, agent: str) -> None:
    """A candidate whose trigger is above one that never fired takes that walk's score; each
    candidate replayed alone scores the same (plan's low ratios do compact these sessions)."""
    from ctxtui.core.tuning.space import SPACES, grid, preset_of

    candidates = tuple(grid(SPACES[agent]))
    if agent == "plan":
        ratios = (0.05, 0.1, 0.2, 0.6, 1.0)
        candidates = tuple((("compact_trigger_ratio", r),) for r in ratios)
    spread = False
    for path in sorted(fleet.iterdir()):
        together = tune_session(Target(str(path)), TuneSpec(agent, preset_of(agent), candidates))
        alone = [
            tune_session(Target(str(path)), TuneSpec(agent, preset_of(agent), (c,))).scores[0]
            for c in candidates
        ]
        assert list(together.scores) == alone
        compacted = [s.compactions for s in alone if s is not None]
        spread = spread or max(compacted) > min(compacted) == 0
    assert agent != "plan" or spread


def test_an_unreadable_session_is_an_error_row_not_a_failure(
    fleet: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (fleet / "broken.jsonl").write_bytes(b"\x00\x01 not a transcript\n")
    doc = _doc(capsys, str(fleet), "--agent", "claude-code", "--workers", "1")
    assert [e["path"] for e in doc["errors"]] == [str(fleet / "broken.jsonl")]
    assert str(fleet / "broken.jsonl") not in doc["train"] + doc["test"]
    assert doc["recommended"] is not None


@pytest.mark.parametrize("command", ["fleet", "tune"])
def test_an_unknown_format_is_a_usage_error(
    fleet: Path, command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Said once, before any file is read: not as an error row per file with exit 0."""
    with pytest.raises(SystemExit) as exited:
        main([command, str(fleet), "--format", "bogus", "--workers", "1"])
    assert exited.value.code == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert "unknown format 'bogus'; known formats: " in line and "claude-code" in line
