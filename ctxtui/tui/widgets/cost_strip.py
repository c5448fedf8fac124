"""The timeline's cost series: dollars per request as bars, and the cache misses by cause.

Two rows under the chart and aligned with it (the same gutter and the same request per
column): block bars of each column's costliest request, scaled to the session's costliest,
and a row of marks where a request missed the cache (``core.pricing.cost_words.CAUSE_MARKS``:
``f`` first request, ``e`` the cache expired, ``m`` the model changed, ``a`` after a compaction,
``d`` the prefix differed, ``?`` no evidence; ``+`` several causes in one column). The cursor's
column is highlighted as on the chart; the timeline's legend spells the marks out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import ClassVar

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.message import Message
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Static

from ctxtui.core.pricing.cost import SessionCost
from ctxtui.core.pricing.cost_words import CAUSE_MARKS, SEVERAL_MISSES, timeline_words
from ctxtui.core.simulation.replay import Replay
from ctxtui.tui.cost_jobs import ReplayCostReady
from ctxtui.tui.widgets.theme_style import component_style
from ctxtui.tui.widgets.timeline_chart import GUTTER, column_of

BARS = " ▁▂▃▄▅▆▇█"
SEVERAL = SEVERAL_MISSES


@dataclass(frozen=True, slots=True)
class CostFigures:
    """Per request: its cost (``None`` unpriced) and its cache-miss letter (``""`` none)."""

    costs: tuple[Decimal | None, ...]
    misses: tuple[str, ...]

    @classmethod
    def of(cls, cost: SessionCost) -> CostFigures:
        return cls(
            tuple(r.cost for r in cost.requests),
            tuple(CAUSE_MARKS[r.miss.cause] if r.miss else "" for r in cost.requests),
        )

    @property
    def top(self) -> Decimal:
        return max((c for c in self.costs if c is not None), default=Decimal(0))


def short_dollars(value: Decimal) -> str:
    """A figure for the five-cell gutter: ``0.4¢``, ``57¢``, ``$1.2``, ``$120``."""
    v = float(value)
    if v < 0.1:
        return f"{v * 100:.1f}¢"
    if v < 1:
        return f"{v * 100:.0f}¢"
    if v < 100:
        return f"${v:.1f}"
    return f"${v:,.0f}"[:5]


def bar_row(figures: CostFigures, width: int) -> str:
    """One bar per plot column: the costliest request the column covers, in eighths."""
    n = len(figures.costs)
    top = figures.top
    out = []
    for x in range(width):
        lo = x * n // width
        hi = max(lo + 1, (x + 1) * n // width)
        values = [c for c in figures.costs[lo:hi] if c is not None] if lo < n else []
        if not values or top <= 0:
            out.append(" ")
            continue
        eighths = max(1, round(float(max(values) / top) * 8))
        out.append(BARS[eighths])
    return "".join(out)


def miss_row(misses: Sequence[str], width: int) -> str:
    """A request's miss letter in its own column; ``+`` where causes differ in one."""
    row = [" "] * width
    for k, letter in enumerate(misses):
        if not letter:
            continue
        x = column_of(k, len(misses), width)
        row[x] = letter if row[x] in (" ", letter) else SEVERAL
    return "".join(row)


class CostStrip(Widget):
    """Cost per request and cache-miss marks, under the timeline chart."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "cost-strip--bar",
        "cost-strip--miss",
        "cost-strip--axis",
        "cost-strip--cursor",
    }

    DEFAULT_CSS = """
    CostStrip { height: 2; background: $surface; }
    CostStrip > .cost-strip--bar { color: $text-accent; }
    CostStrip > .cost-strip--miss { color: $text-error; text-style: bold; }
    CostStrip > .cost-strip--axis { color: $text-muted; }
    CostStrip > .cost-strip--cursor { background: $primary 35%; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._figures: CostFigures | None = None
        self._cursor = 0

    def show(self, figures: CostFigures | None, cursor: int | None = None) -> None:
        self._figures = figures
        if cursor is not None:
            self._cursor = cursor
        self.refresh()

    def move(self, cursor: int) -> None:
        if cursor != self._cursor:
            self._cursor = cursor
            self.refresh()

    @property
    def figures(self) -> CostFigures | None:
        return self._figures

    def _style(self, name: str) -> Style:
        return self.rich_style + component_style(self, f"cost-strip--{name}")

    def render_line(self, y: int) -> Strip:
        total = self.size.width
        width = total - GUTTER
        figures = self._figures
        if figures is None or width <= 0 or not figures.costs:
            return Strip.blank(total, self.rich_style)
        axis = self._style("axis")
        if y == 0:
            label, row = short_dollars(figures.top), bar_row(figures, width)
            style = self._style("bar")
        else:
            label, row, style = "miss", miss_row(figures.misses, width), self._style("miss")
        column = column_of(self._cursor, len(figures.costs), width)
        segments = [
            Segment(f"{label:>{GUTTER - 2}} │", axis),
            Segment(row[:column], style),
            Segment(row[column], style + self._style("cursor")),
            Segment(row[column + 1 :], style),
        ]
        return Strip(segments).adjust_cell_length(total, self.rich_style)


class CostLine(Static):
    """The cursor's request priced, then the session's dollars, recorded and simulated."""

    DEFAULT_CSS = """
    CostLine { padding: 0 1; height: 1; color: $text-muted; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id)
        self._cost: SessionCost | None = None
        self._simulated = Decimal(0)
        self._preset = ""
        self._request = 0

    def show(
        self, cost: SessionCost | None, simulated: Decimal = Decimal(0), preset: str = ""
    ) -> None:
        self._cost, self._simulated, self._preset = cost, simulated, preset
        self._paint()

    def move(self, request: int) -> None:
        self._request = request
        self._paint()

    def _paint(self) -> None:
        cost = self._cost
        if cost is None or not 0 <= self._request < len(cost.requests):
            self.update("")
            return
        request = cost.requests[self._request]
        width = self.size.width - 2 if self.size.width else 80
        text = timeline_words(request, cost, self._simulated, self._preset, width)
        self.update(Text(text, no_wrap=True, overflow="ellipsis", end=""))


class CostSeries(Widget):
    """The strip and the line together, as the timeline shows them under its chart.

    The timeline hands it the replay it expects (``expect``) and lets the pricing worker post
    to it; a price for an older replay (another preset's) is ignored.
    """

    DEFAULT_CSS = """
    CostSeries { height: auto; }
    """

    class Priced(Message):
        """The strip has figures now: the legend may explain its rows."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._expected: Replay | None = None
        self._preset = ""
        self._cursor = 0

    @property
    def priced(self) -> bool:
        """Whether the strip shows a priced replay (its bars and marks)."""
        return self.query_one(CostStrip).figures is not None

    def compose(self) -> ComposeResult:
        yield CostStrip()
        yield CostLine()

    def expect(self, replay: Replay, preset: str) -> None:
        """Clear the figures until ``replay`` (under ``preset``) is priced."""
        self._expected, self._preset = replay, preset
        self.query_one(CostStrip).show(None)
        self.query_one(CostLine).show(None)

    @on(ReplayCostReady)
    def _priced(self, event: ReplayCostReady) -> None:
        if event.replay is not self._expected:
            return
        self.query_one(CostStrip).show(CostFigures.of(event.cost), self._cursor)
        line = self.query_one(CostLine)
        line.show(event.cost, event.whatif.total, self._preset)
        line.move(self._cursor)
        self.post_message(self.Priced())

    def move(self, request: int) -> None:
        self._cursor = request
        self.query_one(CostStrip).move(request)
        self.query_one(CostLine).move(request)
