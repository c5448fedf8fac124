"""A modal that previews a compaction: the summary, the exact LLM prompt, and the figures."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Grid, Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Button, Label, Markdown, Static, TabbedContent, TabPane, TextArea

from ctxtui.core.compaction import CompactionResult
from ctxtui.core.compaction_notes import llm_calls_sentence
from ctxtui.core.errors import OverflowInfo
from ctxtui.core.rows import cap_text
from ctxtui.tui.screens.dialog import Dialog, button_row

APPLY = "apply"
EXPORT = "export"

PROMPT_PREVIEW_CHARS = 200_000
"""Characters of the LLM prompt the preview shows at most.

Compacting the 100,000-message benchmark session builds a 219 MB prompt; a ``TextArea``
holding all of it froze the app for minutes before the preview appeared. The headless
``ctxtui compact SESSION --preview`` prints the whole prompt.
"""


def prompt_preview(prompt: str) -> str:
    """The prompt as the preview tab shows it: literally, capped, saying what was left out."""
    if not prompt:
        return "(no LLM prompt: this compaction style drops messages)"
    shown, more = cap_text(prompt, PROMPT_PREVIEW_CHARS)
    if not more:
        return shown
    return (
        f"{shown}\n\n… {more:,} more bytes not shown here; "
        "`ctxtui compact SESSION --preview` prints the whole prompt"
    )


def overflow_lines(info: OverflowInfo) -> Content:
    """The ``ContextOverflowError`` fields, one per line, so none hides in a long sentence."""
    return Content.assemble(
        ("Context window exceeded even after compaction", "bold"),
        "\n",
        f"model      {info.model}\n",
        f"window     {info.context_window:,} tokens\n",
        f"requested  {info.requested_tokens:,} tokens\n",
        f"reason     {info.reason}",
    )


def figure_rows(
    result: CompactionResult, messages_before: int | None = None
) -> list[tuple[str, str]]:
    """Before and after, in the plan's words: what is replaced, what it saves, what stays.

    Message numbers are the ones the list shows now; where applying renumbers the messages
    that stay (``messages_before`` known), their numbers after apply are given too, so
    "#1–#21" is not mistaken for the first messages of the session on screen.
    """
    reason = result.reason
    wire = reason.picoclaw_name or "none"
    if result.replaced is None:
        replaced = "none"
    else:
        first, last = result.replaced
        span = f"#{first:,}–#{last:,}, {result.replaced_tokens:,} tok"
        replaced = f"{result.messages_replaced:,} ({span})"
    saved = result.tokens_saved
    share = f"{result.saved_share:.1%}"
    total = len(result.session.messages)
    kept = result.tail_messages
    after = f"#{result.tail_kept:,}–#{total - 1:,}"
    if not kept:
        tail = "no messages"
    elif messages_before is None or messages_before - kept == result.tail_kept:
        tail = f"{kept:,} messages ({after}) stay verbatim"
    else:
        now = f"#{messages_before - kept:,}–#{messages_before - 1:,}"
        tail = f"{kept:,} messages ({now}) stay verbatim, numbered {after} after apply"
    rows = [
        ("Reason", f"{reason.value} (PicoClaw: {wire})"),
        ("Messages replaced", replaced),
        ("Summary adds", f"{result.summary_tokens:,} tok"),
        ("Request tokens", f"{result.tokens_before:,} → {result.tokens_after:,}"),
        ("Saved", f"{saved:,} tok ({share})"),
        ("LLM calls", llm_calls_sentence(result)),
        ("Fresh tail", tail),
    ]
    if result.note:
        rows.append(("Note", result.note))
    if result.overflow is not None:
        rows.append(("Overflow", result.overflow.message()))
    return rows


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
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "apply", "Apply", id="compaction.apply"),
        Binding("x", "export", "Export", id="compaction.export"),
    ]
    DIALOG_ID = "compaction"

    def __init__(self, result: CompactionResult, *, messages_before: int | None = None) -> None:
        super().__init__()
        self.result = result
        self.messages_before = messages_before

    @property
    def figures_text(self) -> str:
        """The Figures tab as plain lines (``label  value``), for reading back."""
        return "\n".join(
            f"{label}  {value}" for label, value in figure_rows(self.result, self.messages_before)
        )

    @property
    def _changes_something(self) -> bool:
        return self.result.replaced is not None

    def compose(self) -> ComposeResult:
        result = self.result
        with Vertical(id="dialog"):
            yield Label(
                f"Compaction preview · {result.messages_replaced:,} messages · "
                f"{result.tokens_before:,} → {result.tokens_after:,} tokens",
                id="title",
            )
            if result.overflow is not None:
                yield Static(overflow_lines(result.overflow), id="overflow")
            with TabbedContent(id="tabs"):
                with TabPane("Summary", id="summary-tab"), VerticalScroll():
                    yield from self._summary()
                with TabPane("LLM prompt", id="prompt-tab"):
                    if result.prompt_caption:
                        yield Label(result.prompt_caption, id="prompt-caption", markup=False)
                    yield TextArea(
                        prompt_preview(result.prompt),
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
            yield button_row(
                Button(Content("Apply (a)"), variant="primary", compact=True, id="apply"),
                Button(Content("Export (x)"), compact=True, id="export"),
                Button(Content("Cancel (esc)"), compact=True, id="cancel"),
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

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in (APPLY, EXPORT) and not self._changes_something:
            return None  # shown dimmed in the footer: there is nothing to apply or export
        return True

    @on(Button.Pressed, "#apply")
    def _apply_pressed(self) -> None:
        self.action_apply()

    @on(Button.Pressed, "#export")
    def _export_pressed(self) -> None:
        self.action_export()

    def action_apply(self) -> None:
        if self._changes_something:
            self.dismiss(APPLY)

    def action_export(self) -> None:
        if self._changes_something:
            self.dismiss(EXPORT)
