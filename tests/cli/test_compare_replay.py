"""``ctxtui compare --replay``: each preset's simulated compactions and peak over the session."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ctxtui.cli.main import main
from ctxtui.samples import samples_dir
from tests.cli.chats import agent_chat

LONG = str(samples_dir() / "claude_code_replay.jsonl")
WINDOW = ("--context-window", "10000", "--max-tokens", "2048")
PRESETS = ("plan", "picoclaw-seahorse")


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(list(argv)) == 0
    return capsys.readouterr().out


def test_compare_replay_agrees_with_replay_for_each_preset(
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = _run(
        capsys, "compare", LONG, "--presets", ",".join(PRESETS), "--replay", "--json", *WINDOW
    )
    doc = json.loads(out)
    assert doc["schema"] == "ctxtui.compare/1"
    for entry in doc["presets"]:
        r = entry["replay"]
        replayed = json.loads(
            _run(capsys, "replay", LONG, "--preset", entry["preset"], "--json", *WINDOW)
        )
        requests = replayed["requests"]
        peak = max(q["simulated_tokens"] for q in requests)
        assert r["requests"] == len(requests) == 260  # the full history, as replay reads it
        assert r["compactions"] == len(replayed["compactions"])
        assert sum(r["compaction_reasons"].values()) == r["compactions"]
        assert r["peak_tokens"] == peak
        assert requests[r["peak_request"]]["simulated_tokens"] == peak
        assert r["recorded_compactions"] == len(replayed["recorded_compactions"]) == 3
        overflows = [q for q in requests if any(e["kind"] == "overflow" for e in q["events"])]
        assert r["overflow_requests"] == len(overflows)
    plan, seahorse = (e["replay"] for e in doc["presets"])
    assert plan["compactions"] == 3 and seahorse["compactions"] > plan["compactions"]
    assert plan["peak_tokens"] <= 10_000
    # seahorse's context holds every leaf summary until its condensed pass, run only once the
    # context is over the window, merges them (short_compaction.go: Compact, phase 2)
    assert seahorse["peak_tokens"] > 10_000 > seahorse["peak_tokens"] // 2


def test_compare_without_replay_leaves_it_null(capsys: pytest.CaptureFixture[str]) -> None:
    doc = json.loads(_run(capsys, "compare", LONG, "--presets", "plan", "--json", *WINDOW))
    assert doc["presets"][0]["replay"] is None


def test_compare_replay_table_names_compactions_and_peak(
    capsys: pytest.CaptureFixture[str],
) -> None:
    doc = json.loads(
        _run(capsys, "compare", LONG, "--presets", "plan", "--replay", "--json", *WINDOW)
    )
    r = doc["presets"][0]["replay"]
    out = _run(capsys, "compare", LONG, "--presets", "plan", "--replay", *WINDOW)
    text = " ".join(out.split())
    assert (
        f"replay 260 requests · {r['compactions']} simulated compactions "
        f"({r['compactions']} proactive) · peak {r['peak_tokens']:,} tok at request "
        f"{r['peak_request'] + 1}"
    ) in text


def test_compare_replay_of_a_session_without_its_own_compactions(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Twenty turns of a call, its output and a reply: forty requests, compacted in 2,000."""
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(agent_chat(20, ask="q {k}", reply="a {k}", tool_chars=2_000)))
    argv = ["compare", str(path), "--presets", "plan", "--replay"]
    window = ("--context-window", "2000", "--max-tokens", "500")
    doc = json.loads(_run(capsys, *argv, "--json", *window))
    r: dict[str, Any] = doc["presets"][0]["replay"]
    assert r["requests"] == 40 and r["recorded_compactions"] == 0
    assert r["compactions"] == 1 and r["compaction_reasons"] == {"proactive": 1}
    assert 0 < r["peak_tokens"] <= 2_000 and r["overflow_requests"] == 0
    assert "1 simulated compaction (1 proactive)" in " ".join(_run(capsys, *argv, *window).split())


def test_picoclaw_after_turn_summary_is_told_apart_from_the_replayed_trigger(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The long PicoClaw chat is past legacy's after-turn limit (more than 20 messages) and
    far under its window: the plan's "compacts now" is that after-turn summary, which replay
    runs once each turn has ended. The table says which each figure is."""
    chat = str(samples_dir() / "picoclaw_long_chat.jsonl")
    argv = ["compare", chat, "--presets", "picoclaw", "--replay"]
    entry = json.loads(_run(capsys, *argv, "--json"))["presets"][0]
    assert entry["compacts_now"] and entry["post_turn"]
    # 53 two-message turns: the history passes 20 messages at the 12th request (22 of them),
    # then every 9 turns (4 kept + 18 more): requests 12, 21, 30, 39 and 48
    assert entry["replay"]["compactions"] == 5
    assert entry["replay"]["compaction_reasons"] == {"proactive": 5}
    text = " ".join(_run(capsys, *argv).split())
    assert "compacts now" not in text
    assert (
        f"trigger at {entry['trigger']:,} tok · prompt now {entry['tokens']:,} tok · under it, "
        "past PicoClaw's after-turn limit: summarises after this turn"
    ) in text
    assert "5 simulated compactions (5 proactive)" in text


def test_over_the_trigger_is_about_the_next_request(capsys: pytest.CaptureFixture[str]) -> None:
    demo = str(samples_dir() / "demo.json")
    argv = ["compare", demo, "--presets", "picoclaw,plan"]
    pico, plan = json.loads(_run(capsys, *argv, "--json"))["presets"]
    assert pico["compacts_now"] and not pico["post_turn"] and not plan["compacts_now"]
    text = " ".join(_run(capsys, *argv).split())
    assert "over it: compacts before the next request" in text
    assert "under it: no compaction before the next request" in text
