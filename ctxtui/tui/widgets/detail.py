"""The detail pane: one message in full, shown literally, with its figures and its zone's reason.

The message's counts under every tokenizer are the pane's own business: a thread worker
counts the selected message, then its short neighbours, and posts them back, so the UI thread
never counts and a cursor moving through the list finds its counts already there.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import ClassVar

from rich.style import StyleType
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.message import Message as TextualMessage
from textual.widgets import Static
from textual.worker import get_current_worker

from ctxtui.core.literal import literal_block, visible
from ctxtui.core.planning.as_sent import row_figures
from ctxtui.core.planning.explain import why
from ctxtui.core.planning.plan import Plan, Zone
from ctxtui.core.planning.rows import cap_text, find_spans
from ctxtui.core.pricing.cost_words import CostView
from ctxtui.core.session.models import ContentPart, Message, Session
from ctxtui.core.wording import plural
from ctxtui.tui.widgets.theme_style import component_style

MAX_CHARS = 20_000
"""Characters of one message rendered at most; a 1 MB tool output must not stall the screen."""


@dataclass(frozen=True)
class DetailInfo:
    """Everything the pane shows about one message, gathered by the screen from the core."""

    index: int
    message: Message
    zone: Zone
    tokens: int
    effective: int
    tag: str = ""
    figures: str = ""  # sent, stored and freed, in a sentence (``RowFigures.detail``)
    partners: str = ""
    why: str = ""
    counts: Mapping[str, int] | None = None  # None while still counting
    highlight: str = ""  # the search query, marked wherever the content shows it
    carry: str = ""  # what it cost while in the context (``re-sent in 12 requests, $0.04``)


def partner_text(session: Session, index: int) -> str:
    """The message's tool-call partner(s), by index."""
    message = session.messages[index]
    if message.role == "tool":
        call = session.call_of_result.get(index)
        if call is None:
            return "orphan result: its tool call is not in the session"
        return f"result of the call in #{call:,}"
    results = session.results_of_call.get(index)
    if results:
        return "results in " + ", ".join(f"#{i:,}" for i in results)
    if message.tool_calls:
        return "no results recorded for these calls"
    return ""


def gather(session: Session, plan: Plan, index: int, highlight: str = "") -> DetailInfo | None:
    """What the pane shows about message ``index`` (``None`` past the end of the session)."""
    if not 0 <= index < len(session):
        return None
    message = session.messages[index]
    figures = row_figures(plan, index)
    return DetailInfo(
        index=index,
        message=message,
        zone=plan.zone(index),
        tokens=figures.original,
        effective=figures.sent,
        tag=figures.tag() or ("summary" if message.is_summary else ""),
        figures=figures.detail(),
        partners=partner_text(session, index),
        why=why(session, plan, index),
        highlight=highlight,
    )


def _usage_line(message: Message) -> str:
    usage = message.usage
    if usage is None:
        return ""
    parts = [
        f"{label} {value:,}"
        for label, value in (
            ("prompt", usage.prompt_total),
            ("cache read", usage.cached_read),
            ("cache write", usage.cache_write),
            ("output", usage.output),
            ("reasoning", usage.reasoning),
        )
        if value is not None
    ]
    source = f" ({usage.source})" if usage.source else ""
    return " · ".join(parts) + source


STYLES: Mapping[str, StyleType] = {
    "heading": "bold",
    "tag": "italic",
    "muted": "dim",
    "why": "italic",
    "label": "bold",
    "match": "reverse bold",
    "more": "dim italic",
}
"""The pane's looks by component class (``detail--<name>``), as plain styles for callers
without a widget; the pane itself takes them from the theme's CSS."""


def describe(info: DetailInfo, styles: Mapping[str, StyleType] = STYLES) -> Text:
    """The pane's text. Built with ``Text.append`` only, so nothing in a message is markup."""
    m = info.message
    text = Text()
    text.append(f"#{info.index:,} ", styles["heading"])
    text.append(m.role, styles["heading"])
    if m.tool_name:
        text.append(f" · {visible(m.tool_name)}")
    text.append(f" · {info.zone.value}")
    if info.tag:
        text.append(f" · {info.tag}", styles["tag"])
    text.append("\n")
    text.append((info.figures or f"{info.effective:,} tok sent") + "\n")
    if info.counts is None:
        text.append("counting under every tokenizer…", styles["muted"])
    else:
        text.append(" · ".join(f"{n} {c:,}" for n, c in info.counts.items()), styles["muted"])
    text.append("\n")
    if info.partners:
        text.append(info.partners + "\n")
    usage = _usage_line(m)
    if usage:
        text.append(f"usage {usage}\n", styles["muted"])
    if info.carry:
        text.append(f"carry: {info.carry}\n", styles["muted"])
    if info.why:
        text.append(info.why + "\n", styles["why"])
    text.append("─" * 20 + "\n", styles["muted"])
    _append_literal(text, m.content, info.highlight, styles)
    for call in m.tool_calls:
        text.append(f"\n→ {visible(call.name)} ", styles["label"])
        _append_literal(text, call.arguments, info.highlight, styles)
    if m.reasoning:
        text.append("\nreasoning ", styles["label"])
        _append_literal(text, m.reasoning, info.highlight, styles)
    for part in m.parts:
        if part.kind.value != "text":
            text.append(f"\n{_part_words(part)}", styles["muted"])
    return text


def _part_words(part: ContentPart) -> str:
    """``<image image/png 12,345 bytes, 1,000×1,000 px, 1,334 tok by its provider's rule>``."""
    label = part.label or part.media_type or ""
    size = plural(part.byte_size, "byte")
    if part.width is not None and part.height is not None:  # counted by its pixels
        size += f", {part.width:,}×{part.height:,} px"
        if part.token_estimate is not None:
            size += f", {part.token_estimate:,} tok by its provider's rule"
    return f"<{part.kind.value} {visible(label)} {size}>"


