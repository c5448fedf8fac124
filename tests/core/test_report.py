"""The ``ctxtui.report/1`` document: every key, its type, and the figures taken from the plan."""

from __future__ import annotations

import json
from typing import Any

from rich.console import Console

from ctxtui.core.policy import knob_names
from ctxtui.core.report import build_report, render_report
from tests.core.plans import hand_plan, small_session

TOP_KEYS = {
    "schema",
    "session",
    "policy",
    "tokenizer",
    "totals",
    "fresh_tail",
    "messages",
    "prune",
    "compaction",
    "overflow",
    "reported",
}


def _report() -> dict[str, Any]:
    return build_report(small_session(), hand_plan(), None)


def test_keys_and_types() -> None:
    r = _report()
    assert set(r) == TOP_KEYS
    assert r["schema"] == "ctxtui.report/1"
    assert r["session"] == {
        "path": "s.json",
        "format": "openai",
        "message_count": 5,
        "warnings": ["w1"],
    }
    assert set(r["policy"]) >= set(knob_names())
    assert r["tokenizer"] == {
        "requested": "tiktoken:nope",
        "used": "plan",
        "note": "nope is not available",
    }
    assert set(r["totals"]) == {
        "tokens",
        "window",
        "budget",
        "used_ratio",
        "output_reserve",
        "requested",
    }
    assert isinstance(r["totals"]["used_ratio"], float)
    assert set(r["fresh_tail"]) == {"start", "budget", "tokens", "reason"}
    assert set(r["prune"]) == {"pruned", "tokens_freed"}
    assert set(r["compaction"]) == {"needed", "reason", "replaced", "tokens_before", "tokens_after"}
    for m in r["messages"]:
        assert set(m) == {
            "index",
            "role",
            "tokens",
            "sent_tokens",
            "zone",
            "pruned",
            "truncated",
            "tool_call_ids",
            "tool_call_id",
        }
    json.dumps(r)  # serialisable as is


def test_figures_come_from_the_plan() -> None:
    plan = hand_plan()
    r = _report()
    assert r["totals"]["tokens"] == plan.totals.tokens == 7 + 10 + 20 + 10 + 5 + 3
    assert r["totals"]["budget"] == 800
    assert r["totals"]["used_ratio"] == round(plan.totals.requested / 1_000, 6)
    assert r["totals"]["requested"] == plan.totals.requested
    assert r["totals"]["requested"] == r["totals"]["tokens"] + r["totals"]["output_reserve"]
    assert r["fresh_tail"] == {"start": 3, "budget": 2_000, "tokens": 8, "reason": "min_turns"}
    assert [m["zone"] for m in r["messages"]] == ["dropped", "kept", "kept", "tail", "tail"]
    assert [m["tokens"] for m in r["messages"]] == [10, 20, 100, 5, 3]
    assert [m["sent_tokens"] for m in r["messages"]] == [10, 20, 10, 5, 3]  # #2 pruned
    assert [m["pruned"] for m in r["messages"]] == [False, False, True, False, False]
    assert r["messages"][1]["tool_call_ids"] == ["c1"]
    assert r["messages"][2]["tool_call_id"] == "c1"
    assert r["prune"] == {"pruned": [2], "tokens_freed": 90}
    assert r["compaction"] == {
        "needed": True,
        "reason": "proactive",
        "replaced": [0, 0],
        "tokens_before": plan.totals.requested,
        "tokens_after": plan.totals.requested,
    }
    assert r["overflow"] is None


def test_overflow_block() -> None:
    plan = hand_plan((10, 20, 100, 50, 3), window=256)
    r = build_report(small_session(), plan, None)
    assert r["overflow"] == {
        "model": "m1",
        "context_window": 256,
        "requested_tokens": plan.totals.requested,
        "reason": "test",
    }
    assert r["totals"]["used_ratio"] > 1


def _render(r: dict[str, Any], width: int = 100) -> str:
    console = Console(width=width, record=True, color_system=None)
    console.print(render_report(r))
    return console.export_text()


def _lines(text: str) -> list[str]:
    return [line.rstrip() for line in text.splitlines()]


def test_table_shows_header_totals_and_fallback() -> None:
    plan = hand_plan()
    lines = _lines(_render(_report()))
    assert lines[0].split() == ["session", "s.json"]
    assert lines[1].split("·")[0].strip() == "openai"
    assert "tokenizer  tiktoken:nope → plan: nope is not available" in lines
    t = plan.totals
    request = next(line for line in lines if line.startswith("request"))
    assert f"{t.requested:,} of {t.window:,} tok" in request
    assert f"= prompt {t.tokens:,} + output reserve {t.output_reserve:,}" in request
    assert "tail       from #3 · 8 of 2,000 tok · min turns" in lines
    assert "pruned     1 tool output · 90 tok freed" in lines
    assert "compaction needed (proactive): replaces #0-#0" in lines


def test_table_wraps_under_its_labels_at_80_columns() -> None:
    """Long paths and warnings wrapped back to column 0 and broke the header apart."""
    r = _report()
    r["session"]["path"] = "/home/someone/projects/" + "deeply-nested/" * 4 + "session.jsonl"
    r["session"]["warnings"] = ["output reserve lowered from 32,768 to 8,192: " + "word " * 30]
    lines = _lines(_render(r, width=80))
    assert max(map(len, lines)) <= 80
    warning = lines.index(next(line for line in lines if line.startswith("warning")))
    assert lines[warning + 1].startswith(" " * 11) and lines[warning + 1].strip()
    body = [line for line in lines[: warning + 3] if line]
    assert all(line[:11].strip() in {"", "session", "warning", "tokenizer"} for line in body)


def test_big_sessions_elide_the_middle() -> None:
    r = _report()
    row = r["messages"][0]
    r["messages"] = [{**row, "index": i} for i in range(1_000)]
    text = _render(r)
    assert "960 more" in text
    assert " 999 " in text or text.rstrip().count("999") >= 1
    assert "500 " not in text.replace(",", "")
