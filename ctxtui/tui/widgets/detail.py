"""The detail pane: one message in full, shown literally, with its figures and its zone's reason."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from ctxtui.core.models import Message, Session
from ctxtui.core.plan import Zone
from ctxtui.core.rows import cap_text, find_spans, literal_block

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
    partners: str = ""
    why: str = ""
    counts: Mapping[str, int] | None = None  # None while still counting
    highlight: str = ""  # the search query, marked wherever the content shows it


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


def describe(info: DetailInfo) -> Text:
    """The pane's text. Built with ``Text.append`` only, so nothing in a message is markup."""
    m = info.message
    text = Text()
    text.append(f"#{info.index:,} ", "bold")
    text.append(m.role, "bold")
    if m.tool_name:
        text.append(f" · {m.tool_name}")
    text.append(f" · {info.zone.value}")
    if info.tag:
        text.append(f" · {info.tag}", "italic")
    text.append("\n")
    figures = f"{info.tokens:,} tok"
    if info.effective != info.tokens:
        figures += f" → {info.effective:,} sent"
    text.append(figures + "\n")
    if info.counts is None:
        text.append("counting under every tokenizer…", "dim")
        text.append("\n")
    else:
        text.append(" · ".join(f"{name} {n:,}" for name, n in info.counts.items()), "dim")
        text.append("\n")
    if info.partners:
        text.append(info.partners + "\n")
    usage = _usage_line(m)
    if usage:
        text.append(f"usage {usage}\n", "dim")
    if info.why:
        text.append(info.why + "\n", "italic")
    text.append("─" * 20 + "\n", "dim")
    _append_literal(text, m.content, info.highlight)
    for call in m.tool_calls:
        text.append(f"\n→ {call.name} ", "bold")
        _append_literal(text, call.arguments, info.highlight)
    if m.reasoning:
        text.append("\nreasoning ", "bold")
        _append_literal(text, m.reasoning, info.highlight)
    for part in m.parts:
        if part.kind.value != "text":
            label = part.label or part.media_type or ""
            text.append(f"\n<{part.kind.value} {label} {part.byte_size:,} bytes>", "dim")
    return text


MATCH_STYLE = "reverse bold"
"""How the search query is marked in the pane; reverse video reads in every theme."""


def _append_literal(text: Text, content: str, highlight: str = "") -> None:
    shown, more = cap_text(content, MAX_CHARS)
    block = literal_block(shown)
    done = 0
    for start, end in find_spans(block, highlight):
        text.append(block[done:start])
        text.append(block[start:end], MATCH_STYLE)
        done = end
    text.append(block[done:])
    if more:
        text.append(f"\n… {more:,} more bytes", "dim italic")


class DetailPane(VerticalScroll, can_focus=False):
    """The selected message, with its counts under every tokenizer and the plan's reason."""

    DEFAULT_CSS = """
    DetailPane {
        padding: 0 1;
    }
    DetailPane > #detail-body {
        width: 1fr;
    }
    """

    def compose(self) -> ComposeResult:
        yield Static(Text("no message selected", "dim"), id="detail-body")

    def show(self, info: DetailInfo | None) -> None:
        body = self.query_one("#detail-body", Static)
        if info is None:
            body.update(Text("no message selected", "dim"))
            return
        body.update(describe(info))
        self.scroll_home(animate=False)
