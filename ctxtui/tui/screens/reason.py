"""A modal that asks why the compaction runs: proactive, retry or overflow."""

from __future__ import annotations

from textual import events, on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option

from ctxtui.core.reasons import CompactReason
from ctxtui.tui.screens.dialog import Dialog

EXPLANATIONS: dict[CompactReason, str] = {
    CompactReason.PROACTIVE: "Before the LLM call: the next request would not fit the budget.",
    CompactReason.RETRY: "After the provider rejected the request as too long.",
    CompactReason.OVERFLOW: "During streaming, when the reply overflows the window.",
}
"""One line per reason, as docs/plan.md ("Why a compaction runs") names them."""


def _prompt(reason: CompactReason) -> Content:
    wire = reason.picoclaw_name or "none (nothing produces it, defect X15)"
    return Content.assemble(
        (reason.value, "bold"),
        "\n",
        EXPLANATIONS[reason],
        "\n",
        (f"PicoClaw: {wire}", "dim"),
    )


CHROME = 9
"""Rows of the reason dialog that are not the list: borders, title, hint and margins."""


class ReasonScreen(Dialog[CompactReason | None]):
    """Choose the reason before previewing a compaction.

    The reason does not change what is compacted; it is recorded and shown, with PicoClaw's
    wire name beside the plan's, because the two projects name the reasons differently.
    """

    DEFAULT_CSS = """
    ReasonScreen > #dialog {
        width: 72;
        max-width: 95%;
        padding: 0 2;
    }
    ReasonScreen OptionList {
        height: auto;
    }
    ReasonScreen #hint {
        margin-top: 1;
    }
    """

    DIALOG_ID = "reason"

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Label("Why compact?", id="title")
            options: list[Option | None] = []
            for reason in CompactReason:
                options += [None] if options else []  # a separator between reasons
                options.append(Option(_prompt(reason), id=reason.value))
            yield OptionList(*options, id="reasons")
            yield Label("Enter confirms · Escape cancels", id="hint")

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        options.highlighted = 0
        options.focus()
        self._fit(self.app.size.height)

    def on_resize(self, event: events.Resize) -> None:
        self._fit(event.size.height)

    def _fit(self, height: int) -> None:
        """Let the list scroll rather than push the hint and the border off a short terminal.

        The dialog's chrome (border, title, hint and their margins, the list's own border)
        takes ``CHROME`` rows; at 60×20 the three reasons alone would need 14.
        """
        self.query_one(OptionList).styles.max_height = max(4, min(18, height - CHROME))

    @on(OptionList.OptionSelected, "#reasons")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        assert event.option.id is not None
        self.dismiss(CompactReason(event.option.id))
