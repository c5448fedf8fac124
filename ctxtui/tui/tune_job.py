"""The tune view's slow step: the open session replayed under each candidate of its agent's
grid, in a thread worker that only posts messages (``ctxtui.fleet.tune``'s job, in this
thread: one session needs no pool)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from textual.message import Message
from textual.worker import get_current_worker

from ctxtui.tui.jobs import bug_line

Post = Callable[[Message], object]


@dataclass
class TuneDone(Message):
    """The document over the open session, or the one line saying why there is none."""

    doc: dict[str, Any] | None
    problem: str | None = None


def agent_for(format_name: str) -> str:
    """The agent whose settings the view searches: the session's, else ctxtui's plan."""
    from ctxtui.core.tuning.space import SPACES

    return format_name if format_name in SPACES else "plan"


@dataclass
class TuneProgress(Message):
    """``done`` of the ``total`` candidates replayed so far."""

    done: int
    total: int


def run_tune_view(post: Post, path: Path, agent: str, format_name: str | None) -> None:
    """Score every candidate on the session at ``path``, saying how many are done; post
    ``TuneDone``, or nothing when the worker was cancelled (the view closed, the app quit)."""
    from ctxtui.agent_config import read_agent_config

    found = _document(post, path, agent, format_name, read_agent_config)
    if found is not None:
        post(TuneDone(*found))


def _document(
    post: Post, path: Path, agent: str, format_name: str | None, read: Callable[[str], Any]
) -> tuple[dict[str, Any] | None, str | None] | None:
    from ctxtui.core.simulation.replay import ReplayStoppedError
    from ctxtui.fleet.job import Target
    from ctxtui.fleet.tune import TuneRun, agent_search, tune_session

    worker = get_current_worker()

    def said(done: int, total: int) -> None:
        post(TuneProgress(done, total))

    try:
        search = agent_search(agent, read)
        spec = search.spec(format_name)
        target = Target(str(path))
        run = TuneRun([target])
        try:
            run.done[0] = tune_session(
                target, spec, should_stop=lambda: worker.is_cancelled, on_candidate=said
            )
        except ReplayStoppedError:
            return None
        doc = search.document(run)
    except Exception as err:  # a bug's one line, never a crash of the app
        return None, bug_line(err)
    if doc["errors"]:
        return None, doc["errors"][0]["error"]
    return doc, None
