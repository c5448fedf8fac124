"""Errors the core raises, each carrying what a user needs to act on it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ctxtui.core.literal import visible


@dataclass(frozen=True, slots=True)
class OverflowInfo:
    """The plan's context-overflow error (docs/plan.md): ``requested_tokens`` is the request's
    real estimate, not the window (X9); ``reason`` says which check failed (X12)."""

    model: str
    context_window: int
    requested_tokens: int
    reason: str

    def message(self) -> str:
        """The plan's ``Error()`` text, byte for byte."""
        return (
            f"context window exceeded: model={self.model} window={self.context_window} "
            f"requested={self.requested_tokens} reason={self.reason}"
        )


class SessionLoadError(Exception):
    """A session file could not be read; ``str()`` is the one line shown to the user: the file
    (``visible``: a newline or an escape in its name would split or act on that line), the
    line (for JSONL), what was expected and what was found."""

    def __init__(self, path: str, problem: str, line: int | None = None) -> None:
        shown = visible(path)
        where = f"{shown}:{line}" if line is not None else shown
        super().__init__(f"{where}: {problem}")
        self.path = path
        self.line = line
        self.problem = problem


StopCheck = Callable[[], bool]
"""What a long step (a read, a count, a replay, an LLM call) asks as it goes: whether its
caller still wants it. Once it answers yes the step ends, raising its ``...StoppedError``."""


class ReadStoppedError(Exception):
    """A read its caller asked to stop (``should_stop``): no session, and nothing wrong with
    the file. The app's workers stop this way when cancelled, so a read no one wants (the
    app quit, another file opened) does not go on holding a core to its end."""
