"""The timeline's chart: prompt tokens per request, drawn in braille with the Line API.

Four series share one plot: the simulated prompt (the sawtooth a policy would produce), the
prompt the API reported (where the transcript has it), and the trigger and window as level
lines. Below the plot, a row of marks says where a compaction happened (``C`` simulated,
``R`` recorded by the agent, ``!`` a request over the window, ``+`` several in one cell) and an
axis row numbers the requests. A cursor column follows the selected request.

Each braille cell is 2 × 4 dots. Every dot column covers a run of requests and draws the
smallest to the largest prompt among them (plus the step from the column before), so a drop
or a peak between two columns is never lost however long the session. The dots are worked out
once per replay and size, in time linear in the requests; ``render_line`` only joins strings,
so moving the cursor costs the same on 100 or 100,000 requests. The widget reads the replay's
figures and decides nothing about budgets.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.reactive import reactive
from textual.strip import Strip
from textual.widget import Widget

from ctxtui.core.simulation.replay import EventKind, Replay
from ctxtui.palette import SERIES_COLOURS
from ctxtui.tui.widgets.theme_style import component_style

SERIES = ("simulated", "reported", "window", "trigger")
"""Plot series in paint priority: a cell holding dots of several takes the first one's colour."""

MARKS: dict[EventKind, str] = {
    EventKind.COMPACTION: "C",
    EventKind.RECORDED_COMPACTION: "R",
    EventKind.OVERFLOW: "!",
}
SEVERAL = "+"
EVENTS = Binding.Group("Events")
"""``[`` and ``]`` share one footer entry, ``[ ] Events``, so a 60-column footer keeps ? and q."""
GUTTER = 7
"""Cells left of the plot for the token labels (``16.4k ``)."""

_DOT = ((0x01, 0x08), (0x02, 0x10), (0x04, 0x20), (0x40, 0x80))
"""Braille bit of the dot at (row, column) inside a cell, rows from the top."""


def short_tokens(value: int) -> str:
    """``950``, ``9.8k``, ``16.4k``, ``164k``, ``1.2M``: a figure that fits the gutter."""
    if value < 1_000:
        return str(value)
    if value < 100_000:
        return f"{value / 1_000:.1f}k".replace(".0k", "k")
    if value < 1_000_000:
        return f"{value // 1_000}k"
    return f"{value / 1_000_000:.1f}M".replace(".0M", "M")


