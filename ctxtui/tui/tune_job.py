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


def run_tune_view(post: Post, path: Path, agent: str, format_name: str | None) -> None:
    """Score every candidate on the session at ``path``; post ``TuneDone``."""
    from ctxtui.agent_config import read_agent_config

    post(TuneDone(*_document(path, agent, format_name, read_agent_config)))


def _document(
    path: Path, agent: str, format_name: str | None, read: Callable[[str], Any]
) -> tuple[dict[str, Any] | None, str | None]:
    from ctxtui.fleet.job import Target
    from ctxtui.fleet.tune import agent_search, run_tune

    worker = get_current_worker()
    try:
        search = agent_search(agent, read)
        spec = search.spec(format_name)
        run = run_tune([Target(str(path))], spec, should_stop=lambda: worker.is_cancelled)
        doc = search.document(run)
    except Exception as err:  # a bug's one line, never a crash of the app
        return None, bug_line(err)
    if doc["errors"]:
        return None, doc["errors"][0]["error"]
    return doc, None
