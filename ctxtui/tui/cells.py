"""Row text fitted to terminal cells: token bars, clipped columns and the fresh-tail rule.

The message list paints 100,000 rows, so everything that decides how a row *fits* lives here,
as plain functions over strings and numbers that the tests pin down cell by cell; what a row
*says* comes from ``ctxtui.core.planning.rows``, and the widget only chooses colours. Widths are
terminal cells (``rich.cells``, the table Textual itself uses), so CJK text and box-drawing
characters line up.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import PurePath

from rich.cells import cell_len, set_cell_size
from rich.console import Console
from rich.text import Text

from ctxtui.core.literal import visible
from ctxtui.core.planning.plan import FreshTail
from ctxtui.core.planning.rows import (
    ROLE_SHORT,
    boundary_labels,
    find_spans,
    preview_source,
    tool_label,
)
from ctxtui.core.session.models import Message

EIGHTHS = "▏▎▍▌▋▊▉█"
"""Left-aligned blocks from one eighth to a full cell: a bar has eight steps per cell."""

ELLIPSIS = "…"

BAR_FLOOR = 1_000
"""The fewest tokens a full bar stands for. Scaled to the biggest message alone, a session of
short replies drew its 5-token message as a full bar; below this floor bars stay short."""


def bar_scale(biggest: int) -> int:
    """The tokens a full bar stands for: the biggest message, or ``BAR_FLOOR`` if more."""
    return max(biggest, BAR_FLOOR)


def scale_label(scale: int) -> str:
    """The scale as the screen states it, above the bars: ``full bar = 13,044 tok``."""
    return f"full bar = {scale:,} tok"


def bar_cells(tokens: int, biggest: int, width: int) -> str:
    """A token bar ``width`` cells wide, scaled so that ``biggest`` fills it exactly.

    Each cell has eight steps (``EIGHTHS``); the length is floored so no bar overstates its
    message, except that any non-zero message shows at least one eighth, so a 3-token reply is
    still visible next to a 40,000-token tool output.
    """
    if width <= 0:
        return ""
    if tokens <= 0 or biggest <= 0:
        return " " * width
    steps = width * 8
    filled = min(steps, max(1, tokens * steps // biggest))
    full, part = divmod(filled, 8)
    bar = "█" * full + (EIGHTHS[part - 1] if part else "")
    return bar + " " * (width - cell_len(bar))


CLIP_HEAD_CHARS_PER_CELL = 4
"""How many characters per cell ``clip`` reads of a long text before measuring it."""


def clip(text: str, width: int) -> str:
    """``text`` fitted to exactly ``width`` cells: padded, or cut with a trailing ``…``.

    A row shows at most ``width`` cells, but a preview may hold 4k characters, and Rich
    measures a text outside its single-width fast path grapheme by grapheme, which would be
    most of painting a screen. A head of a few characters per cell that is already wider
    than the row holds the cut, so only the head is measured; a text that is mostly
    zero-width characters is measured whole.
    """
    if width <= 0:
        return ""
    limit = width * CLIP_HEAD_CHARS_PER_CELL + 8
    if len(text) > limit:
        head = text[:limit]
        if cell_len(head) > width + 2:  # the cut, and the grapheme after it, lie in the head
            text = head
    if cell_len(text) <= width:
        return set_cell_size(text, width)
    return set_cell_size(text, width - 1) + ELLIPSIS


NAME_CELLS = 16
"""The fewest cells a long file name is shortened to (``cde583fb-….jsonl``) to keep a bar or
a title on one line: the first characters tell sessions apart, the suffix says the format."""


def shorten_name(name: str, cells: int) -> str:
    """``name`` in at most ``cells`` cells (never under ``NAME_CELLS``), its middle left out."""
    cells = max(cells, NAME_CELLS)
    if cell_len(name) <= cells:
        return name
    suffix = PurePath(name).suffix
    if cell_len(suffix) >= cells // 2:
        suffix = ""
    return clip(name, cells - cell_len(suffix)).rstrip(ELLIPSIS) + ELLIPSIS + suffix


def whole_words(title: str, width: int) -> str:
    """``title`` without its last `` · ``-separated words until it fits ``width`` cells, so a
    title never ends in a cut ``·``; the first word is cut with ``…`` as a last resort."""
    words = title.split(" · ")
    while len(words) > 1 and cell_len(" · ".join(words)) > width:
        words.pop()
    return clip(" · ".join(words), width).rstrip() if width > 0 else ""


def flow(phrases: Sequence[Text], separator: Text, width: int) -> list[Text]:
    """``phrases`` joined by ``separator`` in lines of ``width`` cells, broken only between
    phrases (``compacted (u`` / ``undoes, 1 deep)`` read as two thoughts); a phrase wider
    than a line is folded."""
    lines: list[Text] = []
    for phrase in phrases:
        if lines and lines[-1].cell_len + separator.cell_len + phrase.cell_len <= width:
            lines[-1].append_text(separator)
            lines[-1].append_text(phrase)
        else:
            lines.append(phrase.copy())
    folded: list[Text] = []
    for line in lines:
        if line.cell_len <= width:
            folded.append(line)
        else:
            folded.extend(line.wrap(Console(width=width), width, overflow="fold"))
    for line in folded:
        line.end = ""
        line.no_wrap = True
    return folded


def clip_tool(label: str, width: int) -> str:
    """``label`` fitted to ``width`` cells, keeping a ``+N`` count of further calls whole.

    ``run_shell +1`` cut plainly reads ``run_shell …``, which hides that the message made a
    second call; ``run_she… +1`` gives up part of the name instead.
    """
    name, sep, more = label.rpartition(" +")
    if cell_len(label) <= width or not sep or not more.isdigit():
        return clip(label, width)
    suffix = f" +{more}"
    room = width - cell_len(suffix)
    if room < 2:
        return clip(label, width)
    return clip(name, room) + suffix


def preview(message: Message, width: int, max_source: int = 4_096) -> str:
    """A literal one-line preview ``width`` cells wide.

    Only the first ``max_source`` characters are examined: a row can never show more, and a
    1 MB message must cost no more to preview than a short one.
    """
    return clip(visible(preview_source(message)[:max_source]), width)


@dataclass(frozen=True, slots=True)
class RowLayout:
    """Column widths, in cells, for a list ``width`` cells wide; a width of 0 hides a column.

    Columns are separated by one space: index, role, tool, preview (with the tag at its right),
    tokens, bar.
    """

    width: int
    index: int
    role: int
    tool: int
    preview: int
    tokens: int
    bar: int

    @property
    def short_roles(self) -> bool:
        return self.role < len("assistant")


def layout_columns(width: int, *, rows: int, biggest: int, longest_tool: int) -> RowLayout:
    """Share ``width`` between the columns, giving what is left to the preview.

    ``rows`` sizes the index column, ``biggest`` the token column, ``longest_tool`` the tool
    column (capped, and dropped on narrow screens before the preview gets too short).
    """
    index = len(f"{max(rows - 1, 0):,}")
    tokens = max(3, len(f"{max(biggest, 0):,}"))
    role = len("assistant") if width >= 100 else len("user")
    bar = 20 if width >= 120 else 10 if width >= 72 else 6
    tool = min(longest_tool, 16 if width >= 110 else 11 if width >= 64 else 0)
    used = index + role + tokens + bar + (tool + 1 if tool else 0) + 4  # four separators
    preview_w = width - used
    if preview_w < 8 and tool:
        preview_w += tool + 1
        tool = 0
    return RowLayout(
        width=width,
        index=index,
        role=role,
        tool=tool,
        preview=max(preview_w, 0),
        tokens=tokens,
        bar=bar,
    )


@dataclass(frozen=True, slots=True)
class RowCells:
    """One row's text, column by column, each exactly its column's width."""

    index: str
    role: str
    tool: str
    preview: str
    tag: str
    tokens: str
    bar: str
    matches: tuple[tuple[int, int], ...] = ()
    """Where the search query shows in ``preview``, as ``(start, end)`` character offsets."""

    @property
    def parts(self) -> tuple[str, ...]:
        """The row's pieces in display order, separators included."""
        out = [self.index, " ", self.role, " "]
        if self.tool:
            out += [self.tool, " "]
        out += [self.preview, self.tag, " ", self.tokens, " ", self.bar]
        return tuple(out)

    @property
    def text(self) -> str:
        return "".join(self.parts)