def spans(values: Sequence[int | None], columns: int) -> list[tuple[int, int] | None]:
    """For each of ``columns`` dot columns, the smallest and largest value it covers.

    Column ``c`` covers requests ``[c·n/columns, (c+1)·n/columns)`` (at least one), and also
    the value before its first request, so consecutive columns join into a step line. ``None``
    values (no figure for that request) are skipped; a column with none is ``None``.
    """
    n = len(values)
    out: list[tuple[int, int] | None] = []
    for c in range(columns):
        a = c * n // columns
        if a >= n:
            out.append(None)
            continue
        own = [v for v in values[a : max(a + 1, (c + 1) * n // columns)] if v is not None]
        before = values[a - 1] if c > 0 and (c - 1) * n // columns < a else None
        if before is not None and own:
            own.append(before)
        out.append((min(own), max(own)) if own else None)
    return out


@dataclass(frozen=True, slots=True)
class ChartFigures:
    """What the chart draws, read off a replay: one entry per request, then the two levels."""

    simulated: tuple[int, ...]
    reported: tuple[int | None, ...]
    marks: tuple[str, ...]
    trigger: int | None  # None: the policy never compacts by itself (no level drawn)
    window: int

    @classmethod
    def of(cls, replay: Replay) -> ChartFigures:
        requests = replay.requests
        return cls(
            simulated=tuple(r.simulated_tokens for r in requests),
            reported=tuple(r.reported_tokens for r in requests),
            marks=tuple("".join(sorted({MARKS[e.kind] for e in r.events})) for r in requests),
            trigger=replay.trigger_tokens,
            window=replay.policy.context_window,
        )

    @property
    def top(self) -> int:
        """The plot's top: the largest figure of any series, so nothing is cut off."""
        reported = (v for v in self.reported if v is not None)
        return max(self.window, self.trigger or 0, *self.simulated, *reported, 1)


@dataclass(frozen=True, slots=True)
class Drawing:
    """The plot at one size: per row, each cell's braille character and its series (or ``""``)."""

    cells: tuple[tuple[tuple[str, str], ...], ...]
    marks: tuple[str, ...]  # one glyph (or space) per plot column
    labels: dict[int, str]  # gutter label per plot row


def draw(figures: ChartFigures, width: int, height: int) -> Drawing:
    """Lay ``figures`` out on ``width`` × ``height`` plot cells (gutter and mark rows apart)."""
    rows, cols = 4 * height, 2 * width
    top = figures.top

    def dot_row(value: int) -> int:  # from the top, 0 … rows-1
        return rows - 1 - min(rows - 1, round(value / top * (rows - 1)))

    bits: dict[str, list[int]] = {name: [0] * (width * height) for name in SERIES}

    def plot(name: str, column: int, first: int, last: int) -> None:
        grid = bits[name]
        for r in range(min(first, last), max(first, last) + 1):
            cell = (r // 4) * width + column // 2
            grid[cell] |= _DOT[r % 4][column % 2]

    for name, values in (("simulated", figures.simulated), ("reported", figures.reported)):
        for c, span in enumerate(spans(values, cols)):
            if span is not None:
                plot(name, c, dot_row(span[0]), dot_row(span[1]))
    window_row = dot_row(figures.window)
    trigger_row = dot_row(figures.trigger) if figures.trigger is not None else -1
    for c in range(cols):
        plot("window", c, window_row, window_row)
        if c % 2 == 0 and trigger_row >= 0:  # dashed: it reads apart from the window
            plot("trigger", c, trigger_row, trigger_row)
    cells = _cells(bits, width, height)
    labels = {0: short_tokens(top), height - 1: "0"}
    if figures.trigger is not None:
        labels[trigger_row // 4] = short_tokens(figures.trigger)
    labels[window_row // 4] = short_tokens(figures.window)
    return Drawing(cells, _mark_row(figures.marks, width), labels)


def _cells(
    bits: Mapping[str, Sequence[int]], width: int, height: int
) -> tuple[tuple[tuple[str, str], ...], ...]:
    """Each cell's braille glyph (every series' dots) and the series it is coloured as: the
    first in ``SERIES`` order with a dot there, so the simulated line stays on top."""
    cells = []
    for y in range(height):
        row = []
        for x in range(width):
            i = y * width + x
            mask = 0
            owner = ""
            for name in SERIES:
                if bits[name][i]:
                    mask |= bits[name][i]
                    owner = owner or name
            row.append((chr(0x2800 + mask), owner))
        cells.append(tuple(row))
    return tuple(cells)


def column_of(index: int, count: int, width: int) -> int:
    """The plot column (cell) of request ``index`` of ``count``: where its mark, its axis
    number and the cursor on it are drawn."""
    return min(width - 1, index * width // max(1, count))


def _mark_row(marks: Sequence[str], width: int) -> tuple[str, ...]:
    """One glyph per plot column: each request's marks in its own column only, so a request
    spread over several columns (fewer requests than columns) is still one mark."""
    n = len(marks)
    kinds: list[set[str]] = [set() for _ in range(width)]
    for k, mark in enumerate(marks):
        if mark:
            kinds[column_of(k, n, width)].update(mark)
    return tuple(" " if not k else next(iter(k)) if len(k) == 1 else SEVERAL for k in kinds)


CURSOR_MARK = "▲"
"""Points up at the cursor's column from its number on the axis, so the cursor's request is
never read as the last one's (whose number sits at the right end)."""


def axis_line(count: int, width: int, cursor: int) -> str:
    """``1`` under the first request, the count under the last, and ``▲936`` under the
    cursor's column (``936▲`` at the right edge); a fixed number the cursor's would touch is
    left out, so no number shows twice."""
    line = [" "] * width
    if count <= 0 or width <= 0:
        return "".join(line)

    def placed(index: int) -> tuple[int, str]:
        text = f"{index + 1:,}"
        centre = column_of(index, count, width) - len(text) // 2
        return max(0, min(centre, width - len(text))), text

    column, number = column_of(cursor, count, width), f"{cursor + 1:,}"
    if column + 1 + len(number) <= width:
        here_at, here = column, CURSOR_MARK + number
    else:
        here_at, here = max(0, column - len(number)), number + CURSOR_MARK
    for start, text in (placed(0), placed(count - 1)):
        if start + len(text) < here_at or start > here_at + len(here):
            line[start : start + len(text)] = text
    line[here_at : here_at + len(here)] = here
    return "".join(line[:width])


def _runs(cells: Sequence[tuple[str, str]], style: Callable[[str], Style]) -> list[Segment]:
    """Consecutive cells of one series as one segment each."""
    out: list[Segment] = []
    start = 0
    for i in range(1, len(cells) + 1):
        if i == len(cells) or cells[i][1] != cells[start][1]:
            owner = cells[start][1]
            out.append(Segment("".join(c for c, _ in cells[start:i]), style(owner)))
            start = i
    return out


class TimelineChart(Widget, can_focus=True):
    """The chart and its request cursor; moving the cursor posts ``Moved``."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "left",
            "move(-1)",
            "Previous request",
            show=False,
            id="timeline.previous",
            tooltip="Move the cursor to the request before",
        ),
        Binding(
            "right",
            "move(1)",
            "Next request",
            show=False,
            id="timeline.next",
            tooltip="Move the cursor to the request after",
        ),
        Binding(
            "pageup",
            "page(-1)",
            "Back a page",
            show=False,
            id="timeline.page_back",
            tooltip="Move the cursor back a tenth of the requests",
        ),
        Binding(
            "pagedown",
            "page(1)",
            "On a page",
            show=False,
            id="timeline.page_on",
            tooltip="Move the cursor on a tenth of the requests",
        ),
        Binding(
            "home",
            "first",
            "First request",
            show=False,
            id="timeline.first",
            tooltip="Move the cursor to the first request",
        ),
        Binding(
            "end",
            "last",
            "Last request",
            show=False,
            id="timeline.last",
            tooltip="Move the cursor to the last request",
        ),
        Binding(
            "left_square_bracket",
            "event(-1)",
            "Previous event",
            id="timeline.prev_event",
            group=EVENTS,
            tooltip="Move the cursor to the last marked request before it",
        ),
        Binding(
            "right_square_bracket",
            "event(1)",
            "Next event",
            id="timeline.next_event",
            group=EVENTS,
            tooltip="Move the cursor to the next marked request",
        ),
    ]

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "timeline-chart--mark",
        "timeline-chart--axis",
        "timeline-chart--cursor",
    }

    DEFAULT_CSS = """
    TimelineChart { background: $surface; }
    TimelineChart > .timeline-chart--mark { color: $text-warning; text-style: bold; }
    TimelineChart > .timeline-chart--axis { color: $text-muted; }
    TimelineChart > .timeline-chart--cursor { background: $primary 35%; }
    TimelineChart:focus > .timeline-chart--cursor { background: $primary 60%; }
    """

    cursor: reactive[int] = reactive(0, repaint=False, init=False)
    """Index of the selected request."""

    class Moved(Message):
        """The cursor moved to request ``index``; only the newest one is worth handling."""

        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

        def can_replace(self, message: Message) -> bool:
            return isinstance(message, TimelineChart.Moved)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._figures: ChartFigures | None = None
        self._drawing: tuple[tuple[int, int], Drawing] | None = None
        self._styles: dict[str, Style] = {}

    def show(self, figures: ChartFigures, cursor: int | None = None) -> None:
        """Draw ``figures``; the cursor stays on its request when the replay still has it."""
        self._figures = figures
        self._drawing = None
        self.cursor = max(0, min(self.cursor if cursor is None else cursor, self.count - 1))
        self.refresh()

    @property
    def count(self) -> int:
        return len(self._figures.simulated) if self._figures is not None else 0

    @property
    def figures(self) -> ChartFigures | None:
        return self._figures

    # -- the cursor ------------------------------------------------------------------------

    def select(self, index: int) -> None:
        self.cursor = max(0, min(index, self.count - 1))

    def watch_cursor(self) -> None:
        self.refresh()
        self.post_message(self.Moved(self.cursor))

    def action_move(self, step: int) -> None:
        self.select(self.cursor + step)

    def action_page(self, direction: int) -> None:
        self.select(self.cursor + direction * max(1, self.count // 10))

    def action_first(self) -> None:
        self.select(0)

    def action_last(self) -> None:
        self.select(self.count - 1)

    def action_event(self, direction: int) -> None:
        """The nearest request in ``direction`` that carries any mark."""
        if self._figures is None:
            return
        marks = self._figures.marks
        order = (
            range(self.cursor + 1, self.count) if direction > 0 else range(self.cursor - 1, -1, -1)
        )
        found = next((k for k in order if marks[k]), None)
        if found is not None:
            self.select(found)

    def on_click(self, event: events.Click) -> None:
        width = self.size.width - GUTTER
        if self.count and width > 0 and event.x >= GUTTER:
            self.select((event.x - GUTTER) * self.count // width)

    # -- painting --------------------------------------------------------------------------

    def cursor_column(self, width: int) -> int:
        """The plot column (cell) of the cursor's request."""
        return column_of(self.cursor, self.count, width)

    def _current(self, width: int, height: int) -> Drawing | None:
        if self._figures is None or width <= 0 or height <= 0:
            return None
        if self._drawing is None or self._drawing[0] != (width, height):
            self._drawing = ((width, height), draw(self._figures, width, height))
        return self._drawing[1]

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styles.clear()
        self.refresh()

    def _style(self, name: str) -> Style:
        """The base style plus component class ``name`` (``""``: the base alone), cached
        until the theme changes: resolving a class per cell would dominate a frame."""
        style = self._styles.get(name)
        if style is None:
            style = self.rich_style
            if name in SERIES_COLOURS:
                style += self.series_style(name)
            elif name:
                style += component_style(self, f"timeline-chart--{name}")
            self._styles[name] = style
        return style

    def series_style(self, name: str) -> Style:
        """A series' own colour (``SERIES_COLOURS``) for the theme's background, dark or light;
        the legend draws its swatches with it."""
        shade = "dark" if self.app.current_theme.dark else "light"
        colours = SERIES_COLOURS.get(name)
        if colours is None:
            return component_style(self, f"timeline-chart--{name}")
        return Style(color=colours[shade])

    def render_line(self, y: int) -> Strip:
        total = self.size.width
        width, height = total - GUTTER, self.size.height - 2
        drawing = self._current(width, height)
        if drawing is None:
            return Strip.blank(total, self.rich_style)
        column = self.cursor_column(width)
        axis = self._style("axis")
        if y < height:
            label = drawing.labels.get(y, "")
            segments = [Segment(f"{label:>{GUTTER - 2}} ┤", axis)]
            cells = drawing.cells[y]
            segments += _runs(cells[:column], self._style)
            char, owner = cells[column]
            segments.append(Segment(char, self._style(owner) + self._style("cursor")))
            segments += _runs(cells[column + 1 :], self._style)
        elif y == height:
            mark = self._style("mark")
            glyphs = drawing.marks
            here = "▲" if glyphs[column] == " " else glyphs[column]
            segments = [
                Segment(" " * (GUTTER - 1) + "└", axis),
                Segment("".join(glyphs[:column]), mark),
                Segment(here, mark + self._style("cursor")),
                Segment("".join(glyphs[column + 1 :]), mark),
            ]
        else:
            segments = [Segment(" " * GUTTER + axis_line(self.count, width, self.cursor), axis)]
        return Strip(segments).adjust_cell_length(total, self.rich_style)