def _append_literal(
    text: Text, content: str, highlight: str, styles: Mapping[str, StyleType]
) -> None:
    shown, more = cap_text(content, MAX_CHARS)
    block = literal_block(shown)
    done = 0
    for start, end in find_spans(block, highlight):
        text.append(block[done:start])
        text.append(block[start:end], styles["match"])
        done = end
    text.append(block[done:])
    if more:
        text.append(f"\n… {plural(more, 'more byte')}", styles["more"])


PREFETCH = 40
"""Neighbours on each side of the selected message counted after it, when short enough."""

PREFETCH_CHARS = 20_000
"""Neighbours longer than this are counted only once selected (tiktoken on 1 MB takes long)."""


def _size(message: Message) -> int:
    size = len(message.content) + len(message.reasoning or "")
    return size + sum(len(c.arguments) + len(c.name) for c in message.tool_calls)


class DetailPane(VerticalScroll, can_focus=True):
    """The selected message, with its counts under every tokenizer and the plan's reason.

    Focusable (Tab from the list), so a long tool output can be read to its end with the
    keys ``VerticalScroll`` binds: arrows, PgUp/PgDn, Home/End.
    """

    COMPONENT_CLASSES: ClassVar[set[str]] = {f"detail--{name}" for name in STYLES}

    DEFAULT_CSS = """
    DetailPane {
        padding: 0 1;
    }
    DetailPane > #detail-body {
        width: 1fr;
    }
    DetailPane > .detail--heading { text-style: bold; }
    DetailPane > .detail--tag { text-style: italic; }
    DetailPane > .detail--muted { text-style: dim; }
    DetailPane > .detail--why { text-style: italic; }
    DetailPane > .detail--label { text-style: bold; }
    DetailPane > .detail--match { text-style: reverse bold; }
    DetailPane > .detail--more { text-style: dim italic; }
    """

    class _Counted(TextualMessage):
        """Messages of ``session`` counted under every tokenizer, by index."""

        def __init__(
            self, session: Session, chars_per_token: float, counts: dict[int, dict[str, int]]
        ) -> None:
            super().__init__()
            self.session = session
            self.chars_per_token = chars_per_token
            self.counts = counts

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._info: DetailInfo | None = None
        self._session: Session | None = None
        self._chars_per_token = 0.0
        self._counts: dict[int, Mapping[str, int]] = {}
        self._cost: CostView | None = None

    def set_cost(self, view: CostView | None) -> None:
        """The session priced: each message then says what it cost while in the context."""
        self._cost = view
        if self._info is not None:
            self._repaint()

    def compose(self) -> ComposeResult:
        yield Static(Text("no message selected", STYLES["muted"]), id="detail-body")

    def notify_style_update(self) -> None:
        super().notify_style_update()
        if self._info is not None:
            self._repaint()

    def show(
        self, info: DetailInfo | None, session: Session | None = None, chars_per_token: float = 0
    ) -> None:
        """Show ``info``; without its counts, count them (and the neighbours') in a worker."""
        if session is not self._session or chars_per_token != self._chars_per_token:
            self._session, self._chars_per_token = session, chars_per_token
            self._counts = {}
            self.workers.cancel_group(self, "detail")
        self._info = info
        if info is None:
            muted = component_style(self, "detail--muted")
            self.query_one("#detail-body", Static).update(Text("no message selected", muted))
            return
        self._repaint()
        self.scroll_home(animate=False)
        if info.counts is None and info.index not in self._counts and session and self.display:
            self._count(session, chars_per_token, self._wanted(session, info.index))

    def _repaint(self) -> None:
        assert self._info is not None
        info = self._info
        if info.counts is None and info.index in self._counts:
            info = replace(info, counts=self._counts[info.index])
        cost = self._cost
        if cost is not None and cost.session is self._session and not info.carry:
            info = replace(info, carry=cost.carry_words(info.index))
        styles = {name: component_style(self, f"detail--{name}") for name in STYLES}
        self.query_one("#detail-body", Static).update(describe(info, styles))

    def _wanted(self, session: Session, index: int) -> list[int]:
        """``index``, then its uncounted short neighbours, nearest first."""
        near = sorted(range(index - PREFETCH, index + PREFETCH + 1), key=lambda i: abs(i - index))
        return [index] + [
            i
            for i in near[1:]
            if 0 <= i < len(session)
            and i not in self._counts
            and _size(session.messages[i]) <= PREFETCH_CHARS
        ]

    @work(thread=True, exclusive=True, exit_on_error=False, group="detail", description="detail")
    def _count(self, session: Session, chars_per_token: float, wanted: list[int]) -> None:
        from ctxtui.core.tokens.counting import count_message_everywhere

        worker = get_current_worker()
        batch: dict[int, dict[str, int]] = {}
        for n, index in enumerate(wanted):
            if worker.is_cancelled:
                return
            try:
                batch[index] = count_message_everywhere(session.messages[index], chars_per_token)
            except Exception:  # the pane says "counting…" rather than crash the screen
                if n == 0:
                    return
                continue
            if n == 0 or len(batch) >= 8 or n == len(wanted) - 1:
                self.post_message(self._Counted(session, chars_per_token, batch))
                batch = {}

    @on(_Counted)
    def _counted(self, event: _Counted) -> None:
        if event.session is not self._session or event.chars_per_token != self._chars_per_token:
            return  # counted for a session or a policy no longer shown
        self._counts.update(event.counts)
        if self._info is not None and self._info.index in event.counts:
            self._repaint()
