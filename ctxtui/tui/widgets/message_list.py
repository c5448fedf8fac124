"""The message list: one row per message plus the fresh-tail boundary, painted with the Line API.

Like Toolong's ``LogLines``, the widget only renders the rows on screen: ``render_line`` builds
one row from the session and the plan, caches the strip in an LRU keyed by what changes its
look, and ``virtual_size`` tells the scrollbars how tall the whole list is. The cost of a frame
depends on the terminal's height, never on the number of messages. What a row *says* comes
from ``ctxtui.core.planning.rows`` and is fitted to the width by ``ctxtui.tui.cells``; this widget
only picks colours from its component classes.
A search query, when set, is marked in every row that shows it (``message-list--search-match``).
A row's figure and bar are the tokens the request sends for its message
(``core/planning/as_sent.py``), so the rows of a zone add up to the gauge's segment; the stored
size and the tokens freed are its tag.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import BindingType
from textual.cache import LRUCache
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from ctxtui.core.planning.as_sent import row_figures
from ctxtui.core.planning.plan import Plan
from ctxtui.core.planning.rows import tool_label
from ctxtui.core.session.models import Session
from ctxtui.tui.cells import Row, RowLayout, bar_scale, boundary_rule, layout_columns, row_cells
from ctxtui.tui.widgets.row_keys import row_bindings
from ctxtui.tui.widgets.theme_style import component_style, readable_on

BOUNDARY = -1
"""``row_to_index`` answer for the boundary rule, which is a row but not a message."""


@dataclass(frozen=True, slots=True)
class Numbering:
    """Row labels for a session cut from a longer one: ``first`` is the longer session's
    number of the first row after ``lead`` rows labelled ``lead_label`` (a stand-in summary);
    ``rows`` sizes the index column as the longer session would."""

    first: int
    rows: int
    lead: int = 0
    lead_label: str = "S"

    def label(self, index: int) -> str:
        if index < self.lead:
            return self.lead_label
        return f"{self.first + index - self.lead:,}"


class MessageList(ScrollView, can_focus=True, inherit_bindings=False):
    """Every message of the session as a row, coloured by the zone the plan put it in.

    Bindings are not inherited: ``ScrollView``'s left/right and page-left/right scroll
    sideways, which a list that never scrolls sideways does not do, and help would list them.
    """

    BINDINGS: ClassVar[list[BindingType]] = row_bindings("list")

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "message-list--tail",
        "message-list--kept",
        "message-list--dropped",
        "message-list--pruned",
        "message-list--tag",
        "message-list--index",
        "message-list--role",
        "message-list--tool",
        "message-list--tokens",
        "message-list--bar",
        "message-list--cursor",
        "message-list--boundary",
        "message-list--search-match",
    }

    DEFAULT_CSS = """
    MessageList {
        background: $surface;
        scrollbar-gutter: stable;
        overflow-x: hidden;
    }
    """

    cursor: reactive[int] = reactive(0, repaint=False, init=False)
    """Index of the selected message."""

    class Selected(Message):
        """The cursor moved to message ``index``; only the newest one is worth handling."""

        def __init__(self, message_list: MessageList, index: int) -> None:
            super().__init__()
            self.message_list = message_list
            self.index = index

        @property
        def control(self) -> MessageList:
            return self.message_list

        def can_replace(self, message: Message) -> bool:
            return isinstance(message, MessageList.Selected)

    def __init__(self, *, name: str | None = None, id: str | None = None) -> None:
        super().__init__(name=name, id=id)
        self._session: Session | None = None
        self._plan: Plan | None = None
        self._biggest = 0
        self._longest_tool = 0
        self._generation = 0
        self._layout: RowLayout | None = None
        self._query = ""
        self._cache: LRUCache[tuple[int, int, int, bool], Strip] = LRUCache(1024)
        self._styles: dict[str, Style] = {}
        self._numbering: Numbering | None = None

    # -- data ------------------------------------------------------------------------------

    @property
    def message_count(self) -> int:
        return len(self._session) if self._session is not None else 0

    @property
    def boundary_row(self) -> int | None:
        """The row the fresh-tail rule occupies (it sits above the first tail message)."""
        if self._plan is None or self._session is None or not self._session.messages:
            return None
        return min(self._plan.tail.start, len(self._session))

    def show(self, session: Session, plan: Plan, numbering: Numbering | None = None) -> None:
        """Display ``plan`` for ``session``; the cursor stays on its message when it still can.

        ``numbering`` labels the rows of a session cut from a longer one (the timeline's
        context at a request) with the longer one's message numbers.
        """
        if session is not self._session:
            self._longest_tool = max((len(tool_label(m)) for m in session.messages), default=0)
        self._session = session
        self._plan = plan
        self._numbering = numbering
        self._biggest = max(plan.effective_tokens, default=0)
        self._generation += 1
        self._layout = None
        self._cache.clear()
        self.virtual_size = Size(self.scrollable_content_region.width, self.row_count)
        self.cursor = self.validate_cursor(self.cursor)
        self.refresh()

    @property
    def scale(self) -> int:
        """The tokens a full bar stands for (``cells.bar_scale``), stated on screen by the
        main screen."""
        return bar_scale(self._biggest)

    @property
    def search_query(self) -> str:
        """The search text marked in the rows (empty: nothing marked)."""
        return self._query

    def highlight(self, query: str) -> None:
        """Mark ``query`` wherever a row shows it; an empty query clears the marks."""
        if query == self._query:
            return
        self._query = query
        self._generation += 1
        self._cache.clear()
        self.refresh()

    @property
    def row_count(self) -> int:
        return self.message_count + (1 if self.boundary_row is not None else 0)

    def row_to_index(self, row: int) -> int | None:
        """The message shown on ``row``, ``BOUNDARY`` for the rule, ``None`` past the end."""
        if row < 0 or row >= self.row_count:
            return None
        boundary = self.boundary_row
        if boundary is None or row < boundary:
            return row
        if row == boundary:
            return BOUNDARY
        return row - 1

    def index_to_row(self, index: int) -> int:
        boundary = self.boundary_row
        return index if boundary is None or index < boundary else index + 1

    # -- cursor ----------------------------------------------------------------------------

    def validate_cursor(self, value: int) -> int:
        return max(0, min(value, self.message_count - 1))

    def watch_cursor(self, old: int, new: int) -> None:
        self.refresh_line(self.index_to_row(old) - int(self.scroll_offset.y))
        self.refresh_line(self.index_to_row(new) - int(self.scroll_offset.y))
        self.scroll_to_index(new)
        self.post_message(self.Selected(self, new))

    def scroll_to_index(self, index: int, *, top: bool = False) -> None:
        """Scroll just enough to show message ``index`` (or put it at the top)."""
        row = self.index_to_row(index)
        height = self.scrollable_content_region.height
        y = int(self.scroll_offset.y)
        if top:
            self.scroll_to(y=max(0, row - 1), animate=False, immediate=True)
        elif row < y:
            self.scroll_to(y=row, animate=False, immediate=True)
        elif height and row >= y + height:
            self.scroll_to(y=row - height + 1, animate=False, immediate=True)

    def select(self, index: int, *, top: bool = False) -> None:
        """Move the cursor to ``index``; ``top`` scrolls it near the top of the view."""
        self.cursor = index
        if top:
            self.scroll_to_index(self.cursor, top=True)

    def action_cursor_up(self) -> None:
        self.cursor -= 1

    def action_cursor_down(self) -> None:
        self.cursor += 1

    def action_page_up(self) -> None:
        self.cursor -= max(1, self.scrollable_content_region.height - 1)

    def action_page_down(self) -> None:
        self.cursor += max(1, self.scrollable_content_region.height - 1)

    def action_first(self) -> None:
        self.cursor = 0

    def action_last(self) -> None:
        self.cursor = self.message_count - 1

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        index = self.row_to_index(offset.y + int(self.scroll_offset.y))
        if index is not None and index != BOUNDARY:
            self.cursor = index

    # -- painting --------------------------------------------------------------------------

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._cache.clear()
        self._styles.clear()

    def on_resize(self, event: events.Resize) -> None:
        self._layout = None
        self.virtual_size = Size(self.scrollable_content_region.width, self.row_count)

    def _row_layout(self, width: int) -> RowLayout:
        if self._layout is None or self._layout.width != width:
            numbering = self._numbering
            self._layout = layout_columns(
                width,
                rows=self.message_count if numbering is None else numbering.rows,
                biggest=self._biggest,
                longest_tool=self._longest_tool,
            )
        return self._layout

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        row = y + int(self.scroll_offset.y)
        index = self.row_to_index(row)
        if index is None or width <= 0:
            return Strip.blank(width, self.rich_style)
        selected = index == self.cursor
        key = (self._generation, index, width, selected)
        strip = self._cache.get(key)
        if strip is None:
            text = self._boundary_text(width) if index == BOUNDARY else self._row_text(index, width)
            strip = Strip(text.render(self.app.console), width).adjust_cell_length(
                width, self.rich_style
            )
            self._cache[key] = strip
        return strip

    def _style(self, name: str) -> Style:
        """Component class ``name``'s style, its colour made readable on the list's
        background (``readable_on``), cached until the theme changes."""
        style = self._styles.get(name)
        if style is None:
            style = readable_on(
                component_style(self, f"message-list--{name}"), self.rich_style.bgcolor
            )
            self._styles[name] = style
        return style

    def _boundary_text(self, width: int) -> Text:
        assert self._plan is not None
        # Appended, not passed as Text(style=...): Text.render drops the base style of a
        # Text without spans, which left the rule in the terminal's default colours.
        text = Text(no_wrap=True, end="")
        text.append(
            boundary_rule(self._plan.tail, width), self.rich_style + self._style("boundary")
        )
        return text

    def _row_text(self, index: int, width: int) -> Text:
        assert self._session is not None and self._plan is not None
        plan = self._plan
        zone = plan.zone(index)
        pruned = index in plan.pruned
        message = self._session.messages[index]
        figures = row_figures(plan, index)
        tag = figures.tags() or ("summary" if message.is_summary else "")
        row = Row(index, message, figures.sent, tag)
        cells = row_cells(self._row_layout(width), row, self.scale, self._query)
        base = self.rich_style + self._style(zone.value)
        if pruned:
            base += self._style("pruned")
        if index == self.cursor:
            base += self._style("cursor")
        text = Text(style=base, no_wrap=True, end="")
        label = cells.index
        if self._numbering is not None:
            label = self._numbering.label(index).rjust(len(cells.index))
        text.append(label, self._style("index"))
        text.append(" ")
        text.append(cells.role, self._style("role"))
        text.append(" ")
        if cells.tool:
            text.append(cells.tool, self._style("tool"))
            text.append(" ")
        if cells.matches:
            match = self._style("search-match")
            done = 0
            for start, end in cells.matches:
                text.append(cells.preview[done:start])
                text.append(cells.preview[start:end], match)
                done = end
            text.append(cells.preview[done:])
        else:
            text.append(cells.preview)
        if cells.tag:
            text.append(cells.tag, self._style("tag"))
        text.append(" ")
        text.append(cells.tokens, self._style("tokens"))
        text.append(" ")
        text.append(cells.bar, self._style("bar"))
        return text
