"""The ``ctxtui.report/1`` document: every key, its type, and the figures taken from the plan."""

from __future__ import annotations

import json
from typing import Any

from ctxtui.core.policies.policy import KNOBS
from ctxtui.core.simulation.report import build_report
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
    "tools",
    "compaction",
    "overflow",
    "reported",
    "gap",
    "calibration",
    "estimate",
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
        "events": [],
    }
    assert set(r["policy"]) >= set(KNOBS)
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
        "trigger",
        "context_left",
        "categories",
        "system_tokens",
        "tool_defs_tokens",
        "summary_tokens",
        "history_tokens",
        "dropped_tokens",
    }
    assert isinstance(r["totals"]["used_ratio"], float)
    assert set(r["fresh_tail"]) == {"start", "budget", "tokens", "reason"}
    assert set(r["prune"]) == {"pruned", "tokens_freed"}
    assert set(r["compaction"]) == {
        "needed",
        "reason",
        "replaced",
        "tokens_before",
        "tokens_after",
        "llm_calls",
    }
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
            "tool_names",
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
    assert [m["tool_names"] for m in r["messages"]][1:3] == [["read_file"], ["read_file"]]
    assert r["prune"] == {"pruned": [2], "tokens_freed": 90}
    assert r["compaction"] == {
        "needed": True,
        "reason": "proactive",
        "replaced": [0, 0],
        "tokens_before": plan.totals.requested,
        "tokens_after": plan.totals.requested,
        "llm_calls": None,  # no compaction was simulated
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
