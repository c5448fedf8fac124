"""How ``tune`` scores a candidate over a fleet, and which candidates it keeps.

Per session, a candidate's replay gives: the what-if dollars (the simulated run priced with
the prefix-cache model, in the recorded model's prices), its compactions, its overflows
(requests whose simulated prompt is over the window even after compacting), the facts the
agent used again after a compaction that its summary lost (the retention audit), the facts
so needed, and the peak fill (the largest simulated prompt over the window). Over a set of
sessions they add up (the peak is the largest). A candidate with any overflow, or losing a
larger share of the needed facts than ``max_lost``, is infeasible.

The Pareto front is the feasible candidates no other feasible one beats on dollars, facts
lost and compactions at once. The recommended point is the front's best under the objective
(ties: dollars, facts lost, compactions, then the first candidate), chosen on a seeded
random 80 % of the sessions and scored on the other 20 %.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

OBJECTIVES = ("cost", "compactions", "lost")
TRAIN_SHARE = 0.8


@dataclass(frozen=True, slots=True)
class Score:
    """One candidate over one session (or, added up, over several)."""

    cost_usd: float | None  # None: no request could be priced
    compactions: int
    overflows: int
    lost_needed: int
    needed: int
    peak: float  # the largest simulated prompt, as a share of the window
    sessions: int = 1

    def __add__(self, other: Score) -> Score:
        costs = [c for c in (self.cost_usd, other.cost_usd) if c is not None]
        return Score(
            round(sum(costs), 6) if costs else None,
            self.compactions + other.compactions,
            self.overflows + other.overflows,
            self.lost_needed + other.lost_needed,
            self.needed + other.needed,
            max(self.peak, other.peak),
            self.sessions + other.sessions,
        )

    @property
    def lost_share(self) -> float:
        return self.lost_needed / self.needed if self.needed else 0.0

    def feasible(self, max_lost: float | None) -> bool:
        if self.overflows:
            return False
        return max_lost is None or self.lost_share <= max_lost

    def as_json(self) -> dict[str, Any]:
        return {
            "cost_usd": self.cost_usd,
            "compactions": self.compactions,
            "overflows": self.overflows,
            "lost_needed": self.lost_needed,
            "needed": self.needed,
            "peak": round(self.peak, 4),
            "sessions": self.sessions,
        }


def total(scores: Sequence[Score | None]) -> Score | None:
    """The scores added up (a session that failed is left out); ``None`` with none."""
    out: Score | None = None
    for s in scores:
        if s is not None:
            out = s if out is None else out + s
    return out


def split(paths: Sequence[str], seed: int) -> tuple[list[str], list[str]]:
    """A seeded random 80 % of ``paths`` to choose on and the rest to report on, each in the
    order given. One session is chosen on and nothing is held out."""
    order = list(paths)
    random.Random(seed).shuffle(order)
    n = len(order)
    keep = n if n < 2 else max(1, min(n - 1, round(n * TRAIN_SHARE)))
    chosen = set(order[:keep])
    return [p for p in paths if p in chosen], [p for p in paths if p not in chosen]


def _key(score: Score, objective: str) -> tuple[float, ...]:
    cost = score.cost_usd if score.cost_usd is not None else float("inf")
    ranks = {
        "cost": (cost, score.lost_needed, score.compactions),
        "lost": (score.lost_needed, cost, score.compactions),
        "compactions": (score.compactions, cost, score.lost_needed),
    }
    return ranks[objective]


def _dominates(a: Score, b: Score) -> bool:
    inf = float("inf")
    ax = (a.cost_usd if a.cost_usd is not None else inf, a.lost_needed, a.compactions)
    bx = (b.cost_usd if b.cost_usd is not None else inf, b.lost_needed, b.compactions)
    return all(x <= y for x, y in zip(ax, bx, strict=True)) and ax != bx


def pareto(scores: Sequence[Score | None], max_lost: float | None) -> list[int]:
    """The indices of the feasible candidates no feasible one dominates, in order."""
    feasible = [(i, s) for i, s in enumerate(scores) if s is not None and s.feasible(max_lost)]
    return [i for i, s in feasible if not any(_dominates(o, s) for _, o in feasible)]


def recommend(scores: Sequence[Score | None], objective: str, max_lost: float | None) -> int | None:
    """The front's best candidate under ``objective`` (``None`` when none is feasible)."""
    front = pareto(scores, max_lost)
    if not front:
        return None
    return min(front, key=lambda i: (*_key(scores[i], objective), i))  # type: ignore[arg-type]
