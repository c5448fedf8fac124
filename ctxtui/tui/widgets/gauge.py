"""The budget gauge: the whole context window as one bar, split into the parts the plan counted."""

from __future__ import annotations

from typing import ClassVar

from rich.console import RenderableType
from rich.style import Style
from rich.text import Text
from textual.widget import Widget

from ctxtui.core.planning.plan import Plan, Pressure
from ctxtui.core.planning.rows import split_cells
from ctxtui.core.simulation.reported import ReportedGap
from ctxtui.tui.widgets.theme_style import component_style

# (name, bar character): the name is both the component class (``gauge--<name>``) and the
# legend's label. Free space is drawn light so the used part reads as one solid block;
# everything is a block character, no emoji.
SEGMENTS: tuple[tuple[str, str], ...] = (
    ("system", "█"),
    ("tools", "█"),
    ("summary", "█"),
    ("dropped", "█"),
    ("kept", "█"),
    ("tail", "█"),
    ("reserve", "▒"),
    ("free", "░"),
)

LABELS = {"tools": "tool defs", "reserve": "output reserve"}
"""Legend labels that differ from the segment's name: ``tools`` is the tool *definitions*
(schemas sent with every request), not the tool calls and outputs in the history; the
reserve is the output reserve, as ``report`` and its JSON (``output_reserve``) name it."""

SHORT = {"system": "sys", "tools": "defs", "summary": "sum", "dropped": "drop", "reserve": "rsv"}
"""Legend labels for a width where even single spaces between the full ones do not fit."""


def segment_values(plan: Plan) -> tuple[int, ...]:
    """The plan's totals in ``SEGMENTS`` order (reading, not computing: the planner added up)."""
    t = plan.totals
    return (
        t.system,
        t.tool_defs,
        t.summary,
        t.dropped,
        t.kept,
        t.tail,
        t.output_reserve,
        t.free,
    )


TRIGGER_MARK = "┃"
"""Drawn on the bar where the policy compacts: the answer to "how close is it?"."""


