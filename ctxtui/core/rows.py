"""Pure formatting of message-list rows: token bars, literal previews, column layout.

The message list paints 100,000 rows, so everything that decides *what* a row says lives here,
as plain functions over strings and numbers that the tests pin down cell by cell. The widget
only chooses colours. Widths are terminal cells (``rich.cells``, the table Textual itself
uses), so CJK text and box-drawing characters line up.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.cells import cell_len, set_cell_size

from ctxtui.core.models import Message, PartKind
from ctxtui.core.plan import FreshTail, Plan

EIGHTHS = "▏▎▍▌▋▊▉█"
"""Left-aligned blocks from one eighth to a full cell: a bar has eight steps per cell."""

ELLIPSIS = "…"
MINUS = "−"  # U+2212: a real minus sign reads better than a hyphen in "−1,234 tok"

_NEWLINE = "⏎"
_TAB = "⇥"
_CARRIAGE = "␍"
_ESCAPE = "␛"
_DELETE = "␡"
_UNKNOWN = "�"
# Invisible characters that reorder or hide text: a preview must never let them act.
_BIDI = frozenset("\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


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


def _visible_char(ch: str, *, keep_newlines: bool) -> str:
    code = ord(ch)
    if ch == "\n":
        return "\n" if keep_newlines else _NEWLINE
    if ch == "\t":
        return "\t" if keep_newlines else _TAB
    if ch == "\r":
        return _CARRIAGE
    if ch == "\x1b":
        return _ESCAPE
    if code < 0x20:
        return chr(0x2400 + code)  # the Unicode control pictures: ␀ ␁ … ␟
    if code == 0x7F:
        return _DELETE
    if 0x80 <= code < 0xA0 or ch in _BIDI:
        return _UNKNOWN
    return ch


def visible(text: str) -> str:
    """``text`` on one line with every control character shown, never acted on.

    Newlines become ``⏎``, tabs ``⇥``, ESC ``␛`` (so an ANSI escape reads ``␛[31m``), other C0
    controls their Unicode control pictures, and C1/bidi controls ``�``.
    """
    if text.isprintable():
        return text
    return "".join(_visible_char(ch, keep_newlines=False) for ch in text)


def literal_block(text: str) -> str:
    """Like ``visible`` but keeps line breaks and tabs, for the multi-line detail pane."""
    if text.isprintable():
        return text
    return "".join(_visible_char(ch, keep_newlines=True) for ch in text)


def cap_text(text: str, max_chars: int) -> tuple[str, int]:
    """The first ``max_chars`` characters of ``text`` and how many UTF-8 bytes were left off.

    The detail pane renders at most this much of a message, so a 1 MB tool output never stalls
    the screen; the caller shows the second value as "… N more bytes".
    """
    if len(text) <= max_chars:
        return text, 0
    return text[:max_chars], len(text[max_chars:].encode("utf-8", "surrogatepass"))


def clip(text: str, width: int) -> str:
    """``text`` fitted to exactly ``width`` cells: padded, or cut with a trailing ``…``."""
    if width <= 0:
        return ""
    if cell_len(text) <= width:
        return set_cell_size(text, width)
    return set_cell_size(text, width - 1) + ELLIPSIS


def tool_label(message: Message) -> str:
    """The tool a row is about: a result's tool, or a call's (``read_file +2`` for several)."""
    if message.role == "tool":
        return message.tool_name or ""
    if message.tool_calls:
        first = message.tool_calls[0].name
        more = len(message.tool_calls) - 1
        return f"{first} +{more}" if more else first
    return ""


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


def find_spans(text: str, query: str) -> tuple[tuple[int, int], ...]:
    """Where ``query`` occurs in ``text``, case-insensitively, as ``(start, end)`` offsets.

    The search itself matches case-folded contents; this marks what a row or the detail pane
    *shows*, so ``text`` is the displayed string. When lower-casing changes a string's length
    (a handful of characters such as ``İ`` do) offsets would be wrong, so nothing is marked.
    """
    if not query:
        return ()
    haystack, needle = text.lower(), query.lower()
    if len(haystack) != len(text) or not needle:
        return ()
    spans: list[tuple[int, int]] = []
    start = haystack.find(needle)
    while start >= 0:
        spans.append((start, start + len(needle)))
        start = haystack.find(needle, start + len(needle))
    return tuple(spans)


def preview_source(message: Message) -> str:
    """The text a row previews: the content, else the tool calls, else what else it carries."""
    if message.content:
        return message.content
    if message.tool_calls:
        return " ".join(f"{c.name}({c.arguments})" for c in message.tool_calls)
    if message.reasoning:
        return f"(reasoning) {message.reasoning}"
    labels = [p.label or p.media_type or p.kind.value for p in message.parts]
    if labels:
        return " ".join(f"<{label}>" for label in labels)
    if any(p.kind is PartKind.OPAQUE for p in message.parts):
        return "<opaque>"
    return ""


def preview(message: Message, width: int, max_source: int = 4_096) -> str:
    """A literal one-line preview ``width`` cells wide.

    Only the first ``max_source`` characters are examined: a row can never show more, and a
    1 MB message must cost no more to preview than a short one.
    """
    return clip(visible(preview_source(message)[:max_source]), width)


ROLE_SHORT = {
    "system": "sys",
    "developer": "dev",
    "user": "user",
    "assistant": "asst",
    "tool": "tool",
}


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
    index = len(str(max(rows - 1, 0)))
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


def row_cells(
    layout: RowLayout,
    index: int,
    message: Message,
    tokens: int,
    biggest: int,
    tag: str = "",
    query: str = "",
) -> RowCells:
    """Format message ``index`` for ``layout``; ``tag`` (e.g. ``pruned −1,234 tok``) is kept
    whole at the right of the preview, which gives way to it; ``query`` (the search) is
    located in the preview so the list can mark it.
    """
    role = ROLE_SHORT[message.role] if layout.short_roles else message.role
    tag_text = f" {tag}" if tag else ""
    tag_w = min(cell_len(tag_text), layout.preview)
    shown = preview(message, layout.preview - tag_w)
    return RowCells(
        index=str(index).rjust(layout.index),
        role=clip(role, layout.role),
        tool=clip_tool(tool_label(message), layout.tool) if layout.tool else "",
        preview=shown,
        tag=clip(tag_text, tag_w) if tag_w else "",
        tokens=f"{tokens:,}".rjust(layout.tokens),
        bar=bar_cells(tokens, biggest, layout.bar),
        matches=find_spans(shown, query),
    )


def boundary_labels(tail: FreshTail) -> tuple[str, ...]:
    """The fresh-tail rule's label, longest first: the core's own, then shorter forms.

    Each shorter form keeps what matters most on a narrow list: the tail's use against its
    budget, and why it is over budget when it is (``min turns`` must not be cut to ``min turn…``).
    """
    figures = f"{tail.tokens:,} / {tail.budget:,}"
    over = f" · over budget ({tail.reason.value.replace('_', ' ')})" if tail.over_budget else ""
    return (
        tail.label(),
        f"fresh tail · {figures} tok{over}",
        f"tail {figures}{over}",
        f"tail {figures}",
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


def pruned_tag(tokens_freed: int) -> str:
    return f"pruned {MINUS}{tokens_freed:,} tok"


def truncated_tag(tokens_freed: int) -> str:
    return f"truncated {MINUS}{tokens_freed:,} tok"


def row_tag(plan: Plan, index: int, message: Message) -> str:
    """The mark a row carries: what pruning or truncation frees, or that it is a summary."""
    pruned = plan.pruned.get(index)
    if pruned is not None:
        return pruned_tag(pruned.tokens_freed)
    truncated = plan.truncated.get(index)
    if truncated is not None:
        return truncated_tag(truncated.tokens_freed)
    return "summary" if message.is_summary else ""


def split_cells(values: Sequence[int], width: int) -> list[int]:
    """Share ``width`` cells between ``values`` in proportion (largest remainder).

    Every non-zero value gets at least one cell when there is room, so a 200-token system
    prompt is visible on a gauge whose window is 200,000 tokens.
    """
    total = sum(v for v in values if v > 0)
    if width <= 0 or total <= 0:
        return [0 for _ in values]
    exact = [max(v, 0) * width / total for v in values]
    cells = [int(x) for x in exact]
    for i, v in enumerate(values):
        if v > 0 and cells[i] == 0:
            cells[i] = 1
    # Hand out (or take back) cells by remainder until the sum is exactly width.
    order = sorted(range(len(values)), key=lambda i: exact[i] - int(exact[i]), reverse=True)
    while sum(cells) < width:
        for i in order:
            if sum(cells) >= width:
                break
            if values[i] > 0:
                cells[i] += 1
    while sum(cells) > width:
        i = max(range(len(cells)), key=lambda k: cells[k])
        cells[i] -= 1
    return cells
