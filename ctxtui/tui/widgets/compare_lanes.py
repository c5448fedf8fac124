"""The compare view's list: every message once, with one narrow lane per preset.

Each lane holds one glyph per message saying what that preset's plan does with it: ``T`` in
the fresh tail, ``K`` kept, ``·`` dropped (a compaction replaces it, or the request leaves it
out), ``p`` an output pruned to a stub while its message is still sent. Reading across a row
compares the presets on that message; reading down a lane shows where each preset's tail and
kept history begin, all at once. Like ``MessageList`` it is a Line-API ``ScrollView``: a row
is painted only when it is on screen, so 100,000 messages cost no more than 100.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import BindingType
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from ctxtui.core.compare import PresetPlan
from ctxtui.core.planning.plan import Plan, Zone
from ctxtui.core.planning.rows import ROLE_SHORT
from ctxtui.core.session.models import Session
from ctxtui.tui.cells import clip, preview
from ctxtui.tui.widgets.row_keys import row_bindings
from ctxtui.tui.widgets.theme_style import component_style, readable_on

GLYPHS: dict[str, str] = {"tail": "T", "kept": "K", "dropped": "·", "pruned": "p"}
"""The lane glyph of each mark; the legend under the list spells them out."""

LANE_CELLS = 2  # a glyph and a space


def lane_mark(plan: Plan, index: int) -> str:
    """What ``plan`` does with message ``index``: tail, kept, dropped or pruned."""
    zone = plan.zone(index)
    if zone is not Zone.DROPPED and index in plan.pruned:
        return "pruned"
    return zone.value


class CompareLanes(ScrollView, can_focus=True, inherit_bindings=False):
    """Rows of ``index role lanes preview``; the cursor row is the message the view reports."""

    BINDINGS: ClassVar[list[BindingType]] = row_bindings("compare")

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "compare-lanes--tail",
        "compare-lanes--kept",
        "compare-lanes--dropped",
        "compare-lanes--pruned",
        "compare-lanes--index",
        "compare-lanes--role",
        "compare-lanes--cursor",
    }

    DEFAULT_CSS = """
    CompareLanes {
        background: $surface;
        scrollbar-gutter: stable;
        overflow-x: hidden;
    }
    CompareLanes > .compare-lanes--tail { color: $text-success; text-style: bold; }
    CompareLanes > .compare-lanes--kept { color: $text-primary; text-style: bold; }
    CompareLanes > .compare-lanes--dropped { color: $text-error; }
    CompareLanes > .compare-lanes--pruned { color: $text-warning; text-style: bold; }
    CompareLanes > .compare-lanes--index { color: $text-muted; }
    CompareLanes > .compare-lanes--role { text-style: bold; }
    CompareLanes > .compare-lanes--cursor { background: $primary 35%; }
    CompareLanes:focus > .compare-lanes--cursor { background: $primary 60%; }
    """

    cursor: reactive[int] = reactive(0, repaint=False, init=False)
    """Index of the selected message."""

    class Moved(Message):
        """The cursor moved to message ``index``."""

        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._session: Session | None = None
        self._plans: tuple[PresetPlan, ...] = ()
        self._styles: dict[str, Style] = {}

    def show(self, session: Session, plans: Sequence[PresetPlan]) -> None:
        """Display ``plans`` (one lane each, in order) for ``session``."""
        self._session = session
        self._plans = tuple(plans)
        self.virtual_size = Size(self.scrollable_content_region.width, len(session.messages))
        self.cursor = min(self.cursor, max(0, len(session.messages) - 1))
        # The cursor may have been set for these rows before they were here (the whole file
        # replacing the last segment): scrolled then, it stopped at the old list's end. The
        # new rows can be scrolled to once the size above is laid out.
        self.call_after_refresh(lambda: self._into_view(self.cursor))
        self.refresh()

    @property
    def message_count(self) -> int:
        return len(self._session.messages) if self._session is not None else 0

    def marks(self, index: int) -> tuple[str, ...]:
        """Each lane's mark for message ``index`` (what a test reads instead of the screen)."""
        return tuple(lane_mark(p.plan, index) for p in self._plans)

    # -- the cursor ------------------------------------------------------------------------

    def select(self, index: int) -> None:
        self.cursor = max(0, min(index, self.message_count - 1))

    def watch_cursor(self, old: int, new: int) -> None:
        self._into_view(new)
        self.refresh()
        self.post_message(self.Moved(new))

    def _into_view(self, row: int) -> None:
        """Scroll the least that puts ``row`` on screen."""
        if row < self.scroll_offset.y:
            self.scroll_to(y=row, animate=False)
        elif row >= self.scroll_offset.y + self.scrollable_content_region.height:
            self.scroll_to(y=row - self.scrollable_content_region.height + 1, animate=False)

    def action_cursor_up(self) -> None:
        self.select(self.cursor - 1)

    def action_cursor_down(self) -> None:
        self.select(self.cursor + 1)

    def action_page_up(self) -> None:
        self.select(self.cursor - max(1, self.scrollable_content_region.height - 1))

    def action_page_down(self) -> None:
        self.select(self.cursor + max(1, self.scrollable_content_region.height - 1))

    def action_first(self) -> None:
        self.select(0)

    def action_last(self) -> None:
        self.select(self.message_count - 1)

    def on_click(self, event: events.Click) -> None:
        row = event.y + int(self.scroll_offset.y)
        if 0 <= row < self.message_count:
            self.select(row)

    def on_resize(self, event: events.Resize) -> None:
        self.virtual_size = Size(self.scrollable_content_region.width, self.message_count)
        self._into_view(self.cursor)  # the lines above the lanes come and go as figures arrive

    # -- painting --------------------------------------------------------------------------

    def index_width(self) -> int:
        return len(str(max(0, self.message_count - 1)))

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        index = y + int(self.scroll_offset.y)
        if self._session is None or not 0 <= index < self.message_count or width <= 0:
            return Strip.blank(width, self.rich_style)
        text = self._row_text(index, width)
        return Strip(text.render(self.app.console), width).adjust_cell_length(
            width, self.rich_style
        )

    def _style(self, name: str) -> Style:
        """Component class ``name``'s style, its colour made readable on the lanes'
        background (``readable_on``: ``K`` in $text-primary read at 2.3:1 on some themes),
        cached until the theme changes."""
        style = self._styles.get(name)
        if style is None:
            style = readable_on(
                component_style(self, f"compare-lanes--{name}"), self.rich_style.bgcolor
            )
            self._styles[name] = style
        return style

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styles.clear()

    def _row_text(self, index: int, width: int) -> Text:
        assert self._session is not None
        message = self._session.messages[index]
        base = self.rich_style
        if index == self.cursor:
            base += self._style("cursor")
        text = Text(style=base, no_wrap=True, end="")
        text.append(str(index).rjust(self.index_width()), self._style("index"))
        text.append(" ")
        text.append(ROLE_SHORT[message.role].ljust(4), self._style("role"))
        text.append(" ")
        for mark in self.marks(index):
            text.append(GLYPHS[mark], self._style(mark))
            text.append(" ")
        used = cell_len(text.plain)
        text.append(clip(preview(message, max(0, width - used)), max(0, width - used)))
        return text