def trigger_cell(plan: Plan, cells: int) -> int | None:
    """The bar cell of the compaction trigger, or ``None`` when the policy never compacts.

    The bar is the whole window (or the request, when it is over the window) in ``cells``."""
    trigger = plan.totals.trigger
    total = sum(segment_values(plan))
    if trigger is None or trigger <= 0 or cells <= 0 or total <= 0 or trigger > total:
        return None
    return min(cells - 1, trigger * cells // total)


COST_MIN_WIDTH = 100
"""Narrower than this, the API line gives the request's dollars without its cache figure."""


class BudgetGauge(Widget):
    """Where the window goes: a bar, the figures, and a legend; coloured by the plan's pressure."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        *(f"gauge--{name}" for name, _ in SEGMENTS),
        "gauge--ok",
        "gauge--warning",
        "gauge--error",
        "gauge--label",
    }

    DEFAULT_CSS = """
    BudgetGauge {
        height: auto;
        padding: 0 1;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._plan: Plan | None = None
        self._reported: ReportedGap | None = None
        self._placeholder = "waiting for the session…"
        self._compact = False
        self._cost = ""

    def show_cost(self, words: str) -> None:
        """The last request's dollars and cache hit ratio, said after the API's figure."""
        if words != self._cost:
            self._cost = words
            self.refresh(layout=True)

    def set_compact(self, compact: bool) -> None:
        """On a short screen the API's figure joins the first line instead of taking a line
        of its own: at 80×24 every row goes to the list (the screen decides when)."""
        if compact != self._compact:
            self._compact = compact
            self.refresh(layout=True)

    def show(self, plan: Plan, reported: ReportedGap | None = None) -> None:
        """Draw ``plan``; ``reported`` (the API's count of the last request, when the
        transcript has one) adds a line comparing it with the plan's count of that request."""
        self._plan = plan
        self._reported = reported
        self.refresh(layout=True)

    def show_placeholder(self, text: str) -> None:
        """Say ``text`` instead of figures; only while there is no plan to show."""
        self._placeholder = text
        self.refresh(layout=True)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self.refresh()

    def _style(self, name: str) -> Style:
        return component_style(self, f"gauge--{name}")

    def render(self) -> RenderableType:
        plan = self._plan
        if plan is None:
            return Text(self._placeholder, style=self._style("label"))
        width = max(self.content_region.width, 10)
        reported = self._reported
        if reported is not None and self._compact:
            figures = self._with_reported(plan, reported, width)
        else:
            figures = self._figures(plan, width)
        lines = [figures, self._bar(plan, width), self._legend(plan, width)]
        if reported is not None and not self._compact:
            cost = self._cost_tail()
            if width < COST_MIN_WIDTH and cost.cell_len:  # narrow: the dollars, fewer words
                cost = self._cost_tail(short=True)
            room = width - cost.cell_len if cost.cell_len and width >= 60 else width
            line = self._reported_line(reported, room)
            lines.append(Text.assemble(line, cost) if room < width else line)
        return Text("\n").join(lines)

    def _cost_tail(self, short: bool = False) -> Text:
        """`` · last request $0.0107 · cache hit 98%`` (``short``: without the cache
        figure): the last request priced, when it was."""
        if not self._cost:
            return Text()
        words = self._short_cost() if short else self._cost
        return Text.assemble((" · ", self._style("label")), (words, Style(bold=True)))

    def _with_reported(self, plan: Plan, gap: ReportedGap, width: int) -> Text:
        """The figures line with ``· API 36,796 (+15,049)`` after it, the figures in fewer
        words to make room; a reported prompt over this window says the run's was larger."""
        api = f"API {gap.reported:,}"
        over = (f"{api} > window: the run's was larger", f"{api} > window")
        full = f"API reported {gap.reported:,} ({gap.gap:+,})"
        tails = (full, api)
        short = self._short_cost()
        # a prompt over the window first, then the request's dollars are worth fewer words
        # in the figures
        priced = [f"{t} · {short}" for t in tails] if short else []
        overs = over if gap.over_window else ()
        over_priced = [f"{o} · {short}" for o in overs] if short else []
        for group in (over_priced, overs, priced, tails):
            for figures in self._figure_variants(plan):
                for words in group:
                    tail = Text.assemble(("  · ", self._style("label")), (words, Style(bold=True)))
                    if figures.cell_len + tail.cell_len <= width:
                        return Text.assemble(figures, tail, no_wrap=True, overflow="ellipsis")
        return self._figures(plan, width)

    def _short_cost(self) -> str:
        """``last request $0.0108``: the request's dollars without its cache figure."""
        return self._cost.split(" · ")[0] if self._cost else ""

    def _reported_line(self, gap: ReportedGap, width: int) -> Text:
        """The API's count of the last request with usage, this tokenizer's count of the same
        prompt and the gap split in two: the longest of ``ReportedGap.lines`` (the words
        ``report``, ``replay`` and the timeline print) that fits, else the shortest cut."""
        words = gap.line_for(width)
        text = Text(words, style=self._style("label"), no_wrap=True, overflow="ellipsis")
        strong = Style(bold=True)
        for figure in (f"{gap.reported:,}", f"{gap.estimated:,}"):
            at = words.find(figure)
            if at >= 0:
                text.stylize(strong, at, at + len(figure))
        text.truncate(width, overflow="ellipsis")  # joined to the other lines, it would wrap
        return text

    def _figures(self, plan: Plan, width: int) -> Text:
        """The prompt sent, then the request (with the output reserve) against the window, in
        as many words as ``width`` allows: the words shrink first, the figures never do."""
        variants = self._figure_variants(plan)
        return next((v for v in variants if v.cell_len <= width), variants[-1])

    def _figure_variants(self, plan: Plan) -> list[Text]:
        """The figures line from the most words to the fewest."""
        t = plan.totals
        pressure = plan.pressure
        state = self._style(pressure.value)
        label = self._style("label")
        if pressure is Pressure.ERROR:
            notes = (f"over by {t.over_by:,}", f"over {t.over_by:,}")
        elif pressure is Pressure.WARNING:
            notes = ("near the compaction trigger", "near trigger")
        else:
            notes = ("", "")
        # The headline is the prompt sent; the request adds the output reserve to it.
        prompt, request = f"{t.tokens:,}", f"{t.requested:,} / {t.window:,}"
        variants = (
            (f"prompt {prompt} tok sent", request, " with the output reserve", notes[0]),
            (f"prompt {prompt}", request, " with reserve", notes[0]),
            (f"prompt {prompt}", request, "", notes[0]),
            (f"prompt {prompt}", request, "", notes[1]),
        )
        out = []
        for head, figures, unit, note in variants:
            text = Text(no_wrap=True, overflow="ellipsis")
            text.append(head, state + Style(bold=True))
            text.append(" · ", label)
            text.append(figures, state)
            text.append(unit, label)
            text.append(f"  {t.used_ratio:.1%}", state + Style(bold=True))
            if note:
                text.append(f"  {note}", state)
            out.append(text)
        return out

    def _bar(self, plan: Plan, width: int) -> Text:
        """The segments, and the trigger marked ``TRIGGER_MARK`` where the prompt would
        compact (on the cell that holds its token, so a bar past it reads as past it)."""
        values = segment_values(plan)
        cells = split_cells(values, width)
        text = Text(no_wrap=True, end="")
        for (name, char), n in zip(SEGMENTS, cells, strict=True):
            if n:
                text.append(char * n, self._style(name))
        at = trigger_cell(plan, sum(cells))
        if at is not None:
            mark = Text(TRIGGER_MARK, self._style("warning") + Style(bold=True), end="")
            text = Text.assemble(text[:at], mark, text[at + 1 :], no_wrap=True, end="")
        return text

    def _legend(self, plan: Plan, width: int) -> Text:
        """One line when it can be: the spacing, then the labels, shrink before it wraps;
        wrapped, each swatch stays on the line of its label and figure."""
        entries = [
            (name, char, value)
            for (name, char), value in zip(SEGMENTS, segment_values(plan), strict=True)
            if value > 0 or name in ("kept", "tail", "free")
        ]
        pieces: list[Text] = []
        trigger = plan.totals.trigger
        for gap, short in (("  ", False), (" ", False), (" ", True)):
            pieces = []
            for name, char, value in entries:
                piece = Text(char, self._style(name), end="")
                label = SHORT.get(name, name) if short else LABELS.get(name, name)
                piece.append(f" {label} ", self._style("label"))
                piece.append(f"{value:,}")
                pieces.append(piece)
            line = Text(gap).join(pieces)
            if trigger is not None and trigger > 0:  # the mark explained, where there is room
                mark = Text(TRIGGER_MARK, self._style("warning") + Style(bold=True), end="")
                mark.append(" trigger ", self._style("label"))
                mark.append(f"{trigger:,}")
                with_mark = Text(gap).join([*pieces, mark])
                if with_mark.cell_len <= width:
                    return with_mark
            if line.cell_len <= width:
                return line
        lines: list[Text] = []
        for piece in pieces:
            if lines and lines[-1].cell_len + 1 + piece.cell_len <= width:
                lines[-1].append(" ")
                lines[-1].append_text(piece)
            else:
                lines.append(piece)
        return Text("\n", overflow="fold").join(lines)
