"""The open dialog: the sessions the user's agents wrote (and the bundled samples), filtered by
typing, plus a path input for any other file.

The agents' stores are searched in a thread worker (``ctxtui.stores.listing``), so the dialog takes
keys at once and the list fills in when the search answers; an entry the listing could not
read is listed with its error. What a row says is ``tui/pick_rows.py``; this screen paints it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from rich.cells import cell_len
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.validation import ValidationResult, Validator
from textual.widgets import Input, Label, Static

from ctxtui.core.literal import visible
from ctxtui.core.wording import plural
from ctxtui.importers import FoundSession
from ctxtui.options import debugging
from ctxtui.tui.jobs import bug_line
from ctxtui.tui.pick_rows import SAMPLE, PickRow, matching, pick_rows, shown_path
from ctxtui.tui.screens.dialog import Dialog
from ctxtui.tui.widgets.session_table import SessionTable, heading


def resolve_input(text: str, base: Path) -> Path:
    """A typed path made absolute: ``~`` expanded, relative paths taken from ``base``."""
    path = Path(text.strip()).expanduser()
    return path if path.is_absolute() else base / path


class ReadablePath(Validator):
    """Accepts a path to an existing, readable regular file or directory (an OpenCode storage
    or a PicoClaw sessions folder is one, as on the command line); says which of those fails.
    Anything else (a FIFO, a device) is refused before it is opened: reading one could block."""

    def __init__(self, base: Path) -> None:
        super().__init__()
        self.base = base

    def validate(self, value: str) -> ValidationResult:
        if not value.strip():
            return self.failure("Type a path to a session file")
        path = resolve_input(value, self.base)
        if not path.exists():
            return self.failure(f"No such file: {path}")
        if not (path.is_file() or path.is_dir()):
            return self.failure(f"Not a file or directory: {path}")
        if not os.access(path, os.R_OK):
            return self.failure(f"Not readable: {path}")
        return self.success()


@dataclass
class SessionsFound(Message):
    """The stores' listing (newest first) and the bundled samples; ``problem`` says why the
    stores could not be searched at all (one broken file is listed with its error instead)."""

    stores: list[FoundSession]
    samples: list[FoundSession]
    problem: str | None = None
    skipped: int = 0
    """Paths passed over: directories that could not be read, FIFOs named like sessions."""


HINTS = (
    "Type to filter · ↑↓ choose · Enter opens · Tab to the path · Escape cancels",
    "Type to filter · ↑↓ · Enter opens · Tab: path · Esc cancels",
    "↑↓ · Enter opens · Tab: path · Esc cancels",
)
"""The keys of the dialog, longest first: the longest that fits is shown, never a cut one."""


class OpenSessionScreen(Dialog[Path | None]):
    """Dismisses with the chosen file; the caller loads it (and shows any import error)."""

    DEFAULT_CSS = """
    OpenSessionScreen > #dialog {
        max-width: 120;
        height: 90%;
    }
    OpenSessionScreen #problem {
        color: $text-error;
        height: auto;
    }
    OpenSessionScreen #sessions {
        height: 1fr;
    }
    OpenSessionScreen #heading {
        margin-top: 1;
        text-style: bold;
    }
    OpenSessionScreen #found, OpenSessionScreen #target {
        color: $text-muted;
        height: 1;
    }
    OpenSessionScreen #path {
        margin-top: 1;
    }
    /* Under 30 rows (80×24) the frame takes the height and the inputs one row each, so the
       list shows a dozen sessions, not three. */
    OpenSessionScreen.-short > #dialog {
        height: 100%;
    }
    OpenSessionScreen.-short Input {
        border: none;
        height: 1;
        padding: 0 1;
    }
    /* Textual's invalid-and-focused border outranks the rule above and would take the one
       row: the typed path vanished behind it, the problem line below says what is wrong. */
    OpenSessionScreen.-short Input.-invalid, OpenSessionScreen.-short Input.-invalid:focus {
        border: none;
    }
    OpenSessionScreen.-short #title, OpenSessionScreen.-short #heading,
    OpenSessionScreen.-short #path {
        margin: 0;
    }
    """
    VERTICAL_BREAKPOINTS = [(0, "-short"), (30, "-tall")]  # noqa: RUF012 (as Textual declares it)

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("down", "move(1)", "Down", show=False, id="open.down"),
        Binding("up", "move(-1)", "Up", show=False, id="open.up"),
        Binding("pagedown", "move(10)", "Page down", show=False, id="open.page_down"),
        Binding("pageup", "move(-10)", "Page up", show=False, id="open.page_up"),
    ]
    DIALOG_ID = "open"

    def __init__(self, start_dir: Path) -> None:
        super().__init__()
        self.start_dir = start_dir
        self.rows: list[PickRow] = []
        self.shown: list[PickRow] = []
        self._stores = 0  # how many of ``rows`` are the agents' (the rest are samples)
        self._skipped = 0  # paths in the stores that could not be read

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Label("Open session", id="title")
            yield Input(placeholder="type to filter the sessions below", id="filter")
            yield Static(heading(), id="heading", markup=False)
            yield SessionTable(id="sessions")
            yield Static("looking in the agents' stores…", id="found", markup=False)
            yield Static("", id="target", markup=False)
            yield Input(
                placeholder="or type a path: path/to/session.jsonl",
                validators=[ReadablePath(self.start_dir)],
                validate_on=["changed", "submitted"],
                id="path",
            )
            yield Static("", id="problem", markup=False)
            yield Label(HINTS[0], id="hint")

    def on_resize(self) -> None:
        self.call_after_refresh(self._fit_heading)

    def _fit_heading(self) -> None:
        """The heading in the columns the rows use at the list's width (``fitted_columns``)."""
        width = self.query_one(SessionTable).scrollable_content_region.width
        self.query_one("#heading", Static).update(heading(width or None))
        room = width or self.size.width
        hint = next((h for h in HINTS if cell_len(h) <= room), HINTS[-1])
        self.query_one("#hint", Label).update(hint)

    def on_mount(self) -> None:
        self.query_one("#filter", Input).focus()
        self.run_worker(
            self._discover, thread=True, group="discover", exit_on_error=debugging()
        )  # see jobs.bug_line

    def _discover(self) -> None:
        from ctxtui.samples import samples_dir
        from ctxtui.stores.listing import list_sessions
        from ctxtui.tui.pick_rows import sample_sessions

        try:
            samples = sample_sessions(samples_dir())
        except OSError:
            samples = []  # a broken install still lists the user's own sessions
        try:
            listing = list_sessions()
        except Exception as err:  # a bug in one store's reader must still leave the samples
            self.post_message(SessionsFound([], samples, bug_line(err)))
            return
        self.post_message(SessionsFound(listing.sessions, samples, skipped=len(listing.skipped)))

    @on(SessionsFound)
    def _found(self, event: SessionsFound) -> None:
        self.rows = pick_rows(event.stores, event.samples)
        self._stores = sum(1 + len(s.children) for s in event.stores)
        self._skipped = event.skipped
        self._fill()
        if event.problem:
            self.query_one("#problem", Static).update(
                Text(f"Could not search the agents' stores: {visible(event.problem)}")
            )

    @on(Input.Changed, "#filter")
    def _filter_changed(self) -> None:
        if self.rows:
            self._fill()

    def _fill(self) -> None:
        query = self.query_one("#filter", Input).value
        self.shown = matching(self.rows, query)
        self.query_one(SessionTable).show(self.shown)
        samples = len(self.rows) - self._stores
        bundled = plural(samples, "bundled sample")
        what = f"{plural(self._stores, 'session')} in the agents' stores · {bundled}"
        if not self._stores:
            what = f"no sessions in the agents' stores · {bundled}"
        if self._skipped:
            what += f" · {self._skipped:,} unreadable skipped"
        if query.strip():
            what = f"{len(self.shown):,} of {len(self.rows):,} match · " + what
        self.query_one("#found", Static).update(what)

    @on(SessionTable.Highlighted)
    def _show_target(self) -> None:
        row = self._highlighted()
        text = ""
        if row is not None:
            found = row.found
            if found.agent == SAMPLE:
                text = f"bundled sample {found.path.name}"
            else:
                text = shown_path(row.target, Path(os.environ.get("HOME") or Path.home()))
                text += f" · unreadable: {visible(found.error)}" if found.error else ""
        self.query_one("#target", Static).update(text)

    def _highlighted(self) -> PickRow | None:
        return self.query_one(SessionTable).highlighted

    def action_move(self, rows: int) -> None:
        self.query_one(SessionTable).move(rows)

    @on(Input.Submitted, "#filter")
    @on(SessionTable.Chosen)
    def _open_highlighted(self) -> None:
        row = self._highlighted()
        problem = self.query_one("#problem", Static)
        if row is None:
            problem.update("No session matches; type a path below (Tab) to open any file")
        elif row.found.error:
            problem.update(f"Cannot open this one: {visible(row.found.error)}")
        else:
            self.dismiss(row.target)

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


def _first(result: ValidationResult) -> str:
    return result.failure_descriptions[0] if result.failure_descriptions else "Invalid path"
