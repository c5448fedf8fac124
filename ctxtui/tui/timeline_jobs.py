"""The timeline view's slow steps, run in thread workers that only post messages.

Reading the full history, counting it, replaying it and rebuilding the context at a request
all take from milliseconds to seconds on a long session; the view keeps answering keys while
they run, and a newer request for the same step supersedes an older one (exclusive workers,
whose stop checks end the older walk early).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from textual.message import Message
from textual.worker import get_current_worker

from ctxtui.core.engine import Engine
from ctxtui.core.policies.policy import Policy
from ctxtui.core.session.models import Session
from ctxtui.core.simulation.replay import ContextAt, Replay, shown_offset
from ctxtui.core.simulation.reported import ReportedGap
from ctxtui.core.tokens.calibration import SessionFit
from ctxtui.system.count_cache import default_cache
from ctxtui.tui.jobs import bug_line

Post = Callable[[Message], object]


@dataclass
class HistoryReady(Message):
    """The session to replay: the full history when the transcript has one, else the session
    on the main screen; the main screen's message ``i`` is history message ``i + offset``."""

    session: Session
    engine: Engine
    offset: int


@dataclass
class ReplayProgress(Message):
    """The walk under ``policy`` has reached request ``done`` of ``total``."""

    policy: Policy
    done: int
    total: int


@dataclass
class ReplayReady(Message):
    """The replay, and the last reported request against its counts (``None`` without usage)."""

    replay: Replay
    gap: ReportedGap | None = None


@dataclass
class ReplayFailed(Message):
    problem: str


@dataclass
class ContextReady(Message):
    """The context as the model saw it at request ``request`` of ``replay`` (``None`` when
    it could not be rebuilt)."""

    replay: Replay
    request: int
    context: ContextAt | None


def read_history(
    post: Post, path: Path | None, shown: Session, engine: Engine, read: Session | None = None
) -> None:
    """The transcript at ``path`` with its full history, if it holds more than ``shown``
    (``read``: the history the main screen already read, never read again).

    The main screen's session stands when there is nothing more to read, when reading fails,
    or when ``shown`` is not the history's tail (an applied compaction replaced it).
    """
    history: Session | None = read
    if history is None and path is not None and shown.meta.recorded_compactions:
        from ctxtui.importers import load_session

        try:
            history = load_session(path, format=shown.meta.format, full_history=True)
        except Exception:  # the session on screen is still worth replaying
            history = None
    offset = shown_offset(history, shown) if history is not None else None
    if history is None or not offset:
        post(HistoryReady(shown, engine, 0))
    else:
        post(HistoryReady(history, Engine(history, default_cache()), offset))


PROGRESS_INTERVAL = 0.1
"""Seconds between two progress posts of a replay: ten a second reads as live."""


def run_replay(post: Post, engine: Engine, policy: Policy, fit: SessionFit | None = None) -> None:
    """Count (if not yet counted), plan and replay ``engine``'s session under ``policy``;
    with it, the gap at the last reported request (``fit``: the transcript's calibration)."""
    worker = get_current_worker()

    def stop() -> bool:
        return worker.is_cancelled

    said = [0.0]  # when progress was last posted

    def progress(done: int, total: int) -> None:
        # The walk reports every 256 requests; each post is a
        # status repaint on the main thread, which then competes with the walk for the lock.
        now = time.monotonic()
        if now - said[0] >= PROGRESS_INTERVAL:
            said[0] = now
            post(ReplayProgress(policy, done, total))

    try:
        walked = engine.run(policy, fit=fit, on_replay=progress, should_stop=stop)
        if walked is None:
            return
        gap = walked.gap
    except Exception as err:  # a bug in the walk must not take the app down
        post(ReplayFailed(f"replay failed: {bug_line(err)}"))
        return
    post(ReplayReady(walked.replay, gap))


def context_at(post: Post, result: Replay, request: int) -> None:
    """The context at ``request``; always posted, so the view knows the worker is done."""
    try:
        context: ContextAt | None = result.context_at(request)
    except Exception:  # the chart and the figures still stand without the list
        context = None
    post(ContextReady(result, request, context))
