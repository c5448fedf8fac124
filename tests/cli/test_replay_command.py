"""``ctxtui replay``: the ``ctxtui.replay/2`` contract, the table, one-line errors; and the
``reported`` block ``report --json`` gained."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ctxtui.cli.main import main
from ctxtui.samples import samples_dir
from tests.cli.chats import agent_chat

SAMPLES = samples_dir()
LONG = str(SAMPLES / "claude_code_replay.jsonl")
V1_REQUEST_KEYS = {"index", "message_index", "simulated_tokens", "reported_tokens", "events"}
COST_KEYS = {
    "model",
    "usage",
    "cost_usd",
    "cost_parts_usd",
    "cache_hit_ratio",
    "cache_miss",
    "simulated_cost",
}


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    assert main(["replay", *argv, "--json"]) == 0
    doc: dict[str, Any] = json.loads(capsys.readouterr().out)
    return doc


def test_replay_json_contract(capsys: pytest.CaptureFixture[str]) -> None:
    doc = _json(capsys, LONG, "--context-window", "8000", "--max-tokens", "1000")
    assert doc["schema"] == "ctxtui.replay/2"
    assert doc["session"]["format"] == "claude-code"
    assert doc["window"] == 8000
    requests = doc["requests"]
    assert len(requests) == 260
    for r in requests:
        assert set(r) >= V1_REQUEST_KEYS  # /2 keeps every /1 key
        assert set(r) - V1_REQUEST_KEYS == COST_KEYS
        assert isinstance(r["reported_tokens"], int)
        for e in r["events"]:
            assert e["kind"] in ("compaction", "overflow", "recorded_compaction")
        overflow = any(e["kind"] == "overflow" for e in r["events"])
        assert overflow == (r["simulated_tokens"] > doc["window"])
    assert len(doc["compactions"]) >= 3
    for c in doc["compactions"]:
        assert set(c) == {
            "request", "reason", "tokens_before", "tokens_after", "replaced", "retention",
        }  # fmt: skip
        assert c["reason"] in ("proactive", "overflow")
        assert requests[c["request"]]["simulated_tokens"] == c["tokens_after"]
    assert [(rc["trigger"], rc["pre_tokens"] > 0) for rc in doc["recorded_compactions"]] == [
        ("auto", True)
    ] * 3
    calibration = doc["calibration"]
    assert calibration["samples"] == 260
    assert set(calibration["tokenizers"]) >= {"plan", "picoclaw", "tiktoken:cl100k_base"}
    for figures in calibration["tokenizers"].values():
        assert set(figures) == {"median_abs_error", "bias"}
    assert calibration["fitted_chars_per_token"] == pytest.approx(3.3, abs=0.05)
    assert calibration["offset_tokens"] == pytest.approx(15_800, abs=200)


def test_replay_table_shows_events_and_the_calibration_sentence(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert (
        main(
            ["replay", LONG, "--preset", "plan", "--context-window", "8000", "--max-tokens", "1000"]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "recorded compaction (auto)" in out
    assert "compaction (proactive)" in out
    assert "the plan estimator undercounts this session by" in out
    assert "fitted 3.3 chars/token" in out
    assert "260 requests" in out


def test_replay_of_a_session_without_usage(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(agent_chat(4, ask="q {k}", reply="a {k}", tool_chars=500)))
    doc = _json(capsys, str(path))
    assert doc["requests"]
    assert all(r["reported_tokens"] is None for r in doc["requests"])
    assert doc["calibration"]["samples"] == 0
    assert doc["calibration"]["fitted_chars_per_token"] is None
    assert doc["recorded_compactions"] == []


def test_replay_bad_input_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text("this is not json\n")
    assert main(["replay", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    with pytest.raises(SystemExit) as refused:  # a knob out of range is refused at its flag
        main(["replay", LONG, "--context-window", "10"])
    assert refused.value.code == 2
    err = capsys.readouterr().err
    assert "--context-window" in err and err.count("\n") == 1


def test_report_json_carries_the_last_reported_request(
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = str(SAMPLES / "claude_code_compacted.jsonl")
    assert main(["report", path, "--json", "--tokenizer", "tiktoken:cl100k_base"]) == 0
    doc = json.loads(capsys.readouterr().out)
    reported = doc["reported"]
    assert reported == {
        "prompt_tokens": 18_050,
        "output_tokens": 75,
        "request": 11,  # numbered from the transcript's first, as replay numbers it
        "source": "anthropic input + cache_creation + cache_read",
    }
    assert "not Claude's" in doc["tokenizer"]["note"]


def test_report_json_reported_is_null_without_usage(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(agent_chat(2, ask="q {k}", reply="a {k}", tool_chars=100)))
    assert main(["report", str(path), "--json", "--tokenizer", "tiktoken:cl100k_base"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["reported"] is None
    assert "not Claude's" not in doc["tokenizer"]["note"]


def test_replay_shows_a_path_with_markup_literally(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "[bold]x"
    folder.mkdir()
    path = folder / "chat.json"
    path.write_text(json.dumps({"messages": [{"role": "user", "content": "[red]hi"}]}))
    assert main(["replay", str(path)]) == 0
    out = capsys.readouterr().out
    assert "[bold]x" in out.replace("\n", "")
    assert "0 requests" in out


def test_replay_calibrates_the_policys_tokenizer_first(
    capsys: pytest.CaptureFixture[str],
) -> None:
    doc = _json(capsys, str(SAMPLES / "codex_replay.jsonl"), "--preset", "picoclaw")
    tokenizers = doc["calibration"]["tokenizers"]
    assert list(tokenizers)[:2] == ["picoclaw", "plan"]
    # the plan estimator at its own 4 chars/token, not the preset's 2.5: it undercounts more
    assert tokenizers["plan"]["bias"] < tokenizers["picoclaw"]["bias"] < 0
    assert doc["calibration"]["sentence"].startswith("PicoClaw's estimator undercounts")


def test_replay_gives_one_figure_for_what_the_transcript_lacks(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The gap's split and the calibration once gave two offsets (7,213 and 7,308) in one
    output; the split is the one figure, the calibration keeps its chars/token."""
    codex = str(samples_dir() / "codex_rollout.jsonl")
    assert main(["replay", codex]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "the transcript lacks" in out
    assert "tokens not in the transcript" not in out
    assert "fitted 3.7 chars/token" in out
    assert main(["replay", codex, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    lacks = doc["gap"]["lacks_tokens"]
    assert f"{lacks:,} the transcript lacks" in out
    assert f"{round(doc['calibration']['offset_tokens']):,}" not in out


def test_a_codex_rollout_lists_its_compactions_as_events_not_warnings(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["replay", str(samples_dir() / "codex_replay.jsonl")]) == 0
    out = capsys.readouterr().out
    assert "warning: compacted" not in out
    assert out.count("recorded compaction: compacted at line") == 2
