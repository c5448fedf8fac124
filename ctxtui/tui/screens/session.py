"""The base of the screens that show a session: its state kept in step with the workers.

A ``SessionScreen`` holds one ``MainState`` (``tui/state.py``) and runs the pipeline's slow
steps (reading, counting) as ``tui/jobs.py`` functions in thread workers that only post
messages; the handlers here are the one place the state changes on their answers. A
subclass composes the widgets and renders: ``session_changed`` (a session was opened,
compacted or restored) and ``render_plan`` (a plan is ready). The main screen is one; a view
that shows a session some other way can be another.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

from textual import on
from textual.screen import Screen

from ctxtui.core.engine import Engine
from ctxtui.core.planning.plan import Plan
from ctxtui.core.policies.policy import Policy
from ctxtui.core.session.models import Session
from ctxtui.core.wording import plural
from ctxtui.options import debugging
from ctxtui.system.heap import keep_out_of_collections
from ctxtui.tui import jobs
from ctxtui.tui.cells import format_bytes
from ctxtui.tui.jobs import bug_line
from ctxtui.tui.messages import (
    CountingProgress,
    CountsReady,
    SessionGrew,
    SessionLoaded,
    SessionLoadFailed,
    WatchProblem,
    WorkFailed,
)
from ctxtui.tui.retention_job import RetentionNoted, note_retention
from ctxtui.tui.settings import LLMSettings
from ctxtui.tui.state import MainState
from ctxtui.tui.widgets.busy import BusyRow
from ctxtui.tui.widgets.session_bar import SessionBar


def file_label(path: Path) -> str:
    """The file's name and size, as the busy row shows it while the file is read."""
    try:
        size = path.stat().st_size
    except OSError:
        return path.name
    return f"{path.name} ({format_bytes(size)})"


