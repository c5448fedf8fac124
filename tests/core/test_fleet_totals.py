"""The fleet's totals and groups add up to their rows, whatever the rows."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from ctxtui.core.fleet import UNKNOWN, build_document, empty_row

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
    for group in ("by_agent", "by_model", "by_project", "by_day"):
        parts = list(doc[group].values())
        assert sum(g["sessions"] for g in parts) == len(fleet)
        assert _sum([g["requests"] for g in parts]) == t["requests"]
        assert _sum([g["compactions_simulated"] for g in parts]) == t["compactions_simulated"]
        if UNKNOWN in doc[group]:
            assert list(doc[group])[-1] == UNKNOWN
