"""The open dialog's list of sessions: one row per ``PickRow``, painted only when on screen.

A Line-API ``ScrollView`` like ``MessageList``: thousands of stored sessions cost no more than
the rows visible, and filtering replaces one list instead of rebuilding a table's cells
(a ``DataTable`` took seconds per keystroke at 2,000 sessions). The columns are fixed widths
(``pick_rows.COLUMNS``), so the heading above the list lines up with every row.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.cells import cell_len, set_cell_size
from rich.style import Style
from rich.text import Text
from textual import events
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from ctxtui.tui.pick_rows import COLUMNS, PickRow
from ctxtui.tui.widgets.theme_style import component_style

SHRINK = (("model", 10), ("project", 12), ("agent", 8))
"""The columns that give way when the list is narrower than ``COLUMNS`` (80×24), in order,
each down to its floor: the model first (its family reads in ten cells), then the project,
cut in its middle; started and size stay whole."""


MODEL_CELLS = 28
"""The model column's width when the list has room: ``claude-sonnet-4-5-20250929`` whole."""


def fitted_columns(width: int | None = None) -> tuple[tuple[str, int], ...]:
    """``COLUMNS`` fitted to ``width`` cells (separators included), so neither the heading
    wraps nor a row loses its size at the right edge; ``None`` keeps them as they are."""
    columns = dict(COLUMNS)
    if width is not None:
        over = sum(columns.values()) + len(columns) - 1 - width
        if over < 0:  # room to spare: a dated model name whole first, then the project
            grow = min(-over, MODEL_CELLS - columns["model"])
            columns["model"] += grow
            columns["project"] += -over - grow
            over = 0
        for name, floor in SHRINK:
            give = max(0, min(over, columns[name] - floor))
            columns[name] -= give
            over -= give
    return tuple(columns.items())


def _fit(text: str, cells: int, *, keep_end: bool = False) -> str:
    """``text`` in exactly ``cells`` cells; cut with ``…``, in its middle for a project path
    or a file name (its end names the project or the file, its start tells two apart:
    ``claude…replay.jsonl`` and ``codex_…replay.jsonl``, where both read ``…eplay.jsonl``)."""
    if cell_len(text) <= cells:
        return set_cell_size(text, cells)
    if cells <= 1:
        return "…"[:cells]
    if keep_end:
        head = (cells - 1) // 3
        tail = set_cell_size(text[::-1], cells - 1 - head)[::-1]
        return set_cell_size(text, head) + "…" + tail
    return set_cell_size(text, cells - 1) + "…"


def heading(width: int | None = None) -> str:
    """The column headings, spaced as the rows are; sizes are right-aligned, so is theirs."""
    *left, (size, cells) = fitted_columns(width)
    return " ".join([*(set_cell_size(label, w) for label, w in left), size.rjust(cells)])


class SessionTable(ScrollView, can_focus=False):
    """Rows of agent, project, model, started, size; the cursor row is the one Enter opens.

    It never takes the focus: the dialog's filter keeps the keys and moves this cursor.
    """

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "session-table--cursor",
        "session-table--error",
        "session-table--sample",
    }

    DEFAULT_CSS = """
    SessionTable {
        background: $surface;
        scrollbar-gutter: stable;
        overflow-x: hidden;
    }
    SessionTable > .session-table--cursor { background: $primary 60%; }
    SessionTable > .session-table--error { color: $text-error; }
    SessionTable > .session-table--sample { color: $text-muted; }
    """

    cursor: reactive[int] = reactive(0, repaint=False, init=False)

    class Highlighted(Message):
        """The cursor moved (or the rows changed under it)."""

    class Chosen(Message):
        """A row was clicked twice: open it."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.rows: Sequence[PickRow] = ()

    def show(self, rows: Sequence[PickRow]) -> None:
        """Display ``rows``; the cursor goes back to the first."""
        self.rows = rows
        self.virtual_size = Size(self.scrollable_content_region.width, len(rows))
        self.scroll_to(y=0, animate=False)
        self.cursor = 0
        self.post_message(self.Highlighted())
        self.refresh()

    @property
    def highlighted(self) -> PickRow | None:
        return self.rows[self.cursor] if 0 <= self.cursor < len(self.rows) else None

    def move(self, by: int) -> None:
        if self.rows:
            self.cursor = max(0, min(self.cursor + by, len(self.rows) - 1))

    def watch_cursor(self, old: int, new: int) -> None:
        height = self.scrollable_content_region.height
        if new < self.scroll_offset.y:
            self.scroll_to(y=new, animate=False)
        elif height and new >= self.scroll_offset.y + height:
            self.scroll_to(y=new - height + 1, animate=False)
        self.refresh()
        self.post_message(self.Highlighted())

    def on_click(self, event: events.Click) -> None:
        row = event.y + int(self.scroll_offset.y)
        if 0 <= row < len(self.rows):
            if row == self.cursor and event.chain > 1:
                self.post_message(self.Chosen())
            self.cursor = row

    def on_resize(self, event: events.Resize) -> None:
        self.virtual_size = Size(self.scrollable_content_region.width, len(self.rows))

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        index = y + int(self.scroll_offset.y)
        if not 0 <= index < len(self.rows) or width <= 0:
            return Strip.blank(width, self.rich_style)
        row = self.rows[index]
        style: Style = self.rich_style
        if row.found.error:
            style += component_style(self, "session-table--error")
        elif row.found.agent == "sample":
            style += component_style(self, "session-table--sample")
        if index == self.cursor:
            style += component_style(self, "session-table--cursor")
        columns = fitted_columns(width)
        cells = " ".join(
            _fit(text, cells, keep_end=name == "project" and not row.found.error)
            for text, (name, cells) in zip(row.cells, columns, strict=True)
        )
        text = Text(cells, style=style, no_wrap=True, end="")
        return Strip(text.render(self.app.console)).adjust_cell_length(width, style)