class SessionScreen(Screen[None]):
    """A screen with a ``MainState``: it loads, counts and plans, and says what went wrong.

    A subclass composes a ``BusyRow`` (progress) and implements ``session_changed``,
    ``render_plan`` and ``show_no_session``.
    """

    def __init__(
        self,
        source: Path | Session | None,
        *,
        format: str | None = None,
        preset_name: str = "plan",
        overrides: dict[str, Any] | None = None,
        pick: bool = False,
        watch: bool = False,
        llm: LLMSettings | None = None,
    ) -> None:
        super().__init__()
        self._source = source
        self._format = format
        self.pick = pick  # start on the open dialog
        self.following = watch  # follow the file as it grows (``--watch``)
        self.llm = llm or LLMSettings()
        self.state, self._startup_problem = MainState.start(preset_name, overrides)

    # The state's parts, by the names the rest of the app (and the tests) read them.
    @property
    def session(self) -> Session | None:
        return self.state.session

    @property
    def engine(self) -> Engine | None:
        return self.state.engine

    @property
    def policy(self) -> Policy:
        return self.state.policy

    @property
    def plan(self) -> Plan | None:
        return self.state.plan

    def on_mount(self) -> None:
        if self._startup_problem:
            self._show_error(self._startup_problem, "Ignored the policy options")
        source = self._source
        if isinstance(source, Session):
            self.post_message(SessionLoaded(source, None))
        elif source is not None and self.following:
            self._busy.start(f"loading {file_label(source)}…")
            self._run(jobs.watch, source, self._format, group="watch")
        elif source is not None:
            self.load(source)
        else:
            self.show_no_session()

    def session_changed(self, *, opened: bool = False) -> None:
        """A session was ``opened``, or replaced by a compaction or an undo: show, count it."""
        raise NotImplementedError

    def session_grew(self, before: MainState) -> None:
        """The watched file grew: ``self.state`` holds the new session, ``before`` the old."""
        self.session_changed()

    def render_plan(self, plan: Plan) -> None:
        """Show ``plan``, the plan of ``self.session`` under ``self.policy``."""
        raise NotImplementedError

    def show_no_session(self) -> None:
        """Say plainly that nothing is open (not "loading…" for ever) and how to open a file."""
        raise NotImplementedError

    def _run(self, job: Any, *args: Any, group: str) -> None:
        """Run ``jobs.<job>`` in a thread worker; it reports by posting to this screen.

        The description is given: Textual's default is the ``repr`` of the call, which for
        an export of 100,000 messages is seconds spent on the UI thread.
        """
        work = partial(job, self.post_message, *args)
        self.run_worker(
            work,
            thread=True,
            exclusive=True,
            exit_on_error=debugging(),  # see jobs.bug_line
            group=group,
            description=group,
        )

    def take(self, result: object) -> None:
        """What a view dismissed with: a ``Path`` is a session file to open, an ``int`` the
        message to select (the compare view's cursor); anything else, nothing."""
        if isinstance(result, Path):
            self.load(result)
        elif isinstance(result, int) and not isinstance(result, bool):
            self.select_message(result)

    def action_open(self) -> None:
        """The open dialog: the agents' sessions, the samples, or a typed path."""
        from ctxtui.tui.screens.open import OpenSessionScreen

        path = self.state.path
        start = path.parent if path is not None else Path.cwd()
        self.app.push_screen(OpenSessionScreen(start), self.take)

    def select_message(self, index: int) -> None:
        """Move the selection to message ``index``; the main screen moves its list."""

    # -- loading, counting and planning ----------------------------------------------------

    def load(self, path: Path) -> None:
        """Open ``path`` in a worker; the current session stays until it has loaded.

        Opening another file ends ``--watch``: the watched file is no longer on screen.
        """
        if self.following:
            self.following = False
            self.workers.cancel_group(self, "watch")
        self._busy.start(f"loading {file_label(path)}…")
        self._run(jobs.read_session, path, self._format, group="load")

    @on(SessionLoadFailed)
    def _load_failed(self, event: SessionLoadFailed) -> None:
        self._busy.stop()
        if self.session is None:
            self.show_no_session()
        self._show_error(event.problem)

    @on(SessionLoaded)
    def _loaded(self, event: SessionLoaded) -> None:
        self.state, problem = self.state.opened(event.session, event.path, event.fit)
        keep_out_of_collections(len(event.session))  # full GC walks froze keys (ctxtui.system.heap)
        if problem:
            self._show_error(problem, "Ignored the policy options")
        self.session_changed(opened=True)
        if event.path is not None:
            args = (event.path, self._format, event.session, self.policy)
            self._run(note_retention, *args, group="retention")

    @on(RetentionNoted)
    def _retention_noted(self, event: RetentionNoted) -> None:
        if event.path == self.state.path:
            for bar in self.query(SessionBar):
                bar.set_retention(event.note)

    @on(SessionGrew)
    def _grew(self, event: SessionGrew) -> None:
        if not self.following or event.path != self.state.path:
            return  # another file was opened meanwhile
        before = self.state
        self.state = self.state.grown(event.session)
        if self.state.session is not before.session:
            self.session_grew(before)

    @on(WatchProblem)
    def _watch_problem(self, event: WatchProblem) -> None:
        if event.problem is not None:
            self.notify(f"Still showing the last good read: {event.problem}", severity="warning")

    def _recount(self) -> None:
        """Plan now if the counts are known, else count in a worker (the old plan stays)."""
        engine = self.engine
        if engine is None:
            return
        if self.state.counts_known:
            # A count still running for another tokenizer is no longer wanted.
            self.workers.cancel_group(self, "count")
            self._replan()
            return
        total = len(engine.session)
        counting = f"counting {plural(total, 'message')} with {self.policy.tokenizer}…"
        self._busy.start(counting, total=total)
        self._run(jobs.count, engine, self.policy, group="count")

    @on(CountingProgress)
    def _counting_progress(self, event: CountingProgress) -> None:
        self._busy.advance(event.done, event.total)

    @on(CountsReady)
    def _counts_ready(self, event: CountsReady) -> None:
        # Stale if the policy's tokenizer (or the session) changed while counting.
        if self.state.counts_known:
            self._replan()

    def _replan(self) -> None:
        assert self.engine is not None
        counts = self.engine.cached_counts(self.policy)
        try:
            plan = self.engine.plan(self.policy, counts)
        except Exception as err:  # a planner bug must leave the previous plan on screen
            self._busy.stop()
            self._show_error(f"planning failed: {bug_line(err)}", "Planning failed")
            return
        self.state = self.state.planned(plan)
        self._busy.stop()
        self.render_plan(plan)
        self._show_notes()

    def _show_notes(self) -> None:
        """What the session bar adds to the plan: a tokenizer kept across presets, and how far
        the estimator is off once an exact count is known (counting the estimate if needed)."""
        for bar in self.query(SessionBar):
            bar.set_notes(
                kept_tokenizer=self.state.kept_tokenizer, estimate=self.state.estimate_note
            )
        estimator = self.state.estimate_to_count
        if estimator is not None and self.engine is not None:
            self._run(jobs.count_quietly, self.engine, estimator, group="estimate")

    @on(WorkFailed)
    def _work_failed(self, event: WorkFailed) -> None:
        self._busy.stop()
        self._show_error(event.problem, "Something went wrong")

    @property
    def _busy(self) -> BusyRow:
        return self.query_one(BusyRow)

    def _show_error(self, message: str, title: str = "Could not open session") -> None:
        from ctxtui.tui.screens.error import ErrorScreen

        self.app.push_screen(ErrorScreen(message, title))
