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
