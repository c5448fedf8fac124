"""A modal that shows why a session could not be opened, so the app can keep running."""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Button, Label, Static

from ctxtui.core.literal import literal_block
from ctxtui.tui.screens.dialog import Dialog, button_row


class ErrorScreen(Dialog[None]):
    """The importer's one-line message, shown literally.

    The message names a user's file and quotes its contents, so it is rendered as plain
    ``Text``: brackets in a path or a JSON snippet must appear, not be read as markup.
    """

    DIALOG_ID = "error"
    CANCEL_KEYS = "escape,enter"
    CANCEL_LABEL = "Close"
    CANCEL_NAME = "close"

    DEFAULT_CSS = """
    ErrorScreen > #dialog {
        width: 80%;
        max-width: 100;
        border: thick $error;
        padding: 1 2;
    }
    ErrorScreen #title {
        color: $error;
    }
    ErrorScreen #message {
        margin-bottom: 1;
    }
    ErrorScreen #buttons Button {
        margin-left: 0;
        padding: 0 2;
    }
    """

    def __init__(self, message: str, title: str = "Could not open session") -> None:
        super().__init__()
        self.message = message
        self.error_title = title

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Label(Text(self.error_title), id="title")
            yield Static(Text(literal_block(self.message)), id="message")
            yield button_row(Button("OK", variant="error", compact=True, id="ok"))

    def on_mount(self) -> None:
        self.query_one("#ok", Button).focus()

    @on(Button.Pressed, "#ok")
    def _ok(self) -> None:
        self.action_cancel()
