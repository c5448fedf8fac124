"""A modal that chooses where to export the session, guarding the source file."""

from __future__ import annotations

import os
from enum import Enum
from pathlib import Path
from typing import Protocol, runtime_checkable

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Button, Input, Label, Static

from ctxtui.core.literal import visible
from ctxtui.importers import source_protection
from ctxtui.system.output import WRITE_ROOT_ENV, protected_clash, write_root_refusal
from ctxtui.tui.screens.dialog import Dialog, button_row
from ctxtui.tui.screens.open import resolve_input


class Risk(Enum):
    """What writing to a path would destroy, and so needs an explicit confirmation."""

    NONE = "none"
    OVERWRITE = "overwrite"


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.samefile(b)
    except OSError:
        return a.resolve() == b.resolve()


def assess(path: Path, source_path: Path | None) -> tuple[Risk, str]:
    """The risk of writing ``path``, or a problem that makes it impossible (then NONE + text).

    The source transcript, and every file or directory it is read from (the core's protected
    set), is refused outright, not offered for confirmation: the core's ``write_session``
    never writes there, so a second Enter could only end in an error. A link or special file
    is left to the core's refusal, shown on the error screen.
    """
    if source_path is not None and _same_file(path, source_path):
        return Risk.NONE, (
            f"{path} is the session's source file, which ctxtui never writes over. "
            "Choose another name."
        )
    clash = protected_clash(path, source_protection(source_path))
    if clash is not None:
        return Risk.NONE, (
            f"{path} is part of what the session is read from ({clash}); ctxtui never "
            "writes there. Choose another name."
        )
    refusal = write_root_refusal(path)
    if refusal is not None:
        return Risk.NONE, refusal
    if path.is_dir():
        return Risk.NONE, f"{path} is a directory; give a file name"
    if not path.parent.is_dir():
        return Risk.NONE, f"No such directory: {path.parent}"
    if path.exists():
        return Risk.OVERWRITE, f"{path} already exists. Press Enter again to overwrite it."
    return Risk.NONE, ""


def _served_root() -> Path | None:
    """The directory a served app writes in (``ctxtui serve --export-dir``), if any."""
    root = os.environ.get(WRITE_ROOT_ENV)
    return Path(root) if root else None


@runtime_checkable
class RemembersExportDir(Protocol):
    """An app that keeps the directory of the last export for the next one (``CtxtuiApp``)."""

    last_export_dir: Path | None


def remembered_dir(app: object) -> Path | None:
    """The directory the user last exported to in this run, if it still exists."""
    if isinstance(app, RemembersExportDir):
        found = app.last_export_dir
        if found is not None and found.is_dir():
            return found
    return None


class ExportScreen(Dialog[Path | None]):
    """Choose and confirm a path; the caller writes the file (atomically) via the core.

    Refusing first and confirming on a second Enter makes overwriting an existing file a
    deliberate act; any edit to the path withdraws the pending confirmation. The session's
    own source file is never accepted. The directory of a confirmed export is remembered on
    the app, and the next export starts there (the file name stays this session's).
    """

    DEFAULT_CSS = """
    ExportScreen > #dialog {
        max-width: 100;
        padding: 1 2;
    }
    ExportScreen #problem {
        color: $text-warning;
        height: auto;
        min-height: 1;
        margin: 1 0;
    }
    """

    DIALOG_ID = "export"

    def __init__(
        self, default_path: Path, source_path: Path | None, *, title: str = "Export session"
    ) -> None:
        super().__init__()
        self.default_path = default_path
        self.source_path = source_path
        self.title_text = title
        self._armed: Path | None = None

    def compose(self) -> ComposeResult:
        last = remembered_dir(self.app) or _served_root()
        if last is not None:
            self.default_path = last / self.default_path.name
        with Vertical(id="dialog"):
            yield Label(f"{self.title_text} (ctxtui JSON)", id="title")
            yield Input(str(self.default_path), id="path")
            yield Static("", id="problem", markup=False)
            yield button_row(
                Button("Export", variant="primary", compact=True, id="confirm"),
                Button("Cancel", compact=True, id="cancel"),
            )

    def on_mount(self) -> None:
        self.query_one("#path", Input).focus()

    @property
    def _base(self) -> Path:
        return self.default_path.parent

    @on(Input.Changed, "#path")
    def _disarm(self) -> None:
        self._set_armed(None, "")

    @on(Input.Submitted, "#path")
    @on(Button.Pressed, "#confirm")
    def _confirm(self) -> None:
        text = self.query_one("#path", Input).value
        if not text.strip():
            self._set_armed(None, "Type a file name to export to")
            return
        path = resolve_input(text, self._base)
        risk, message = assess(path, self.source_path)
        if risk is Risk.NONE and message:
            self._set_armed(None, message)
        elif risk is Risk.NONE or self._armed == path:
            if isinstance(self.app, RemembersExportDir):
                self.app.last_export_dir = path.parent
            self.dismiss(path)
        else:
            self._set_armed(path, message)

    def _set_armed(self, path: Path | None, message: str) -> None:
        self._armed = path
        self.query_one("#problem", Static).update(Text(visible(message)))
        button = self.query_one("#confirm", Button)
        if path is None:
            button.label, button.variant = "Export", "primary"
        else:
            button.label = "Overwrite"
            button.variant = "error"
        button.refresh(layout=True)  # an auto-width button must grow with its new label
