"""Scoring a candidate over a fleet: feasibility, the Pareto front, the recommended point and
the held-out score, on planted fleets whose answer is known by construction."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from ctxtui.core.tuning.document import Outcome, Searched, tune_document
from ctxtui.core.tuning.score import Score, pareto, recommend, split
from ctxtui.core.tuning.space import SPACES, grid

PCTS = [pct for ((_, pct),) in grid(SPACES["claude-code"])]  # 40, 45, ..., 85


def planted(pct: int, session: int) -> Score:
    """One session's score under an override of ``pct`` %: the later the trigger, the fewer
    compactions and the cheaper (each compaction rewrites the cache), until 75 %: from there
    the session's largest request no longer fits after the compaction (an overflow)."""
    compactions = max(0, (90 - pct) // 5)
    overflows = 1 if pct >= 75 and session % 2 == 0 else 0
    cost = 1.0 + 0.1 * compactions + 0.01 * session
    return Score(cost, compactions, overflows, lost_needed=compactions, needed=20, peak=pct / 100)


def _document(sessions: int = 10, **searched: object) -> dict[str, object]:
    dims = SPACES["claude-code"]
    search = Searched("claude-code", "claude-code", dims, tuple(grid(dims)), **searched)  # type: ignore[arg-type]
    outcomes = [Outcome(f"s{k}.jsonl", tuple(planted(p, k) for p in PCTS)) for k in range(sessions)]
    return tune_document(search, outcomes)


def test_the_cheapest_feasible_trigger_is_recommended() -> None:
    doc = _document()
    # 75 % and above are cheaper but overflow: 70 % is the cheapest feasible override.
    assert doc["candidates"][doc["recommended"]]["knobs"] == {"CLAUDE_AUTOCOMPACT_PCT_OVERRIDE": 70}  # type: ignore[index]
    assert doc["candidates"][doc["recommended"]]["trigger"] == 126_000  # type: ignore[index]


def test_an_overflowing_candidate_is_never_on_the_front() -> None:
    doc = _document()
    front = doc["pareto"]
    assert front and all(doc["candidates"][i]["overflows"] == 0 for i in front)  # type: ignore[index]
    assert PCTS.index(75) not in front and PCTS.index(85) not in front  # type: ignore[operator]


def test_a_limit_on_lost_facts_moves_the_recommendation_and_the_objective_too() -> None:
    # at most 5 % of the 20 needed facts lost: one compaction (85 %) at most, which overflows
    assert _document(max_lost=0.05)["recommended"] is None
    lost_first = _document(objective="lost")
    assert lost_first["candidates"][lost_first["recommended"]]["knobs"] == {  # type: ignore[index]
        "CLAUDE_AUTOCOMPACT_PCT_OVERRIDE": 70
    }


def test_the_held_out_score_is_the_recommended_point_on_the_other_sessions() -> None:
    doc = _document(sessions=10, seed=3)
    assert len(doc["train"]) == 8 and len(doc["test"]) == 2  # type: ignore[arg-type]
    assert set(doc["train"]) | set(doc["test"]) == set(doc["sessions"])  # type: ignore[arg-type]
    held = doc["held_out"]
    assert held is not None and held["sessions"] == 2  # type: ignore[index]
    best = PCTS[doc["recommended"]]  # type: ignore[index]
    tested = [int(p[1:-6]) for p in doc["test"]]  # type: ignore[union-attr]
    assert held["cost_usd"] == round(sum(planted(best, k).cost_usd or 0 for k in tested), 6)  # type: ignore[index]
    assert split([f"s{k}" for k in range(10)], 3) == split([f"s{k}" for k in range(10)], 3)


def test_one_session_holds_nothing_out() -> None:
    doc = _document(sessions=1)
    assert doc["test"] == [] and doc["held_out"] is None


scores = st.builds(
    Score,
    st.one_of(st.none(), st.floats(0, 100)),
    st.integers(0, 20),
    st.integers(0, 2),
    st.integers(0, 10),
    st.integers(10, 20),
    st.floats(0, 2),
)


@given(st.lists(scores, min_size=1, max_size=30), st.sampled_from(["cost", "lost", "compactions"]))
def test_the_front_is_feasible_and_undominated(found: list[Score], objective: str) -> None:
    front = pareto(found, 0.5)
    for i in front:
        assert found[i].overflows == 0 and found[i].lost_share <= 0.5
    feasible = [i for i, s in enumerate(found) if s.feasible(0.5)]
    assert set(front) <= set(feasible)
    assert bool(front) == bool(feasible)
    best = recommend(found, objective, 0.5)
    assert (best is None) == (not feasible)
    assert best is None or best in front
