"""The tune view (`K`): the open session replayed under each candidate of its agent's
settings, the Pareto front as a scatter (dollars across, facts lost up, each point its
compactions; R, C and O the recommended, configured and observed points) and as a table;
Enter applies the row's settings to the open session (``core.tuning.space.candidate_policy``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import DataTable, Static

from ctxtui.core.tuning.document import front_rows, tune_words
from ctxtui.core.tuning.figure import figure, text_grid
from ctxtui.core.tuning.space import Settings
from ctxtui.options import debugging
from ctxtui.tui import tune_job
from ctxtui.tui.state import MainState
from ctxtui.tui.widgets.footer import FittingFooter

COLUMNS = ("mark", "settings", "trigger", "cost", "compactions", "lost", "peak")
CHART_HEIGHT = 8


@dataclass(frozen=True, slots=True)
class Tuned:
    """What the view dismisses with: a candidate's settings, to apply to the open session."""

    agent: str
    settings: Settings


def row_cells(row: dict[str, Any]) -> tuple[str, ...]:
    """One front row's cells: its marks, settings, trigger and scores."""
    cost = "-" if row["cost_usd"] is None else f"${row['cost_usd']:,.4f}"
    trigger = "-" if row["trigger"] is None else f"{row['trigger']:,}"
    return (
        row["mark"],
        " ".join(f"{k}={v}" for k, v in row["knobs"].items()),
        trigger,
        cost,
        f"{row['compactions']:,}",
        f"{row['lost_needed']:,}/{row['needed']:,}",
        f"{row['peak']:.0%}",
    )


class TuneScreen(Screen[Tuned | None]):
    """The candidates of the session's agent, scored on the open session."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,K", "close", "Back", id="tune.close", tooltip="Return to the main view"),
    ]

    DEFAULT_CSS = """
    TuneScreen #tune-title { padding: 0 1; text-style: bold; }
    TuneScreen #tune-chart { padding: 0 1; height: auto; }
    TuneScreen #tune-words { padding: 0 1; height: auto; color: $text-muted; }
    TuneScreen DataTable { height: 1fr; }
    TuneScreen #tune-status { padding: 0 1; color: $text-muted; height: auto; }
    """

    def __init__(self, state: MainState) -> None:
        super().__init__()
        session = state.session
        self.path = state.path
        self.format = session.meta.format if session is not None else None
        self.agent = tune_job.agent_for(self.format or "")
        self.doc: dict[str, Any] | None = None
        self.rows: list[dict[str, Any]] = []

    def compose(self) -> ComposeResult:
        yield Static(f"Tune · {self.agent} settings on this session", id="tune-title")
        yield Static("", id="tune-words", markup=False)
        yield Static("", id="tune-chart", markup=False)
        yield DataTable(id="tune-table", cursor_type="row", zebra_stripes=True)
        yield Static("", id="tune-status", markup=False)
        yield FittingFooter()

    def on_mount(self) -> None:
        self.query_one(DataTable).focus()
        if self.path is None:
            self._status("no session file to replay")
            return
        self._status("replaying the session under every candidate…")
        path, agent, fmt = self.path, self.agent, self.format
        self.run_worker(
            lambda: tune_job.run_tune_view(self.post_message, path, agent, fmt),
            thread=True,
            group="tune",
            exclusive=True,
            exit_on_error=debugging(),
        )

    def _status(self, text: str) -> None:
        self.query_one("#tune-status", Static).update(text)

    @on(tune_job.TuneProgress)
    def _progress(self, message: tune_job.TuneProgress) -> None:
        if self.doc is None:
            self._status(
                f"replaying the session under candidate {message.done + 1:,} of {message.total:,}…"
            )

    @on(tune_job.TuneDone)
    def _done(self, message: tune_job.TuneDone) -> None:
        if message.doc is None:
            self._status(f"cannot tune: {message.problem}")
            return
        self.doc = message.doc
        self.rows = front_rows(message.doc)
        lines = tune_words(message.doc)
        if (self.app.size.height or 24) < 30:  # a short screen keeps the last word only
            lines = lines[-1:]
        self.query_one("#tune-words", Static).update("\n".join(lines))
        self._draw()
        best = message.doc["recommended"]
        words = "no candidate fits" if best is None else "R: recommended"
        self._status(
            f"{len(self.rows):,} on the front of {len(message.doc['candidates']):,} · {words}"
            " · C: configured · O: observed · digits: compactions · enter: apply"
        )

    def on_resize(self) -> None:
        if self.doc is not None:
            self._draw()

    def _draw(self) -> None:
        assert self.doc is not None
        fig = figure(self.doc)
        width = max(10, (self.app.size.width or 80) - 14)
        height = max(3, min(CHART_HEIGHT, (self.app.size.height or 24) // 4))
        grid = text_grid(fig, width, height)
        lost_low, lost_high = fig.lost_range
        lines = [f"{lost_high:>6,} ┤{grid[0]}"]
        lines += [f"{'':>6} │{row}" for row in grid[1:-1]]
        lines.append(f"{lost_low:>6,} ┤{grid[-1]}")
        lines.append(f"{'':>6} └{'─' * width}")
        lines.append(f"{'lost ↑':>6}  dollars → {fig.cost_words}")
        chart = Text("\n".join(lines), no_wrap=True, overflow="crop")
        self.query_one("#tune-chart", Static).update(chart)
        table: DataTable[str] = self.query_one(DataTable)
        table.clear(columns=True)
        shown = [row_cells(row) for row in self.rows]
        for n, name in enumerate(COLUMNS):
            width = max([len(name), *(len(cells[n]) for cells in shown)])
            table.add_column(name, key=name, width=width)
        for row, cells in zip(self.rows, shown, strict=True):
            table.add_row(*cells, key=str(row["index"]))

    def action_close(self) -> None:
        self.workers.cancel_group(self, "tune")
        self.dismiss(None)

    @on(DataTable.RowSelected, "#tune-table")
    def _apply(self, event: DataTable.RowSelected) -> None:
        if self.doc is None or event.row_key.value is None:
            return
        chosen = self.doc["candidates"][int(event.row_key.value)]
        self.workers.cancel_group(self, "tune")
        self.dismiss(Tuned(self.agent, tuple(chosen["knobs"].items())))
