"""Hand-built inputs for the modal screens, so their tests do not move when the core's text does."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, ClassVar

from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import (
    Footer,
    Static,
)

from ctxtui.core.compacting.compaction import CompactionResult
from ctxtui.core.errors import OverflowInfo
from ctxtui.core.policies.reasons import CompactReason
from ctxtui.core.session.models import Message, Session
from ctxtui.core.summaries.summary import StructuredSummary, SummaryItem, SummarySection

PROMPT = (
    "You summarize a SEGMENT of a conversation for future model turns.\n"
    "Keep file paths, commands and decisions verbatim.\n"
    "\n"
    "<conversation>\n"
    "[user] Fix tests/test_pricing.py::test_bulk_discount_rounding [bold]now[/bold]\n"
    "[assistant] I'll run pytest -x -q tests/test_pricing.py first.\n"
    "[tool] run_shell -> 2 failed, 41 passed\n"
    "</conversation>\n"
)
"""A prompt with markup-like brackets: the preview must show them, not style the text."""


def summary() -> StructuredSummary:
    def section(title: str, *items: tuple[str, int]) -> SummarySection:
        return SummarySection(title, tuple(SummaryItem(text, i) for text, i in items))

    return StructuredSummary(
        first=1,
        last=6,
        sections=(
            section("Goal", ("Make test_bulk_discount_rounding pass on main", 1)),
            section("Constraints", ("Line totals must be rounded half-up to cents", 1)),
            section("Progress", ("Reproduced: 2 failed, 41 passed", 3), ("Read pricing.py", 4)),
            section("Key Decisions", ("Use Decimal.quantize instead of round()", 5)),
            section("Next Steps", ("Patch pricing.py and re-run the tests", 6)),
            section("Critical Context"),
        ),
    )


def compaction_result(**changes: Any) -> CompactionResult:
    """Six messages (#1-#6) replaced by a structured summary; four stay in the tail. The
    requests carry an 8,192-token output reserve: the prompt goes from 32,768 to 4,096."""
    s = summary()
    compacted = Session(
        messages=(
            Message(role="system", content="You are a careful software engineering agent."),
            Message(role="user", content=s.render_markdown(), is_summary=True),
            Message(role="user", content="Also check the invoice totals."),
            Message(role="assistant", content="Running the invoice tests now."),
            Message(role="assistant", content="Both suites pass."),
        )
    )
    result = CompactionResult(
        session=compacted,
        summary=s,
        summary_text=s.render_markdown(),
        prompt=PROMPT,
        reason=CompactReason.PROACTIVE,
        replaced=(1, 6),
        messages_replaced=6,
        tokens_before=40_960,
        tokens_after=12_288,
        tail_kept=2,
        overflow=None,
        replaced_tokens=28_990,
        summary_tokens=318,
        output_reserve=8_192,
    )
    return dataclasses.replace(result, **changes)


OVERFLOW = OverflowInfo(
    model="gpt-4.1",
    context_window=32_768,
    requested_tokens=41_200,
    reason="fresh_tail_exceeds_window",
)


class HostScreen(Screen[None]):
    """The host's base screen: where the palette runs main-screen actions (preset, tokenizer)."""

    def action_preset(self, name: str) -> None:
        self.app.actions.append(f"preset:{name}")  # type: ignore[attr-defined]

    def action_tokenizer(self, spec: str) -> None:
        self.app.actions.append(f"tokenizer:{spec}")  # type: ignore[attr-defined]


class HostApp(App[None]):
    """A stand-in for the real app: a few bound actions and a way to push one modal.

    ``results`` collects what each pushed screen dismissed with.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("c", "compact", "Compact", id="compact"),
        Binding("u", "undo", "Undo", id="undo"),
        Binding("t", "jump_tail", "Jump to tail", id="jump_tail"),
        Binding("question_mark", "help", "Help", id="help"),
    ]

    def __init__(
        self,
        make_screen: Callable[[], Screen[Any]] | None = None,
        keymap: dict[str, str] | None = None,
    ) -> None:
        super().__init__()
        self.make_screen = make_screen
        self.keymap = keymap or {}
        self.results: list[object] = []
        self.actions: list[str] = []

    def get_default_screen(self) -> Screen[Any]:
        return HostScreen()

    def compose(self) -> ComposeResult:
        yield Static("host", id="host")
        yield Footer()

    def on_mount(self) -> None:
        self.set_keymap(self.keymap)
        if self.make_screen is not None:
            self.push_screen(self.make_screen(), callback=self.results.append)

    def action_compact(self) -> None:
        self.actions.append("compact")

    def action_undo(self) -> None:
        self.actions.append("undo")

    def action_jump_tail(self) -> None:
        self.actions.append("jump_tail")

    def action_help(self) -> None:
        self.actions.append("help")


SIZE = (100, 32)


def _text(app: HostApp, selector: str) -> str:
    return str(app.screen.query_one(selector, Static).render())
