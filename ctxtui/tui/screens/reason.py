"""A modal that asks why the compaction runs, and says what that choice changes here.

The reasons (proactive, retry, overflow) name *when* an agent compacts. In most presets the
reason changes nothing about *what* is compacted, and a picker that does not say so looks
broken ("I picked retry and nothing changed"). Each option says in a word whether it changes
the outcome under the session's preset, and the line under the list says it in full for the
highlighted reason (``core/policies/reason_effects.py``, which a test holds to the compaction
itself).
"""

from __future__ import annotations

from textual import events, on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Label, OptionList, Static
from textual.widgets.option_list import Option

from ctxtui.core.policies.policy import Policy
from ctxtui.core.policies.reason_effects import ReasonChoice, reason_choices
from ctxtui.core.policies.reasons import CompactReason
from ctxtui.tui.screens.dialog import Dialog


def effect_tag(choice: ReasonChoice) -> str:
    """The option's one-word verdict: whether picking it changes what is compacted."""
    return "only labels the event" if choice.labels_only else "changes the compaction"


def _prompt(choice: ReasonChoice) -> Content:
    return Content.assemble(
        (choice.reason.value, "bold"),
        (f" · {effect_tag(choice)}", "italic"),
        "\n",
        choice.when,
        "\n",
        (choice.wire, "dim"),
    )


CHROME = 13
"""Rows of the reason dialog that are not the list: borders, title, effect, hint, margins."""


class ReasonScreen(Dialog[CompactReason | None]):
    """Choose the reason before previewing a compaction, knowing what it changes.

    ``policy`` is the session's; ``post_turn`` says whether its plan compacts after the turn
    limit (PicoClaw), where the reason changes what is compacted.
    """

    DEFAULT_CSS = """
    ReasonScreen > #dialog {
        width: 76;
        max-width: 95%;
        padding: 0 2;
    }
    ReasonScreen OptionList {
        height: auto;
    }
    ReasonScreen #effect {
        margin-top: 1;
        height: auto;
    }
    ReasonScreen #hint {
        margin-top: 1;
    }
    """

    DIALOG_ID = "reason"

    def __init__(self, policy: Policy, *, post_turn: bool = False) -> None:
        super().__init__()
        self._policy = policy
        self.choices = reason_choices(policy, post_turn=post_turn)

    def compose(self) -> ComposeResult:
        policy = self._policy
        with Vertical(id="dialog"):
            yield Label(f"Why compact? (preset {policy.preset})", id="title", markup=False)
            options: list[Option | None] = []
            for choice in self.choices:
                options += [None] if options else []  # a separator between reasons
                options.append(Option(_prompt(choice), id=choice.reason.value))
            yield OptionList(*options, id="reasons")
            yield Static("", id="effect", markup=False)
            yield Label("Enter confirms · Escape cancels", id="hint")

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        options.highlighted = 0
        options.focus()
        self._describe(self.choices[0])
        self._fit(self.app.size.height)

    @on(OptionList.OptionHighlighted, "#reasons")
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        for choice in self.choices:
            if choice.reason.value == event.option.id:
                self._describe(choice)

    def _describe(self, choice: ReasonChoice) -> None:
        self.query_one("#effect", Static).update(f"{choice.reason.value}: {choice.effect}")

    def on_resize(self, event: events.Resize) -> None:
        self._fit(event.size.height)

    def _fit(self, height: int) -> None:
        """Let the list scroll rather than push the effect, the hint and the border off a short
        terminal: the dialog's chrome takes ``CHROME`` rows, the three reasons alone 11."""
        self.query_one(OptionList).styles.max_height = max(4, min(18, height - CHROME))

    @on(OptionList.OptionSelected, "#reasons")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        assert event.option.id is not None
        self.dismiss(CompactReason(event.option.id))
