"""A modal that shows why a session could not be opened, so the app can keep running."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static


class ErrorScreen(ModalScreen[None]):
    """The importer's one-line message, shown literally.

    The message names a user's file and quotes its contents, so it is rendered as plain
    ``Text``: brackets in a path or a JSON snippet must appear, not be read as markup.
    """

    DEFAULT_CSS = """
    ErrorScreen {
        align: center middle;
    }
    ErrorScreen > #dialog {
        width: 80%;
        max-width: 100;
        height: auto;
        border: thick $error;
        background: $surface;
        padding: 1 2;
    }
    ErrorScreen #title {
        text-style: bold;
        color: $error;
        margin-bottom: 1;
    }
    ErrorScreen #message {
        margin-bottom: 1;
    }
    ErrorScreen #buttons {
        height: auto;
        align-horizontal: right;
    }
    ErrorScreen #buttons Button {
        min-width: 0;
        width: auto;
        padding: 0 2;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,enter", "close", "Close", id="error.close"),
    ]

    def __init__(self, message: str, title: str = "Could not open session") -> None:
        super().__init__()
        self.message = message
        self.error_title = title

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Label(Text(self.error_title), id="title")
            yield Static(Text(self.message), id="message")
            with Horizontal(id="buttons"):
                yield Button("OK", variant="error", compact=True, id="ok")

    def on_mount(self) -> None:
        self.query_one("#ok", Button).focus()

    @on(Button.Pressed, "#ok")
    def _ok(self) -> None:
        self.action_close()

    def action_close(self) -> None:
        self.dismiss(None)
