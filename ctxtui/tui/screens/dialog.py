"""The base of every modal dialog: a centred frame, Escape to cancel, and a row of buttons."""

from __future__ import annotations

from typing import Any, ClassVar, TypeVar

from textual import on
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
    Dialog #buttons {
        height: auto;
        align-horizontal: right;
    }
    Dialog #buttons Button {
        margin-left: 2;
        min-width: 0;
        width: auto;
        padding: 0 1;
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


def button_row(*buttons: Button) -> Horizontal:
    """The dialog's buttons, right-aligned; a button with id ``cancel`` cancels by itself."""
    return Horizontal(*buttons, id="buttons")
