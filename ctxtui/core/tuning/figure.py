"""The tune figure's points: dollars across, facts lost up, each candidate marked by its
compactions, the recommended, configured and observed points named (the app's scatter and
the HTML page's SVG both draw these)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ctxtui.core.tuning.document import NEAREST_OBSERVED, marks_of


@dataclass(frozen=True, slots=True)
class Point:
    """One candidate on the figure: its place in 0–1 on both axes (0: the least dollars, the
    fewest facts lost), its compactions, whether it is on the front, and its marks."""

    index: int
    x: float
    y: float
    cost_usd: float | None
    lost_needed: int
    compactions: int
    front: bool
    marks: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Figure:
    points: tuple[Point, ...]
    cost_range: tuple[float, float] | None  # None: no candidate could be priced
    lost_range: tuple[int, int]

    @property
    def cost_words(self) -> str:
        """The dollar axis in words: its span, or why it has none (every point then stands
        at its right edge)."""
        if self.cost_range is None:
            return "unknown: no request of these sessions was priced"
        low, high = self.cost_range
        return f"${low:,.4f}" if high <= low else f"${low:,.4f} – ${high:,.4f}"


def _spread(value: float, low: float, high: float) -> float:
    return 0.5 if high <= low else (value - low) / (high - low)


def figure(doc: Mapping[str, Any]) -> Figure:
    """The scored candidates of a ``ctxtui.tune/1`` document as points (feasible or not; a
    candidate with no score is left out)."""
    scored = [(i, c) for i, c in enumerate(doc["candidates"]) if c["compactions"] is not None]
    costs = [c["cost_usd"] for _, c in scored if c["cost_usd"] is not None]
    lows, highs = (min(costs), max(costs)) if costs else (0.0, 0.0)
    lost = [c["lost_needed"] for _, c in scored]
    lost_low, lost_high = (min(lost), max(lost)) if lost else (0, 0)
    front = set(doc["pareto"])
    points = tuple(
        Point(
            i,
            _spread(c["cost_usd"], lows, highs) if c["cost_usd"] is not None else 1.0,
            _spread(c["lost_needed"], lost_low, lost_high),
            c["cost_usd"],
            c["lost_needed"],
            c["compactions"],
            i in front,
            tuple(marks_of(doc, i)),
        )
        for i, c in scored
    )
    return Figure(points, (lows, highs) if costs else None, (lost_low, lost_high))


GLYPHS = {"recommended": "R", "configured": "C", "observed": "O", NEAREST_OBSERVED: "O"}
"""Each named point's letter: the candidate nearest the observed band is its O either way."""


def glyph(point: Point) -> str:
    """The point's mark: R, C or O for the named points, else its compactions (``+`` past
    9), a dot when it is off the front."""
    if point.marks:
        return GLYPHS[point.marks[0]]
    if not point.front:
        return "·"
    return str(point.compactions) if point.compactions < 10 else "+"


def text_grid(fig: Figure, width: int, height: int) -> list[str]:
    """The figure as ``height`` rows of ``width`` cells (the fewest facts lost at the bottom);
    a named point is drawn over any other in its cell, a front point over one off it."""
    width, height = max(width, 2), max(height, 2)
    cells = [[" "] * width for _ in range(height)]
    rank = {True: 2, False: 1}
    best: dict[tuple[int, int], int] = {}
    for p in fig.points:
        col = round(p.x * (width - 1))
        row = height - 1 - round(p.y * (height - 1))
        weight = 3 if p.marks else rank[p.front]
        if best.get((row, col), 0) < weight:
            best[(row, col)] = weight
            cells[row][col] = glyph(p)
    return ["".join(r) for r in cells]
