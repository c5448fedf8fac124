"""The busy row: what the app is doing in the background, how far it got, and for how long."""

from __future__ import annotations

import time
from collections.abc import Callable

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.timer import Timer
from textual.widgets import Label, ProgressBar


def format_elapsed(seconds: float) -> str:
    """Whole seconds, then minutes and seconds: ``7 s``, ``2 min 05 s``."""
    whole = int(seconds)
    if whole < 60:
        return f"{whole} s"
    return f"{whole // 60} min {whole % 60:02d} s"


class BusyRow(Horizontal):
    """A label, a progress bar and a clock, shown only while something runs.

    A large session takes seconds to read and its size is known before the first byte is
    parsed, so the label names the file and its size and the clock counts the seconds: an
    indeterminate bar alone cannot tell a slow load from a stuck one. ``clock`` is injectable
    so tests need no real time.
    """

    DEFAULT_CSS = """
    BusyRow {
        height: 1;
        display: none;
        padding: 0 1;
    }
    BusyRow > #progress-label {
        width: auto;
        margin-right: 1;
        color: $text-muted;
    }
    BusyRow > #progress-elapsed {
        width: auto;
        margin-left: 1;
        color: $text-muted;
    }
    """

    def __init__(
        self, *, id: str | None = None, clock: Callable[[], float] = time.monotonic
    ) -> None:
        super().__init__(id=id)
        self._clock = clock
        self._since = 0.0
        self._timer: Timer | None = None

    def compose(self) -> ComposeResult:
        yield Label("", id="progress-label")
        yield ProgressBar(id="progress", show_eta=False)
        yield Label("", id="progress-elapsed")

    def on_mount(self) -> None:
        self._timer = self.set_interval(0.5, self.tick, pause=True)

    @property
    def text(self) -> str:
        """What the row says it is doing (empty when idle)."""
        return str(self.query_one("#progress-label", Label).content) if self.display else ""

    def start(self, text: str, *, total: int | None = None) -> None:
        """Show ``text`` with an empty bar (indeterminate when ``total`` is ``None``)."""
        self.display = True
        self.query_one("#progress-label", Label).update(text)
        self.query_one("#progress", ProgressBar).update(total=total, progress=0)
        self.query_one("#progress-elapsed", Label).update("")
        self._since = self._clock()
        if self._timer is not None:
            self._timer.resume()

    def advance(self, done: int, total: int) -> None:
        """Move the bar to ``done`` of ``total``."""
        self.query_one("#progress", ProgressBar).update(total=total, progress=done)

    def stop(self) -> None:
        """Hide the row and stop the clock."""
        self.display = False
        if self._timer is not None:
            self._timer.pause()

    def tick(self) -> None:
        """Show the seconds since ``start`` (the timer calls this twice a second)."""
        self.query_one("#progress-elapsed", Label).update(
            format_elapsed(self._clock() - self._since)
        )
