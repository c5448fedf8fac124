"""A modal that previews a compaction: the summary, the exact LLM prompt, and the figures.

The summary shown is the local stand-in until ``s`` sends the prompt to the LLM the app is set
up with (``tui/llm_job.py``): its answer streams into the summary tab, which then names the
model and the call's tokens; Escape (or ``s`` again) stops the call, and a failure is one line
here while the stand-in stays. Applying uses the model's summary once it is complete.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Grid, Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Button, Label, Markdown, Static, TabbedContent, TabPane, TextArea

from ctxtui.core.compacting.compaction import CompactionResult
from ctxtui.core.compacting.leaf_calls import LeafCalls, with_llm_summary, with_summary_text
from ctxtui.core.session.models import Session
from ctxtui.core.summaries.retention import Audit
from ctxtui.core.summaries.retention import audit as audit_summary
from ctxtui.core.tokens.tokenizers import Tokenizer
from ctxtui.core.wording import plural
from ctxtui.llm.client import LLMSummary
from ctxtui.llm.wire import SummarizerError
from ctxtui.tui.compaction_text import (
    figure_rows,
    overflow_lines,
    prompt_preview,
)
from ctxtui.tui.llm_job import endpoint_for
from ctxtui.tui.screens.dialog import Dialog, button_row
from ctxtui.tui.settings import LLMSettings
from ctxtui.tui.widgets.llm_summary import LLMSummaryView
from ctxtui.tui.widgets.retention import RetentionView

__all__ = ["CompactionPreviewScreen", "PreviewContext"]

APPLY = "apply"
EXPORT = "export"
REASON = "reason"


@dataclass(frozen=True, slots=True)
class PreviewContext:
    """What the screen opening a preview knows of its session: how many messages it had before
    (for the figures), its tokenizer (to count an LLM summary), the LLM settings, and whether
    the reason dialog was skipped (``r`` then offers it from the preview)."""

    messages_before: int | None = None
    tokenizer: Tokenizer | None = None
    llm: LLMSettings | None = None
    choose_reason: bool = False


NO_CONTEXT = PreviewContext()


class CompactionPreviewScreen(Dialog[str | None]):
    """Show what a compaction would do before anything changes.

    Nothing is applied here: the screen dismisses with ``"apply"`` or ``"export"`` and the
    caller acts. An overflow the compaction cannot fix is shown as its error fields at the top,
    because that is the fact the user must act on.
    """

    DEFAULT_CSS = """
    CompactionPreviewScreen > #dialog {
        max-width: 120;
        height: 90%;
    }
    CompactionPreviewScreen #title {
        padding: 0 1;
        width: 1fr;
    }
    CompactionPreviewScreen #overflow {
        border-left: outer $error;
        background: $error 10%;
        color: $text-error;
        padding: 0 1;
        height: auto;
        margin-bottom: 1;
    }
    CompactionPreviewScreen TabbedContent {
        height: 1fr;
    }
    CompactionPreviewScreen TabPane {
        padding: 0;
    }
    CompactionPreviewScreen #prompt {
        height: 1fr;
        border: none;
    }
    CompactionPreviewScreen #figures {
        grid-size: 2;
        grid-columns: auto 1fr;
        grid-rows: auto;
        grid-gutter: 0 2;
        height: auto;
        padding: 1 1;
    }
    CompactionPreviewScreen #figures .figure-label {
        text-style: bold;
    }
    CompactionPreviewScreen #figures .figure-value {
        width: 1fr;
    }
    CompactionPreviewScreen #buttons {
        margin: 1 0 0 0;
    }
    CompactionPreviewScreen #llm-status {
        color: $text-muted;
        padding: 0 1;
        height: auto;
    }
    CompactionPreviewScreen #llm-status.-failed {
        color: $text-error;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "apply", "Apply", id="compaction.apply"),
        Binding("x", "export", "Export", id="compaction.export"),
        Binding("s", "send", "Send to LLM", id="compaction.send"),
        Binding("r", "reason", "Reason", id="compaction.reason"),
        # A modal screen hides the app's bindings; leaving must still work here, a running
        # LLM call included (the summary view hangs up as it unmounts).
        Binding("q", "app.quit", "Quit", show=False, id="compaction.quit"),
    ]
    DIALOG_ID = "compaction"

    def __init__(
        self,
        result: CompactionResult,
        *,
        calls: LeafCalls | None = None,
        audit: Audit | None = None,
        context: PreviewContext = NO_CONTEXT,
    ) -> None:
        super().__init__()
        self.result = result
        self.stand_in = result  # the compaction as computed, with the local summary
        self.tokenizer = context.tokenizer
        self.audit = audit  # the stand-in's retention audit (the Lost tab)
        self.choose_reason = context.choose_reason
        """The reason dialog was skipped (the reason only labels the event under this
        preset): ``r`` offers it from here."""
        self.messages_before = context.messages_before
        self.calls = calls
        self.llm = context.llm or LLMSettings()
        self.llm_summary: LLMSummary | None = None

    @property
    def session_to_apply(self) -> Session:
        """The compacted session, with the model's summary once one has been written."""
        if self.llm_summary is None:
            return self.stand_in.session
        return with_summary_text(self.stand_in, self.llm_summary.text)

    def _rows(self) -> list[tuple[str, str]]:
        llm = self.llm_summary
        extra = [("LLM summary", llm.byline)] if llm is not None else []
        return figure_rows(self.result, self.messages_before) + extra

    @property
    def _changes_something(self) -> bool:
        return self.result.replaced is not None

    def compose(self) -> ComposeResult:
        result = self.result
        with Vertical(id="dialog"):
            yield Label(self._title_text(), id="title")
            if result.overflow is not None:
                yield Static(overflow_lines(result.overflow), id="overflow")
            yield Static("", id="llm-status", markup=False)
            with TabbedContent(id="tabs"):
                with TabPane("Summary", id="summary-tab"), VerticalScroll():
                    yield from self._summary()
                    yield LLMSummaryView(id="llm-summary")
                with TabPane("LLM prompt", id="prompt-tab"):
                    if result.prompt_caption:
                        yield Label(result.prompt_caption, id="prompt-caption", markup=False)
                    yield TextArea(
                        prompt_preview(result.prompt, replaced=result.replaced is not None),
                        read_only=True,
                        soft_wrap=True,
                        show_cursor=False,
                        id="prompt",
                    )
                # A grid, so a long value wraps within its column, not under the labels.
                with TabPane("Figures", id="figures-tab"), VerticalScroll(), Grid(id="figures"):
                    for label, value in figure_rows(result, self.messages_before):
                        yield Label(label, classes="figure-label")
                        yield Label(value, classes="figure-value", markup=False)
                with TabPane("Lost", id="lost-tab"):
                    yield RetentionView(self.audit, id="retention")
            # Two groups, so that where the frame is narrow (80×24) the actions take a line
            # and the reason and Cancel the next. The keys stay in the labels: a dialog has
            # no footer to show them.
            reason = (
                [Button(Content(f"Reason: {result.reason.value} (r)"), compact=True, id=REASON)]
                if self.choose_reason
                else []
            )
            yield button_row(
                (
                    Button(Content("Apply (a)"), variant="primary", compact=True, id="apply"),
                    Button(Content("Export (x)"), compact=True, id="export"),
                    Button(Content("Send to LLM (s)"), compact=True, id="send"),
                ),
                (*reason, Button(Content("Cancel (esc)"), compact=True, id="cancel")),
            )

    def _title_text(self) -> str:
        """The prompt before → after, the figure the gauge heads with (the Figures tab gives
        the request, reserve included)."""
        r, whose = self.result, " (LLM summary)" if self.result is not self.stand_in else ""
        return (
            f"Compaction preview · {plural(r.messages_replaced, 'message')} · "
            f"prompt {r.prompt_before:,} → {r.prompt_after:,} tok{whose}"
        )

    def _show_figures(self) -> None:
        """The title and the Figures tab for ``self.result`` (the summary now shown)."""
        self.query_one("#title", Label).update(self._title_text())
        grid = self.query_one("#figures", Grid)
        grid.remove_children()
        grid.mount_all(
            label
            for name, value in self._rows()
            for label in (
                Label(name, classes="figure-label"),
                Label(value, classes="figure-value", markup=False),
            )
        )

    def _summary(self) -> ComposeResult:
        result = self.result
        if result.summary is not None:
            yield Markdown(result.summary.render_markdown(), id="summary")
        elif result.summary_text:
            # Legacy and emergency summaries are plain text: show them literally.
            yield Static(Text(result.summary_text), id="summary")
        else:
            yield Static(Text(result.note or "Nothing to summarise."), id="summary")

    def on_mount(self) -> None:
        for button_id in (APPLY, EXPORT):
            self.query_one(f"#{button_id}", Button).disabled = not self._changes_something
        self.query_one("#llm-status").display = False

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == REASON:
            return self.choose_reason
        if action in (APPLY, EXPORT) and not self._changes_something:
            return None  # shown dimmed in the footer: there is nothing to apply or export
        return True

    @on(Button.Pressed, "#apply")
    def action_apply(self) -> None:
        if self._changes_something:
            self.dismiss(APPLY)

    @on(Button.Pressed, "#export")
    def action_export(self) -> None:
        if self._changes_something:
            self.dismiss(EXPORT)

    @on(Button.Pressed, "#reason")
    def action_reason(self) -> None:
        """Back to choose the reason, then a new preview: offered where the reason changes
        nothing but the event's label, so the dialog did not ask before."""
        if self.choose_reason:
            self.dismiss(REASON)

    # -- the LLM summary -------------------------------------------------------------------

    @property
    def _llm_view(self) -> LLMSummaryView:
        return self.query_one(LLMSummaryView)

    @on(Button.Pressed, "#send")
    def action_send(self) -> None:
        """Send the prompt to the LLM; pressed while a call runs, stop it."""
        if self._llm_view.running:
            self._llm_view.stop()
            return
        if self.calls is None or not len(self.calls):
            self._say("Nothing to send: this compaction makes no LLM call", failed=True)
            return
        try:
            endpoint = endpoint_for(self.llm, os.environ)
        except SummarizerError as err:
            self._say(str(err), failed=True)
            return
        if self.llm_summary is not None:  # a new call: the stand-in's figures until it ends
            self.llm_summary, self.result = None, self.stand_in
            self._show_figures()
        self.query_one("#summary").display = False
        self.query_one(TabbedContent).active = "summary-tab"
        self._llm_view.send(endpoint, self.calls)

    def action_cancel(self) -> None:
        """Escape stops a running LLM call first; then it closes the preview."""
        if self._llm_view.running:
            self._llm_view.stop()
        else:
            super().action_cancel()

    @on(LLMSummaryView.Status)
    def _say_status(self, event: LLMSummaryView.Status) -> None:
        self.query_one("#summary").display = not self._llm_view.display
        self._say(event.line, failed=event.failed)

    def _say(self, line: str, *, failed: bool = False) -> None:
        status = self.query_one("#llm-status", Static)
        status.update(line)
        status.set_class(failed, "-failed")
        status.display = bool(line)

    @on(LLMSummaryView.Written)
    def _written(self, event: LLMSummaryView.Written) -> None:
        """The model's summary is complete: the figures are recounted for it (before → after,
        summary adds, saved), since it is the one shown and the one applied."""
        self.llm_summary = event.summary
        if self.tokenizer is not None:
            self.result = with_llm_summary(self.stand_in, event.summary.text, self.tokenizer)
        self._show_figures()
        if self.audit is not None:
            tokens = self.result.summary_tokens if self.tokenizer is not None else 0
            llm = audit_summary(self.audit.segment, event.summary.text, "llm", tokens)
            self.query_one(RetentionView).show(llm, beside=self.audit)
