"""The ``ctxtui.tune/1`` document: candidates scored on the chosen sessions, the Pareto front,
the recommended point and its score on the held-out sessions (both shells read it)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ctxtui.core.policies.policy import preset
from ctxtui.core.session.models import RecordedCompaction
from ctxtui.core.tuning.configured import Configured, overlay
from ctxtui.core.tuning.observed import agreement, observe
from ctxtui.core.tuning.score import Score, pareto, recommend, split, total
from ctxtui.core.tuning.space import (
    SPACES,
    Dimension,
    Settings,
    candidate_policy,
    grid,
    preset_of,
)

SCHEMA = "ctxtui.tune/1"


@dataclass(frozen=True, slots=True)
class Searched:
    """What was searched and how it is judged."""

    agent: str
    preset: str
    dimensions: tuple[Dimension, ...]
    candidates: tuple[Settings, ...]
    objective: str = "cost"
    max_lost: float | None = None
    seed: int = 0


@dataclass(frozen=True, slots=True)
class Outcome:
    """One session's scores, one per candidate (``None`` where its replay failed), and the
    compactions the agent recorded in it: (size before, trigger)."""

    path: str
    scores: tuple[Score | None, ...] = ()
    error: str | None = None
    recorded: tuple[tuple[int, str | None], ...] = ()


def search_for(
    agent: str,
    current: Settings | None = None,
    objective: str = "cost",
    max_lost: float | None = None,
    seed: int = 0,
) -> Searched:
    """``agent``'s grid, with the settings it is configured with now as one more candidate
    when the grid does not hold them."""
    dimensions = SPACES[agent]
    candidates = grid(dimensions)
    if current is not None and dict(current) not in [dict(c) for c in candidates]:
        candidates.append(current)
    return Searched(
        agent, preset_of(agent), dimensions, tuple(candidates), objective, max_lost, seed
    )


def _totals(outcomes: Sequence[Outcome], paths: set[str], n: int) -> list[Score | None]:
    chosen = [o for o in outcomes if o.path in paths and o.error is None]
    return [total([o.scores[i] for o in chosen if i < len(o.scores)]) for i in range(n)]


def tune_document(
    searched: Searched,
    outcomes: Sequence[Outcome],
    configured: Sequence[Configured] = (),
    configured_settings: Settings | None = None,
    interrupted: bool = False,
) -> dict[str, Any]:
    """The document over ``outcomes`` (each session once, in the targets' order)."""
    paths = [o.path for o in outcomes]
    train, test = split([o.path for o in outcomes if o.error is None], searched.seed)
    n = len(searched.candidates)
    chosen = _totals(outcomes, set(train), n)
    held = _totals(outcomes, set(test), n)
    front = pareto(chosen, searched.max_lost)
    best = recommend(chosen, searched.objective, searched.max_lost)
    recorded = [
        RecordedCompaction(message_index=0, pre_tokens=size, trigger=trigger)
        for o in outcomes
        for size, trigger in o.recorded
    ]
    base = preset(searched.preset)
    observed = observe(recorded, base)
    observed_json = observed.as_json()
    sentence = agreement(observed, overlay(base, configured), configured)
    if sentence is not None:
        observed_json["agreement"] = sentence
    triggers = [candidate_policy(searched.agent, c, base).trigger for c in searched.candidates]
    scored = held[best] if best is not None else None
    return {
        "schema": SCHEMA,
        "agent": searched.agent,
        "preset": searched.preset,
        "sessions": paths,
        "train": train,
        "test": test,
        "objective": searched.objective,
        "max_lost": searched.max_lost,
        "seed": searched.seed,
        "knobs": [d.as_json() for d in searched.dimensions],
        "candidates": [
            _candidate(c, chosen[i], triggers[i]) for i, c in enumerate(searched.candidates)
        ],
        "pareto": front,
        "recommended": best,
        "configured": [c.as_json() for c in configured],
        "configured_candidate": _index_of(searched.candidates, configured_settings),
        "observed": observed_json,
        "observed_candidate": _nearest(triggers, observed.low),
        "held_out": scored.as_json() if scored is not None else None,
        "errors": [{"path": o.path, "error": o.error} for o in outcomes if o.error],
        "interrupted": interrupted,
    }


def _candidate(settings: Settings, score: Score | None, trigger: int | None) -> dict[str, Any]:
    empty = {"cost_usd": None, "compactions": None, "overflows": None, "lost_needed": None,
             "needed": None, "peak": None, "sessions": 0}  # fmt: skip
    return {
        "knobs": dict(settings),
        "trigger": trigger,  # under the preset's own window, for a reader's bearings
        **(score.as_json() if score is not None else empty),
    }


def _index_of(candidates: Sequence[Settings], settings: Settings | None) -> int | None:
    if settings is None:
        return None
    wanted = dict(settings)
    return next((i for i, c in enumerate(candidates) if dict(c) == wanted), None)


def _nearest(triggers: Sequence[int | None], low: int | None) -> int | None:
    """The candidate whose trigger is nearest the observed band's low end."""
    if low is None:
        return None
    known = [(abs(t - low), i) for i, t in enumerate(triggers) if t is not None]
    return min(known)[1] if known else None


def front_rows(doc: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The front's candidates, cheapest first, each with its index and marks."""
    rows = []
    for i in doc["pareto"]:
        row = dict(doc["candidates"][i])
        row["index"] = i
        row["mark"] = ", ".join(marks_of(doc, i))
        rows.append(row)
    inf = float("inf")
    rows.sort(key=lambda r: (r["cost_usd"] if r["cost_usd"] is not None else inf, r["index"]))
    return rows


MARKS = ("recommended", "configured", "observed")
NEAREST_OBSERVED = "near observed"
"""The observed mark of a candidate whose trigger lies outside the band (``marks_of``)."""


def marks_of(doc: Mapping[str, Any], index: int) -> list[str]:
    """Which of the recommended, configured and observed points candidate ``index`` is. The
    observed point is the candidate nearest the band's low end: one whose trigger lies
    outside the band is marked ``near observed``, not taken for the trigger itself; and
    none is when the band lies beyond every candidate's trigger, where the nearest is only
    the grid's end (72,000 is no point near a band at 28,199)."""
    keys = {"recommended": "recommended", "configured": "configured_candidate",
            "observed": "observed_candidate"}  # fmt: skip
    found = [m for m in MARKS if doc.get(keys[m]) == index]
    band = _band(doc)
    if "observed" in found and band is not None:
        low, high = band
        trigger = doc["candidates"][index].get("trigger")
        triggers = [c["trigger"] for c in doc["candidates"] if c.get("trigger") is not None]
        if trigger is not None and low <= trigger <= high:
            return found
        if low <= max(triggers) and high >= min(triggers):  # the band meets the grid
            found[found.index("observed")] = NEAREST_OBSERVED
            return found
    if "observed" in found:
        found.remove("observed")
    return found


def _band(doc: Mapping[str, Any]) -> tuple[int, int] | None:
    """The observed band of automatic compactions, low and high; ``None`` without one."""
    band = (doc.get("observed") or {}).get("auto") or {}
    low, high = band.get("low"), band.get("high")
    return None if low is None or high is None else (low, high)


TIE = (
    "every candidate scores alike on these sessions (no setting here changes when they "
    "compact): the recommendation is one of equals"
)


def tie_line(doc: Mapping[str, Any]) -> str | None:
    """``TIE`` when the tune's candidates all score the same, else ``None``: a point picked
    among equals must not read as the best setting."""
    scored = [c for c in doc["candidates"] if c.get("sessions")]
    keys = {(c["cost_usd"], c["compactions"], c["overflows"], c["lost_needed"]) for c in scored}
    return TIE if len(scored) > 1 and len(keys) == 1 else None


def tune_words(doc: Mapping[str, Any]) -> list[str]:
    """A tune's lines under its table, in both shells: ``tuning_words``, then ``TIE``."""
    tie = tie_line(doc)
    return [*tuning_words(doc), *([tie] if tie is not None else [])]


def tuning_words(doc: Mapping[str, Any]) -> list[str]:
    """The agent's configured values, the observed band and the agreement, a line each."""
    from ctxtui.core.tuning.observed import configured_line, observed_line

    lines = [
        configured_line(Configured(c["knob"], c["value"], c["origin"], c.get("note", "")))
        for c in doc["configured"]
    ]
    observed = doc.get("observed")
    if observed is None:
        return lines
    line = observed_line(observed["auto"], observed["manual"])
    lines += [line] if line is not None else []
    lines += [observed["agreement"]] if "agreement" in observed else []
    return lines