TEXT_CELLS = 40
"""The cells of message text a row keeps before its tag takes a shorter form."""


def fit_tag(tags: str | Sequence[str], preview: int) -> str:
    """The longest of ``tags`` (longest first) that leaves the text ``TEXT_CELLS`` cells, or
    the shortest; a single tag is kept as it is."""
    if isinstance(tags, str):
        return tags
    if not tags:
        return ""
    for tag in tags:
        if preview - cell_len(tag) - 1 >= min(TEXT_CELLS, preview // 2):
            return tag
    return tags[-1]


@dataclass(frozen=True, slots=True)
class Row:
    """One message as a row shows it: its ``index``, the ``message``, its ``tokens`` and its
    ``tag`` (e.g. ``pruned −1,234 tok``, or its forms, longest first: ``fit_tag``)."""

    index: int
    message: Message
    tokens: int
    tag: str | Sequence[str] = ""


def row_cells(layout: RowLayout, row: Row, biggest: int, query: str = "") -> RowCells:
    """Format ``row`` for ``layout`` (its index grouped: ``12,345``), its bar against
    ``biggest`` (pass ``bar_scale``'s answer); the tag is kept whole at the right of the
    preview, which gives way to it; ``query`` (the search) is located in the preview so the
    list can mark it.
    """
    index, message, tokens = row.index, row.message, row.tokens
    role = ROLE_SHORT[message.role] if layout.short_roles else message.role
    tag = fit_tag(row.tag, layout.preview)
    tag_text = f" {tag}" if tag else ""
    tag_w = min(cell_len(tag_text), layout.preview)
    shown = preview(message, layout.preview - tag_w)
    return RowCells(
        index=f"{index:,}".rjust(layout.index),
        role=clip(role, layout.role),
        tool=clip_tool(tool_label(message), layout.tool) if layout.tool else "",
        preview=shown,
        tag=clip(tag_text, tag_w) if tag_w else "",
        tokens=f"{tokens:,}".rjust(layout.tokens),
        bar=bar_cells(tokens, biggest, layout.bar),
        matches=find_spans(shown, query),
    )


def boundary_rule(tail: FreshTail, width: int) -> str:
    """The rule drawn between the last older message and the tail, exactly ``width`` cells.

    ``── label ─────``: the longest label that fits with its dashes, else the shortest clipped.
    """
    if width <= 0:
        return ""
    labels = boundary_labels(tail)
    label = next((f" {t} " for t in labels if cell_len(t) + 2 <= width - 4), None)
    if label is None:
        label = clip(f" {labels[-1]} ", max(width - 4, 0))
    return clip("──" + label + "─" * max(width - 2 - cell_len(label), 0), width)
