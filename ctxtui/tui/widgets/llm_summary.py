"""The model's summary as it streams in: the text (literally), then who wrote it.

The widget owns the call: ``send`` runs ``tui/llm_job.run_summary`` in a thread worker, the
pieces it posts are shown as they arrive, and ``stop`` cancels it (answers still on their way
are ignored by ticket). It tells its screen what happened in messages: ``Status`` (one line
for the preview) and ``Written`` (the finished summary).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Label, Static

from ctxtui.core.compacting.leaf_calls import LeafCalls
from ctxtui.core.literal import literal_block, visible
from ctxtui.llm.client import Endpoint, LLMSummary
from ctxtui.llm.wire import Stop
from ctxtui.options import debugging
from ctxtui.tui.llm_job import (
    SummaryCall,
    SummaryFailed,
    SummaryPiece,
    SummaryWritten,
    run_summary,
)

REDRAW_EVERY = 0.05
"""Seconds between redraws of the text while it streams."""


class LLMSummaryView(Vertical):
    """Hidden until a call starts; shows the streamed text, then a byline naming the model."""

    DEFAULT_CSS = """
    LLMSummaryView {
        height: auto;
        padding: 0 1;
    }
    LLMSummaryView #llm-byline {
        color: $text-muted;
        margin-top: 1;
    }
    """

    @dataclass
    class Status(Message):
        """One line for the preview (empty: nothing to say); ``failed`` marks an error."""

        line: str
        failed: bool = False

    @dataclass
    class Written(Message):
        """The model finished: its summary, who wrote it and what it cost."""

        summary: LLMSummary

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.running = False
        self._ticket = 0
        self._pieces: list[str] = []
        self._stop = Stop()
        self._redraw_pending = False

    def compose(self) -> ComposeResult:
        yield Static("", id="llm-text", markup=False)
        yield Label("", id="llm-byline", markup=False)

    def on_mount(self) -> None:
        self.display = False

    def send(self, endpoint: Endpoint, calls: LeafCalls) -> None:
        """Start the calls; the text appears as it streams."""
        self._ticket += 1
        self.running, self._pieces = True, []
        self._show("")
        self.query_one("#llm-byline").display = False
        self.display = True
        self.post_message(
            self.Status(f"Asking {visible(endpoint.model)} at {endpoint.shown}… (Escape stops)")
        )
        self._stop = Stop()
        work = partial(run_summary, self.post_message, endpoint, calls, self._ticket, self._stop)
        self.run_worker(
            work, thread=True, exclusive=True, group="llm", exit_on_error=debugging()
        )  # see jobs.bug_line

    def stop(self) -> None:
        """Cancel the running call, closing its connection now; whatever it still sends is
        ignored."""
        self._stop.press()
        self.workers.cancel_group(self, "llm")
        self._ticket += 1
        self.running, self.display = False, False
        self.post_message(self.Status("Stopped: the LLM call was cancelled; the stand-in stays"))

    def on_unmount(self) -> None:
        """Leaving (the screen closed, ``q``): the call must not outlive the view."""
        self._stop.press()

    def _show(self, text: str) -> None:
        """The model's text, literally: its escapes (OSC 52, a title) never reach the terminal."""
        self.query_one("#llm-text", Static).update(Text(literal_block(text)))

    @on(SummaryCall)
    def _call(self, event: SummaryCall) -> None:
        if event.ticket == self._ticket and event.total > 1:
            self._pieces = []  # each call rewrites the summary so far
            line = f"LLM call {event.index + 1:,} of {event.total:,}… (Escape stops)"
            self.post_message(self.Status(line))

    @on(SummaryPiece)
    def _piece(self, event: SummaryPiece) -> None:
        """Keep the piece; redraw at most every ``REDRAW_EVERY`` seconds, since a model that
        streams a character at a time would otherwise re-render the whole text per character."""
        if event.ticket == self._ticket:
            self._pieces.append(event.text)
            if not self._redraw_pending:
                self._redraw_pending = True
                self.set_timer(REDRAW_EVERY, partial(self._redraw, self._ticket))

    def _redraw(self, ticket: int) -> None:
        self._redraw_pending = False
        if ticket == self._ticket and self.running:
            self._show("".join(self._pieces))

    @on(SummaryWritten)
    def _written(self, event: SummaryWritten) -> None:
        if event.ticket != self._ticket:
            return
        summary = event.summary
        self.running = False
        self._show(summary.text)
        byline = self.query_one("#llm-byline", Label)
        byline.update(f"Summary {summary.byline}.")
        byline.display = True
        missing = ", ".join(summary.missing_sections)
        self.post_message(
            self.Status(f"The summary lacks these template sections: {missing}" if missing else "")
        )
        self.post_message(self.Written(summary))

    @on(SummaryFailed)
    def _failed(self, event: SummaryFailed) -> None:
        if event.ticket == self._ticket:
            self.running, self.display = False, False
            line = f"LLM summary failed: {event.problem}; the stand-in stays"
            self.post_message(self.Status(line, failed=True))
