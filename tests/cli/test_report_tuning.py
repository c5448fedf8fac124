"""``report`` says what the agent is configured with and the trigger it was seen to use."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ctxtui.cli.main import main
from tests.core.tuning.test_observed import MANUAL, PLANTED, planted_transcript


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    settings = {"env": {"CLAUDE_AUTOCOMPACT_PCT_OVERRIDE": "60"}}
    (home / ".claude/settings.json").write_text(json.dumps(settings))
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE", raising=False)
    monkeypatch.chdir(tmp_path)
    return home


def test_report_json_has_observed_and_configured(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = planted_transcript(tmp_path / "s.jsonl", PLANTED, MANUAL)
    assert main(["report", str(path), "--preset", "claude-code", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["observed"]["auto"] == {
        "count": 5, "low": 155_001, "high": 159_897, "window": 188_001
    }  # fmt: skip
    assert report["observed"]["manual"] == MANUAL
    [configured] = report["configured"]
    assert configured["knob"] == "trigger_buffer"
    assert configured["origin"] == "~/.claude/settings.json env.CLAUDE_AUTOCOMPACT_PCT_OVERRIDE"
    assert report["observed"]["agreement"].endswith("the override was not honoured")


def test_report_text_says_it_in_words(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = planted_transcript(tmp_path / "s.jsonl", PLANTED, [])
    assert main(["report", str(path), "--preset", "claude-code"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "configured: trigger_buffer" in out
    assert "5 automatic compactions at 155,001–159,897" in out
    assert "configured 60 % = 108,000" in out


def test_a_plan_preset_reads_no_agent_settings(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = planted_transcript(tmp_path / "s.jsonl", PLANTED, [])
    assert main(["report", str(path), "--json", "--preset", "plan"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["configured"] == [] and report["observed"]["auto"]["count"] == 5


def test_html_report_draws_the_tune_figure_only_when_asked(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sample = Path(__file__).resolve().parents[2] / "sample_sessions/claude_code_replay.jsonl"
    page = tmp_path / "page.html"
    assert main(["report", str(sample), "--html", "-o", str(page)]) == 0
    text = page.read_text()
    assert "<h2>Tuning</h2>" in text and 'id="tune"' not in text  # the observed band only
    argv = ["report", str(sample), "--preset", "claude-code", "--html", "--tune", "-o", str(page)]
    assert main([*argv, "--force"]) == 0
    text = page.read_text()
    assert text.count('<circle data-candidate="') == 10  # one per claude-code candidate
    assert "R recommended" in text and "configured: trigger_buffer" in text


def test_html_tune_figure_of_an_unpriced_session_says_so(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sample = Path(__file__).resolve().parents[2] / "sample_sessions/picoclaw_long_chat.jsonl"
    page = tmp_path / "page.html"
    assert main(["report", str(sample), "--html", "--tune", "-o", str(page)]) == 0
    text = page.read_text()
    assert text.count('<circle data-candidate="') == 30  # PicoClaw's 10 × 3 candidates
    figure = text[text.index('id="tune"') :]
    figure = figure[: figure.index("</svg>")]
    assert "dollars unknown: no request of these sessions was priced" in figure
    assert "$0.0000" not in figure
