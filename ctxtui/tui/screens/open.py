"""A modal for choosing another session file: type a path or pick one from a tree."""

from __future__ import annotations

import os
from pathlib import Path

from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.validation import ValidationResult, Validator
from textual.widgets import DirectoryTree, Input, Label, Static

from ctxtui.tui.screens.dialog import Dialog


def resolve_input(text: str, base: Path) -> Path:
    """A typed path made absolute: ``~`` expanded, relative paths taken from ``base``."""
    path = Path(text.strip()).expanduser()
    return path if path.is_absolute() else base / path


class ReadableFile(Validator):
    """Accepts a path to an existing, readable regular file; says which of those fails."""

    def __init__(self, base: Path) -> None:
        super().__init__()
        self.base = base

    def validate(self, value: str) -> ValidationResult:
        if not value.strip():
            return self.failure("Type a path to a session file")
        path = resolve_input(value, self.base)
        if not path.exists():
            return self.failure(f"No such file: {path}")
        if not path.is_file():
            return self.failure(f"Not a file: {path}")
        if not os.access(path, os.R_OK):
            return self.failure(f"Not readable: {path}")
        return self.success()


class SessionTree(DirectoryTree):
    """A directory tree drawn with text marks, not emoji, so narrow terminals line up."""

    ICON_NODE = "+ "
    ICON_NODE_EXPANDED = "- "
    ICON_FILE = "  "


class OpenSessionScreen(Dialog[Path | None]):
    """Dismisses with the chosen file; the caller loads it (and shows any import error)."""

    DEFAULT_CSS = """
    OpenSessionScreen > #dialog {
        max-width: 110;
        height: 85%;
    }
    OpenSessionScreen #problem {
        color: $text-error;
        height: auto;
    }
    OpenSessionScreen DirectoryTree {
        height: 1fr;
        margin-top: 1;
    }
    OpenSessionScreen #hint {
        width: 1fr;
    }
    """

    DIALOG_ID = "open"

    def __init__(self, start_dir: Path) -> None:
        super().__init__()
        self.start_dir = start_dir

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Label("Open session", id="title")
            yield Input(
                placeholder="path/to/session.jsonl",
                validators=[ReadableFile(self.start_dir)],
                validate_on=["changed", "submitted"],
                id="path",
            )
            yield Static("", id="problem", markup=False)
            yield SessionTree(self.start_dir, id="tree")
            yield Label("Enter opens · Tab moves to the tree · Escape cancels", id="hint")

    def on_mount(self) -> None:
        self.query_one("#path", Input).focus()

    @on(Input.Changed, "#path")
    def _show_problem(self, event: Input.Changed) -> None:
        # Nothing typed yet is not a mistake; only say what is wrong once there is something.
        result = event.validation_result
        problem = "" if result is None or result.is_valid or not event.value else _first(result)
        self.query_one("#problem", Static).update(problem)

    @on(Input.Submitted, "#path")
    def _submitted(self, event: Input.Submitted) -> None:
        result = event.validation_result
        if result is not None and not result.is_valid:
            self.query_one("#problem", Static).update(_first(result))
            return
        self.dismiss(resolve_input(event.value, self.start_dir))

    @on(DirectoryTree.FileSelected, "#tree")
    def _picked(self, event: DirectoryTree.FileSelected) -> None:
        self.dismiss(event.path)


def _first(result: ValidationResult) -> str:
    return result.failure_descriptions[0] if result.failure_descriptions else "Invalid path"
