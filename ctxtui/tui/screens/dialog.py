"""The base of every modal dialog: a centred frame, Escape to cancel, and a row of buttons."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, TypeVar

from textual import events, on
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import ModalScreen
from textual.widgets import Button

ResultT = TypeVar("ResultT")


class Dialog(ModalScreen[ResultT]):
    """A modal whose content sits in a ``#dialog`` frame and that Escape dismisses with ``None``.

    Subclasses set ``DIALOG_ID`` (the prefix of their binding ids, ``export.cancel``, so a
    user's config can remap a dialog's keys), compose a ``Vertical(id="dialog")`` holding an
    optional ``#title``, ``#hint`` and ``button_row(...)``, and style only what differs: the
    frame's size, padding and border colour. The cancel binding is appended after the
    subclass's own, so the footer lists the dialog's actions first and ``esc`` last.
    """

    DIALOG_ID: ClassVar[str] = "dialog"
    CANCEL_KEYS: ClassVar[str] = "escape"
    CANCEL_LABEL: ClassVar[str] = "Cancel"
    CANCEL_NAME: ClassVar[str] = "cancel"  # the binding id's second half: ``error.close``

    DEFAULT_CSS = """
    Dialog {
        align: center middle;
    }
    Dialog > #dialog {
        width: 90%;
        height: auto;
        border: thick $primary;
        background: $surface;
        padding: 0 1;
    }
    Dialog #title {
        text-style: bold;
        margin-bottom: 1;
    }
    Dialog #hint {
        color: $text-muted;
    }
    Dialog #buttons Button {
        margin-left: 2;
        min-width: 0;
        width: auto;
        padding: 0 1;
    }
    Dialog #buttons.-wrapped Button {
        margin-left: 1;
    }
    """

    def __init_subclass__(cls, **kwargs: Any) -> None:
        # Before Textual merges the class's bindings (in DOMNode.__init_subclass__).
        own = list(cls.__dict__.get("BINDINGS", []))
        cancel = Binding(
            cls.CANCEL_KEYS,
            "cancel",
            cls.CANCEL_LABEL,
            id=f"{cls.DIALOG_ID}.{cls.CANCEL_NAME}",
        )
        cls.BINDINGS = [*own, cancel]
        super().__init_subclass__(**kwargs)

    @on(Button.Pressed, "#cancel")
    def _cancel_pressed(self) -> None:
        self.action_cancel()

    def action_cancel(self) -> None:
        """Close without a result: the caller's callback receives ``None``."""
        self.dismiss(None)


class ButtonRow(Horizontal):
    """A dialog's buttons, right-aligned on one line; where the frame is too narrow for that
    line, each group of buttons takes a line of its own (``-wrapped``), so that no button runs
    off the frame (the compaction preview's at 80×24). The gaps narrow to one cell then."""

    DEFAULT_CSS = """
    ButtonRow {
        height: auto;
        align-horizontal: right;
    }
    ButtonRow > .button-group {
        width: auto;
        height: auto;
    }
    ButtonRow.-wrapped {
        layout: vertical;
    }
    ButtonRow.-wrapped > .button-group {
        width: 1fr;
        align-horizontal: right;
    }
    """

    _one_line = 0  # the cells the groups take side by side, measured while they are

    def on_resize(self, event: events.Resize) -> None:
        # Measured only unwrapped, where the gaps are their full width: wrapped, the groups
        # are as wide as the row and the narrower gaps would say the line fits.
        if not self.has_class("-wrapped"):
            self._one_line = sum(group.outer_size.width for group in self.children)
        self.set_class(self._one_line > self.content_size.width, "-wrapped")


def button_row(*buttons: Button | Sequence[Button]) -> ButtonRow:
    """The dialog's buttons, right-aligned; a button with id ``cancel`` cancels by itself.

    A sequence of buttons is a group that keeps to one line when the row must wrap: a
    dialog with many buttons groups them, the actions apart from the rest.
    """
    groups = ([b] if isinstance(b, Button) else b for b in buttons)
    return ButtonRow(
        *(Horizontal(*group, classes="button-group") for group in groups), id="buttons"
    )
