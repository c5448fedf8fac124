"""``report --json`` and ``replay --json`` price the session: the ``cost`` and ``cache``
blocks over every recorded request, sub-agents added, a model without a price named."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ctxtui.cli.main import main
from ctxtui.samples import samples_dir

USAGE = {"input_tokens": 5, "cache_creation_input_tokens": 1000, "output_tokens": 50}


def _transcript(path: Path, model: str, session_id: str = "s") -> None:
    lines = [
        {
            "type": "user",
            "uuid": "u1",
            "parentUuid": None,
            "sessionId": session_id,
            "timestamp": "2026-03-02T09:00:00Z",
            "message": {"role": "user", "content": "hi"},
        },
        {
            "type": "assistant",
            "uuid": "u2",
            "parentUuid": "u1",
            "sessionId": session_id,
            "timestamp": "2026-03-02T09:00:05Z",
            "message": {
                "id": f"m-{session_id}",
                "role": "assistant",
                "model": model,
                "content": [{"type": "text", "text": "hello"}],
                "usage": USAGE,
            },
        },
    ]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    assert main([*argv, "--json"]) == 0
    doc: dict[str, Any] = json.loads(capsys.readouterr().out)
    return doc


def test_a_model_without_a_price_costs_null_with_a_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "s.jsonl"
    _transcript(path, "claude-nonexistent-9")
    for command in ("report", "replay"):
        doc = _json(capsys, command, str(path))
        assert doc["cost"]["requests_unpriced"] == 1
        assert doc["cost"]["unpriced_models"] == ["claude-nonexistent-9"]
        assert any(
            "no price for model claude-nonexistent-9" in w for w in doc["session"]["warnings"]
        )
    assert doc["requests"][0]["cost_usd"] is None


def test_subagents_files_are_added_to_the_total(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "s.jsonl"
    _transcript(path, "claude-sonnet-4-5")
    _transcript(tmp_path / "s" / "subagents" / "agent-a1.jsonl", "claude-sonnet-4-5", "a1")
    cost = _json(capsys, "report", str(path))["cost"]
    assert cost["subagents"] == 1
    assert cost["total_with_subagents_usd"] == pytest.approx(2 * cost["total_usd"], rel=1e-12)


def test_report_prices_the_requests_before_the_last_compaction_too(
    capsys: pytest.CaptureFixture[str],
) -> None:
    sample = str(samples_dir() / "claude_code_replay.jsonl")
    report = _json(capsys, "report", sample)
    replay = _json(capsys, "replay", sample)
    assert report["cost"]["requests"] == len(replay["requests"]) == 260
    assert report["cost"]["total_usd"] == pytest.approx(
        sum(r["cost_usd"] for r in replay["requests"]), rel=1e-12
    )
    assert "every recorded request" in report["cost"]["covers"]
    assert report["cost"]["price_source"].startswith("genai-prices ")


def test_report_gives_each_tool_its_whole_session_carry(
    capsys: pytest.CaptureFixture[str],
) -> None:
    sample = str(samples_dir() / "claude_code_replay.jsonl")
    report = _json(capsys, "report", sample)
    carry = report["carry"]
    assert carry["messages_usd"] + carry["unattributed_usd"] == pytest.approx(
        carry["input_cost_usd"], rel=1e-12
    )
    by_part = report["cost"]["by_part_usd"]
    input_cost = by_part["input"] + by_part["cache_write"] + by_part["cache_read"]
    assert carry["input_cost_usd"] == pytest.approx(input_cost, rel=1e-12)
    carried = {t["name"]: t["cost_usd"] for t in carry["tools"]}
    for tool in report["tools"]:
        assert tool["carry_usd"] == carried[tool["name"]] > 0
        # the whole session re-sent far more than the context after the last compaction holds
        assert tool["carry_tokens"] > tool["sent_tokens"]


def test_compare_replay_prices_each_preset(capsys: pytest.CaptureFixture[str]) -> None:
    sample = str(samples_dir() / "claude_code_cache_story.jsonl")
    doc = _json(capsys, "compare", sample, "--replay", "--presets", "plan,codex")
    for entry in doc["presets"]:
        replay = entry["replay"]
        assert replay["recorded_cost_usd"] == pytest.approx(0.5388752, rel=1e-9)
        assert replay["simulated_cost_usd"] > 0
        assert 0 < replay["simulated_cache_hit_ratio"] < 1


def test_fleet_rows_carry_the_sessions_cost(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import shutil

    shutil.copy(samples_dir() / "claude_code_cache_story.jsonl", tmp_path / "s.jsonl")
    argv = ["fleet", str(tmp_path), "--no-cache", "--no-simulate", "--workers", "1"]
    doc = _json(capsys, *argv)
    row = doc["sessions"][0]
    assert row["cost_usd"] == pytest.approx(0.5388752, rel=1e-9)
    assert row["cache_hit_ratio"] == pytest.approx(0.8679026538326644, rel=1e-9)


@pytest.mark.parametrize("command", ["replay", "report"])
def test_help_names_the_price_source_and_its_version(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from ctxtui.core.pricing.price_source import PRICE_VERSION

    with pytest.raises(SystemExit) as done:
        main([command, "--help"])
    assert done.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    assert f"genai-prices {PRICE_VERSION}" in text and "docs/cost.md" in text


def test_report_table_ends_with_the_cost_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", str(samples_dir() / "claude_code_cache_story.jsonl")]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "recorded cost $0.5389 over 24 requests · cache hit ratio 86.8%" in text
    assert "cache misses: 1 compaction, 1 first request, 1 model changed, 1 cache expired" in text


def test_whatif_sentence_counts_one_compaction_in_the_singular() -> None:
    from ctxtui.commands.cost_blocks import whatif_sentence

    side = {"cost_usd": 0.5, "cache_hit_ratio": 0.9, "compactions": 1}
    words = whatif_sentence({"preset": "plan", "recorded": side, "simulated": side})
    assert "· 1 compaction against 1" in words
    assert "1 compactions" not in words
