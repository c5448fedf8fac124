"""The fleet view's slow step: every session read (or taken from the index) in a thread
worker that only posts messages, the rows as they arrive and the progress ten times a second.

The jobs themselves run where ``ctxtui fleet`` runs them (``ctxtui.fleet.run``): a process
pool started with ``forkserver``, since forking a process that runs the app's threads could
copy a lock some thread holds.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Executor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.message import Message
from textual.worker import get_current_worker

from ctxtui.core.fleet import Row
from ctxtui.fleet.index import FleetIndex, default_path
from ctxtui.fleet.job import Spec
from ctxtui.fleet.run import (
    ExecutorFactory,
    Finished,
    Progress,
    RunHooks,
    executor_for,
    run_fleet,
    store_targets,
)
from ctxtui.tui.jobs import bug_line

if TYPE_CHECKING:
    from ctxtui.tui.state import MainState

Post = Callable[[Message], object]
PROGRESS_INTERVAL = 0.1


@dataclass
class FleetRows(Message):
    """Rows that arrived under ``preset``: ``(position, row)`` in the targets' order."""

    preset: str
    rows: list[tuple[int, Row]]


@dataclass
class FleetProgress(Message):
    preset: str
    progress: Progress

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, FleetProgress)


@dataclass
class FleetDone(Message):
    """The run under ``preset`` ended: ``total`` sessions, ``interrupted`` when stopped;
    ``problem`` is a bug's one line, or the index's warnings."""

    preset: str
    total: int
    interrupted: bool
    problem: str | None = None


def _start_helpers() -> None:
    """Start multiprocessing's resource tracker and fork server with a real stderr.

    Both hand ``sys.stderr``'s descriptor to the process they start, and the app's stderr is
    Textual's capture, which has none (the pool then fails with "bad value(s) in
    fds_to_keep"). Their complaints, if any, go to ``/dev/null``: never over the screen.
    """
    import multiprocessing
    from multiprocessing import forkserver, resource_tracker

    multiprocessing.get_context("forkserver").set_forkserver_preload(["ctxtui.fleet.job"])
    with _HELPERS, Path(os.devnull).open("w", encoding="utf-8") as quiet:
        saved, sys.stderr = sys.stderr, quiet
        try:
            resource_tracker.ensure_running()
            forkserver.ensure_running()
        finally:
            sys.stderr = saved


_HELPERS = threading.Lock()


@contextmanager
def _forkserver_pool(tasks: int) -> Iterator[Executor]:
    _start_helpers()
    with executor_for(tasks, start_method="forkserver") as executor:
        yield executor


def pool() -> ExecutorFactory | None:
    """The executor the app's fleet runs on (tests run it in the worker's own thread)."""
    return _forkserver_pool


def knob_overrides(state: MainState) -> tuple[tuple[str, Any], ...]:
    """The knobs the fleet is replayed under besides its preset, as ``ctxtui fleet``'s knob
    flags: those the app was started with, and those changed since in the settings panel
    (where the policy differs from its preset fitted to the open session with the former).
    """
    from ctxtui.core.policies.policy import KNOBS, PolicyError, policy_for_session

    given: dict[str, Any] = dict(state.overrides)
    if state.session is not None:
        try:
            base = policy_for_session(state.preset_name, state.session, given)
        except PolicyError:
            base = None
        if base is not None:
            for name in KNOBS:
                value = getattr(state.policy, name)
                if value != getattr(base, name):
                    given[name] = value
    return tuple(sorted(given.items()))


def run_fleet_view(post: Post, preset: str, overrides: tuple[tuple[str, object], ...]) -> None:
    """Find the sessions, then read each under ``preset`` and post rows as they come."""
    worker = get_current_worker()
    warnings: list[str] = []
    said = [0.0]

    def on_result(i: int, done: Finished) -> None:
        post(FleetRows(preset, [(i, done.row(preset))]))

    def on_progress(p: Progress) -> None:
        now = time.monotonic()
        if now - said[0] >= PROGRESS_INTERVAL or p.done == p.total:
            said[0] = now
            post(FleetProgress(preset, p))

    try:
        targets = store_targets()
        spec = Spec(presets=(preset,), overrides=overrides)
        with FleetIndex(default_path(), warnings.append) as index:
            run = run_fleet(
                targets,
                spec,
                executor=pool(),
                index=index,
                hooks=RunHooks(on_result, on_progress, lambda: worker.is_cancelled),
            )
    except Exception as err:  # the view says it instead of hanging on "reading…"
        post(FleetDone(preset, 0, True, bug_line(err)))
        return
    problem = "; ".join(warnings) or None
    post(FleetDone(preset, len(targets), run.interrupted, problem))
