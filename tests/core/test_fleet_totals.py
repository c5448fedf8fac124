"""The fleet's totals and groups add up to their rows, whatever the rows."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxtui.core.fleet import (
    ACTIVITY,
    PERIODS,
    UNKNOWN,
    Days,
    Tally,
    build_document,
    conversation_messages,
    empty_row,
)
from ctxtui.core.pricing.cost import session_cost
from ctxtui.importers import load_session
from ctxtui.samples import samples_dir

SAMPLES = samples_dir()

counts = st.one_of(st.none(), st.integers(0, 10_000))
rows = st.lists(
    st.builds(
        lambda i, agent, model, day, messages, requests, sim, peak: empty_row(
            f"/s/{i}.jsonl",
            agent=agent,
            model=model,
            started=f"2026-11-{day:02d}T10:00:00+00:00" if day else None,
            messages=messages,
            requests=requests,
            compactions_recorded=0,
            compactions_simulated=sim,
            peak_simulated=peak,
        ),
        st.integers(0, 10**6),
        st.sampled_from(["claude-code", "codex", "opencode", "picoclaw"]),
        st.one_of(st.none(), st.sampled_from(["gpt-5", "claude-sonnet-4-5"])),
        st.integers(0, 3),
        counts,
        counts,
        counts,
        counts,
    ),
    max_size=30,
)


def _sum(values: list[Any]) -> Any:
    present = [v for v in values if v is not None]
    return sum(present) if present else None


@given(rows)
def test_every_grouping_adds_up_to_the_totals(fleet: list[dict[str, Any]]) -> None:
    doc = build_document(fleet, preset="plan")
    t = doc["totals"]
    assert t["sessions"] == len(fleet)
    assert t["messages"] == _sum([r["messages"] for r in fleet])
    assert t["peak_simulated"] == max(
        (r["peak_simulated"] for r in fleet if r["peak_simulated"] is not None), default=None
    )
    for group in ("by_agent", "by_model", "by_project"):
        parts = list(doc[group].values())
        assert sum(g["sessions"] for g in parts) == len(fleet)
        assert _sum([g["requests"] for g in parts]) == t["requests"]
        assert _sum([g["compactions_simulated"] for g in parts]) == t["compactions_simulated"]
        if UNKNOWN in doc[group]:
            assert list(doc[group])[-1] == UNKNOWN


@given(
    st.lists(
        st.one_of(
            st.none(),
            st.integers(1, 10**7).flatmap(lambda p: st.tuples(st.just(p), st.integers(0, p))),
        ),
        max_size=20,
    )
)
def test_the_cache_hit_ratio_is_weighted_by_prompt_tokens(
    usage: list[tuple[int, int] | None],
) -> None:
    """Σ cache reads / Σ prompt tokens over the sessions with usage, in totals and groups."""
    fleet = [
        empty_row(
            f"/s/{i}.jsonl",
            agent="codex" if i % 2 else "claude-code",
            prompt_tokens=u[0] if u else None,
            cache_read_tokens=u[1] if u else None,
            cache_hit_ratio=u[1] / u[0] if u else None,
        )
        for i, u in enumerate(usage)
    ]
    doc = build_document(fleet, preset=None)
    known = [u for u in usage if u is not None]
    prompt = sum(p for p, _ in known)
    expected = round(sum(r for _, r in known) / prompt, 6) if prompt else None
    assert doc["totals"]["cache_hit_ratio"] == expected
    assert doc["totals"]["prompt_tokens"] == (prompt if known else None)
    for name, group in doc["by_agent"].items():
        mine = [u for r, u in zip(fleet, usage, strict=True) if r["agent"] == name and u]
        weight = sum(p for p, _ in mine)
        assert group["cache_hit_ratio"] == (
            round(sum(r for _, r in mine) / weight, 6) if weight else None
        )


def test_a_short_session_does_not_weigh_as_much_as_a_long_one() -> None:
    """A 100-token session read all from cache and a 1M-token one that read none: 0.0001,
    not the mean of their ratios (0.5)."""
    short = empty_row("/a", prompt_tokens=100, cache_read_tokens=100, cache_hit_ratio=1.0)
    long = empty_row("/b", prompt_tokens=1_000_000, cache_read_tokens=0, cache_hit_ratio=0.0)
    assert build_document([short, long], preset=None)["totals"]["cache_hit_ratio"] == 0.0001


# --- messages: the whole file, each once ---------------------------------------------------


def _rollout(tmp_path: Path) -> Path:
    """A Codex rollout with its base instructions, one compaction whose replacement history
    repeats the first user message, and the summary."""

    def user(text: str) -> dict[str, Any]:
        content = [{"type": "input_text", "text": text}]
        return {"type": "message", "role": "user", "content": content}

    def answer(text: str) -> dict[str, Any]:
        content = [{"type": "output_text", "text": text}]
        return {"type": "message", "role": "assistant", "content": content}

    def item(payload: dict[str, Any]) -> dict[str, Any]:
        return {"timestamp": "2026-01-01T00:00:00Z", "type": "response_item", "payload": payload}

    meta = {"id": "s1", "instructions": "You are Codex."}
    lines = [
        {"timestamp": "2026-01-01T00:00:00Z", "type": "session_meta", "payload": meta},
        item(user("first")),
        item(answer("one")),
        {
            "timestamp": "2026-01-01T00:01:00Z",
            "type": "compacted",
            "payload": {
                "message": "the summary",
                "replacement_history": [user("first"), user("the summary")],
            },
        },
        item(user("second")),
        item(answer("two")),
    ]
    path = tmp_path / "rollout.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def test_messages_count_the_whole_file_each_once(tmp_path: Path) -> None:
    """first, one, the summary (one user message), second, two, and the stored system
    prompt: 6. The session as the app opens it has 4; the replacement history's copy of
    "first" is not counted again."""
    path = _rollout(tmp_path)
    history = load_session(path, full_history=True)
    assert history.system_prompt
    assert len(load_session(path).messages) == 4
    assert conversation_messages(history) == 6


def test_a_claude_code_compaction_counts_its_summary_once() -> None:
    """claude_code_replay.jsonl: 523 messages on disk over three compactions (72 in the
    last segment, which the fleet counted before)."""
    history = load_session(SAMPLES / "claude_code_replay.jsonl", full_history=True)
    assert len(history.meta.recorded_compactions) == 3
    summaries = [m for m in history.messages if m.is_summary]
    assert len(summaries) == 3
    assert conversation_messages(history) == len(history.messages) == 523


# --- periods: each request in its own -----------------------------------------------------

HOUR = 3600.0
T0 = datetime(2026, 3, 2, 9, 20, tzinfo=UTC).timestamp()


def _row(path: str, requests: list[tuple[float | None, float]], **known: Any) -> dict[str, Any]:
    """A row whose requests (time, dollars; 1,000 prompt tokens, 900 read) are summed per
    hour as ``activity`` sums them."""
    row = empty_row(path, **known)
    hours: dict[int, list[Any]] = {}
    for t, cost in requests:
        assert t is not None
        hour = int(t // HOUR) * int(HOUR)
        got = hours.setdefault(hour, [hour, t, t, 0, 0.0, 0, 0, 1_000, 0])
        got[1], got[2] = min(got[1], t), max(got[2], t)
        got[3:7] = [got[3] + 1, got[4] + cost, got[5] + 1_000, got[6] + 900]
    row[ACTIVITY] = {"hours": [hours[h] for h in sorted(hours)], "untimed": None}
    row["cost_usd"] = sum(cost for _, cost in requests)
    return row


def test_activity_sums_every_request_and_compaction_of_a_session() -> None:
    history = load_session(SAMPLES / "claude_code_replay.jsonl", full_history=True)
    cost = session_cost(history)
    tally = Tally()
    tally.add(history, cost)
    act = tally.figures()[ACTIVITY]
    hours = act["hours"]
    assert [h[0] for h in hours] == sorted({h[0] for h in hours})
    assert all(h[0] <= h[1] <= h[2] < h[0] + HOUR for h in hours)
    assert sum(h[3] for h in hours) + (act["untimed"] or [0])[0] == len(cost.requests)
    assert sum(h[8] for h in hours) == len(history.meta.recorded_compactions) == 3
    assert sum(h[4] or 0 for h in hours) == pytest.approx(float(cost.total))
    assert max(h[7] or 0 for h in hours) == max(r.usage.prompt for r in cost.requests if r.usage)


def test_a_session_over_days_is_counted_on_each_day_it_sent_requests() -> None:
    """A five-day session was all on its first day."""
    days = [T0 + d * 24 * HOUR for d in range(5)]
    row = _row("/s/long.jsonl", [(t, 1.5) for t in days], started="2026-03-02T09:20:00+00:00")
    doc = build_document([row], preset=None)
    assert list(doc["by_day"]) == [f"2026-03-0{d}" for d in range(2, 7)]
    assert all(g["cost_usd"] == 1.5 and g["requests"] == 1 for g in doc["by_day"].values())
    assert all(g["cache_hit_ratio"] == 0.9 for g in doc["by_day"].values())
    assert "activity" not in doc["sessions"][0]


def test_weeks_start_on_monday_and_months_are_calendar_months() -> None:
    row = _row("/s/a.jsonl", [(T0, 1.0), (T0 + 6 * 24 * HOUR, 2.0), (T0 + 7 * 24 * HOUR, 4.0)])
    weeks = build_document([row], preset=None, days=Days(by="week"))["by_week"]
    assert {k: g["cost_usd"] for k, g in weeks.items()} == {"2026-03-02": 3.0, "2026-03-09": 4.0}
    months = build_document([row], preset=None, days=Days(by="month"))["by_month"]
    assert {k: g["requests"] for k, g in months.items()} == {"2026-03": 3}


def test_blocks_follow_ccusage() -> None:
    """A block starts at its first request's hour and ends 5 hours later or after a 5-hour
    pause, across sessions: 09:20 and 13:59 (one block from 09:00); 14:01 (past 14:00: a new
    block from 14:00); 19:02 from the second session (within 5 h of 14:01, but after the
    block's end: a new one); 19:05 joins it."""
    a = _row(
        "/s/a.jsonl", [(T0, 1.0), (T0 + 4 * HOUR + 39 * 60, 1.0), (T0 + 4 * HOUR + 41 * 60, 1.0)]
    )
    b = _row("/s/b.jsonl", [(T0 + 9 * HOUR + 42 * 60, 2.0), (T0 + 9 * HOUR + 45 * 60, 2.0)])
    blocks = build_document([a, b], preset=None, days=Days(by="block"))["by_block"]
    assert [
        (g["start"][11:16], g["end"][11:16], g["requests"], g["sessions"]) for g in blocks.values()
    ] == [
        ("09:00", "14:00", 2, 1),
        ("14:00", "19:00", 1, 1),
        ("19:00", "00:00", 2, 1),
    ]


def test_since_and_until_keep_the_sessions_and_requests_in_range() -> None:
    old = _row("/s/old.jsonl", [(T0 - 30 * 24 * HOUR, 5.0)])
    both = _row("/s/both.jsonl", [(T0 - 24 * HOUR, 1.0), (T0, 2.0), (T0 + 24 * HOUR, 4.0)])
    doc = build_document([old, both], preset=None, days=Days(date(2026, 3, 2), date(2026, 3, 2)))
    assert [r["path"] for r in doc["sessions"]] == ["/s/both.jsonl"]
    assert {k: g["cost_usd"] for k, g in doc["by_day"].items()} == {"2026-03-02": 2.0}
    assert doc["since"] == doc["until"] == "2026-03-02"


@given(
    st.lists(
        st.lists(st.tuples(st.floats(T0, T0 + 60 * 24 * HOUR), st.floats(0, 10)), max_size=8),
        max_size=6,
    ),
    st.sampled_from(PERIODS),
)
def test_every_period_split_adds_up_to_the_requests(
    sessions: list[list[tuple[float, float]]], by: str
) -> None:
    rows = [_row(f"/s/{i}.jsonl", reqs) for i, reqs in enumerate(sessions)]
    doc = build_document(rows, preset=None, days=Days(by=by))
    groups = doc[f"by_{by}"].values()
    assert sum(g["requests"] for g in groups) == sum(len(r) for r in sessions)
    costs = [c for reqs in sessions for _, c in reqs]
    assert sum(g["cost_usd"] or 0 for g in groups) == pytest.approx(sum(costs), abs=1e-4)
