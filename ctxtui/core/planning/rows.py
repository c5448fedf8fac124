"""What a message-list row says, as plain data: literal text, labels, tags and match spans.

Content only (control characters made visible by ``core.literal``, tool labels, prune marks,
the fresh-tail labels, search matches, a gauge's cell shares); fitting it to terminal cells is
the shell's job (``ctxtui.tui.cells``), so the core needs no terminal library.
"""

from __future__ import annotations

from collections.abc import Sequence

from ctxtui.core.literal import visible
from ctxtui.core.planning.plan import FreshTail
from ctxtui.core.session.models import Message, PartKind

MINUS = "−"  # U+2212: a real minus sign reads better than a hyphen in "−1,234 tok"


def cap_text(text: str, max_chars: int) -> tuple[str, int]:
    """The first ``max_chars`` characters of ``text`` and how many UTF-8 bytes were left off,
    so the detail pane never renders a huge output whole."""
    if len(text) <= max_chars:
        return text, 0
    return text[:max_chars], len(text[max_chars:].encode("utf-8", "surrogatepass"))


def tool_label(message: Message) -> str:
    """The tool a row is about: a result's tool, or a call's (``read_file +2`` for several),
    shown literally on one line (``visible``): the name is the transcript's."""
    if message.role == "tool":
        return visible(message.tool_name or "")
    if message.tool_calls:
        first = visible(message.tool_calls[0].name)
        more = len(message.tool_calls) - 1
        return f"{first} +{more}" if more else first
    return ""


def find_spans(text: str, query: str) -> tuple[tuple[int, int], ...]:
    """Where ``query`` occurs in the displayed ``text``, case-insensitively, as ``(start, end)``
    offsets; nothing when lower-casing changes the length (``İ``), as offsets would be wrong."""
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


ROLE_SHORT = {
    "system": "sys",
    "developer": "dev",
    "user": "user",
    "assistant": "asst",
    "tool": "tool",
}


def boundary_labels(tail: FreshTail) -> tuple[str, ...]:
    """The fresh-tail rule's label, longest first; each shorter form keeps the tail's use of
    its budget and why it is over (``min turns`` must not be cut to ``min turn…``)."""
    figures = f"{tail.tokens:,} / {tail.budget:,}"
    over = f" · over budget ({tail.reason.value.replace('_', ' ')})" if tail.over_budget else ""
    return (
        tail.label(),
        f"fresh tail · {figures} tok{over}",
        f"tail {figures}{over}",
        f"tail {figures}",
    )


def split_cells(values: Sequence[int], width: int) -> list[int]:
    """Share ``width`` cells between ``values`` in proportion (largest remainder); a non-zero
    value gets at least one cell when there is room, so a small part stays visible."""
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
