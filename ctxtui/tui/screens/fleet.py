"""The fleet view (`F`): every session your agents wrote, one row each, the totals above.

The rows come from ``ctxtui.fleet`` (the same jobs and index as ``ctxtui fleet``) in a
worker, and the table fills in as they arrive. A column's heading (or `s`) sorts by it, again
to reverse; `p` replays the whole fleet under the next preset; Enter opens the session.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from rich.cells import cell_len
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import DataTable, Static

from ctxtui.core.fleet import Row
from ctxtui.core.literal import visible
from ctxtui.core.policies.presets import PRESETS
from ctxtui.options import debugging, knob_label
from ctxtui.tui import fleet_job
from ctxtui.tui.fleet_rows import (
    BY_KEY,
    COLUMNS,
    FLOORS,
    HEADING_LINES,
    Column,
    cells,
    fitting_columns,
    ordered,
    summary,
)
from ctxtui.tui.screens.tools import fit_widths
from ctxtui.tui.state import MainState
from ctxtui.tui.widgets.footer import FittingFooter


class FleetScreen(Screen[Path | None]):
    """The sortable table of sessions with their aggregates; Enter opens one."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,F", "close", "Back", id="fleet.close", tooltip="Return to the main view"),
        Binding(
            "p", "next_preset", "Preset", id="fleet.preset", tooltip="Replay under the next preset"
        ),
        Binding("s", "sort_next", "Sort", id="fleet.sort", tooltip="Sort by the next column"),
    ]

    DEFAULT_CSS = """
    FleetScreen #fleet-title { padding: 0 1; text-style: bold; }
    FleetScreen #fleet-summary { padding: 0 1; height: auto; }
    FleetScreen DataTable { height: 1fr; margin: 1 0 0 0; }
    FleetScreen #fleet-status { padding: 0 1; color: $text-muted; height: auto; }
    """

    def __init__(self, state: MainState) -> None:
        super().__init__()
        policy = state.plan.policy if state.plan is not None else None
        self.preset = policy.preset if policy is not None else "plan"
        self.overrides = fleet_job.knob_overrides(state)
        self.rows: dict[int, Row] = {}
        self.sorted_by: tuple[str, bool] | None = None  # column key, reversed
        self.running = False

    def compose(self) -> ComposeResult:
        yield Static("", id="fleet-title", markup=False)
        yield Static("", id="fleet-summary", markup=False)
        yield DataTable(
            id="fleet-table", cursor_type="row", zebra_stripes=True, header_height=HEADING_LINES
        )
        yield Static("", id="fleet-status", markup=False)
        yield FittingFooter()

    def on_mount(self) -> None:
        self.query_one(DataTable).focus()
        self._start()

    # -- the run ---------------------------------------------------------------------------

    def _start(self) -> None:
        self.rows = {}
        self.query_one(DataTable).clear()
        self.running = True
        knobs = ", ".join(f"{knob_label(name)} {_knob(value)}" for name, value in self.overrides)
        self.query_one("#fleet-title", Static).update(
            f"Fleet · every session your agents wrote · preset {self.preset}"
            + (f" · {knobs}" if knobs else "")
        )
        self._status("finding sessions…")
        self._show_summary()
        self.run_worker(
            lambda: fleet_job.run_fleet_view(self.post_message, self.preset, self.overrides),
            thread=True,
            group="fleet",
            exclusive=True,
            exit_on_error=debugging(),
        )

    def _status(self, text: str) -> None:
        self.query_one("#fleet-status", Static).update(text)

    def _show_summary(self) -> None:
        rows = [self.rows[i] for i in sorted(self.rows)]
        self.query_one("#fleet-summary", Static).update(summary(rows, self.preset))

    @on(fleet_job.FleetRows)
    def _rows_arrived(self, message: fleet_job.FleetRows) -> None:
        if message.preset != self.preset:
            return  # a run the preset switch superseded
        for i, row in message.rows:
            self.rows[i] = row  # shown at the next progress report, ten times a second

    @on(fleet_job.FleetProgress)
    def _progress(self, message: fleet_job.FleetProgress) -> None:
        if message.preset != self.preset:
            return
        self._status(message.progress.words() + " · p: next preset")
        self._show_summary()
        self._rebuild()

    @on(fleet_job.FleetDone)
    def _done(self, message: fleet_job.FleetDone) -> None:
        if message.preset != self.preset:
            return
        self.running = False
        self._show_summary()
        self._rebuild()
        words = f"{len(self.rows):,} of {message.total:,} sessions"
        if message.interrupted:
            words += " (stopped)"
        if message.problem:
            words += f" · {message.problem}"
        self._status(f"{words} · enter: open · s / click a heading: sort · p: next preset")

    def on_resize(self) -> None:
        self._rebuild()

    def _rebuild(self) -> None:
        """The table in the chosen order (the listing's, newest first, until one is chosen),
        its columns fitted to the width: a cell that does not fit ends in ``…``."""
        table: DataTable[Text] = self.query_one(DataTable)
        order = sorted(self.rows) if self.sorted_by is None else ordered(self.rows, *self.sorted_by)
        shown = {i: cells(self.rows[i]) for i in order}
        natural = {
            c.key: max([c.heading_width, *(cell_len(row[n]) for row in shown.values())])
            for n, c in enumerate(COLUMNS)
        }
        room = (table.size.width or self.app.size.width) - 1
        columns = fitting_columns(natural, room, 2 * table.cell_padding)
        floors = [min(natural[c.key], FLOORS.get(c.key, natural[c.key])) for c in columns]
        widths = fit_widths(
            [natural[c.key] for c in columns], floors, room - 2 * table.cell_padding * len(columns)
        )
        at = [COLUMNS.index(c) for c in columns]
        cursor = table.cursor_row
        table.clear(columns=True)
        for column, width in zip(columns, widths, strict=True):
            table.add_column(_cell(column.heading, column, width), width=width, key=column.key)
        for i, row in shown.items():
            fitted = (_cell(row[n], c, w) for n, c, w in zip(at, columns, widths, strict=True))
            table.add_row(*fitted, key=str(i))
        if order:
            table.move_cursor(row=min(cursor, len(order) - 1))

    # -- keys ------------------------------------------------------------------------------

    def action_close(self) -> None:
        self.workers.cancel_group(self, "fleet")
        self.dismiss(None)

    def action_next_preset(self) -> None:
        names = list(PRESETS)
        self.preset = names[(names.index(self.preset) + 1) % len(names)]
        self.workers.cancel_group(self, "fleet")
        self._start()

    def action_sort_next(self) -> None:
        keys = [c.key for c in COLUMNS]
        current = self.sorted_by[0] if self.sorted_by else None
        self._sort(keys[(keys.index(current) + 1) % len(keys)] if current else keys[0])

    def _sort(self, column: str) -> None:
        same = self.sorted_by is not None and self.sorted_by[0] == column
        reverse = (not self.sorted_by[1]) if same and self.sorted_by else BY_KEY[column].numeric
        self.sorted_by = (column, reverse)
        self._rebuild()

    @on(DataTable.HeaderSelected, "#fleet-table")
    def _heading(self, event: DataTable.HeaderSelected) -> None:
        if event.column_key.value is not None:
            self._sort(event.column_key.value)

    @on(DataTable.RowSelected, "#fleet-table")
    def _open(self, event: DataTable.RowSelected) -> None:
        if event.row_key.value is None:
            return
        row = self.rows[int(event.row_key.value)]
        if row["error"]:
            self.notify(f"cannot open: {visible(str(row['error']))}", severity="warning")
            return
        self.workers.cancel_group(self, "fleet")
        self.dismiss(Path(row["path"]))


def _cell(text: str, column: Column, width: int) -> Text:
    """A cell (a heading: each of its lines), figures right-aligned; what does not fit ends
    in ``…``."""
    lines = text.split("\n")
    shown = "\n".join(line.rjust(width) if column.numeric else line for line in lines)
    return Text(shown, no_wrap=True, overflow="ellipsis")


def _knob(value: object) -> str:
    """A knob's value as people read it: numbers grouped, an enum by its value."""
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return str(getattr(value, "value", value))
