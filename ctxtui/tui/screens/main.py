"""The main screen: gauge, session bar, message list, detail pane and settings, kept in step.

Its state is one ``MainState`` (``tui/state.py``), replaced only by the handlers here. The
slow steps (reading, counting, compacting, writing, pricing) are ``tui/jobs.py`` and
``tui/cost_jobs.py`` functions run in thread workers that only post messages; the search
bar and the detail pane own their state and their workers, and talk back in messages.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any, ClassVar

from textual import events, on
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical
from textual.css.query import NoMatches
from textual.screen import Screen

from ctxtui.core.engine import Engine
from ctxtui.core.literal import visible
from ctxtui.core.planning.plan import Plan
from ctxtui.core.policies.policy import Policy, PolicyError
from ctxtui.core.policies.reason_effects import reason_choices
from ctxtui.core.policies.reasons import CompactReason
from ctxtui.core.pricing.cost_words import last_request_words
from ctxtui.core.session.import_notes import shrink_note
from ctxtui.core.session.models import Session
from ctxtui.core.tokens.calibration import tail_start
from ctxtui.core.tokens.tokenizers import available_tokenizers
from ctxtui.core.wording import file_size, plural
from ctxtui.options import debugging
from ctxtui.system.heap import keep_out_of_collections
from ctxtui.tui import jobs
from ctxtui.tui.actions import Scope, bindings
from ctxtui.tui.cells import scale_label
from ctxtui.tui.command_palette import NOTHING_TO_UNDO
from ctxtui.tui.cost_jobs import CostReady, SessionTotalReady, price_session, price_whole
from ctxtui.tui.jobs import (
    CompactionReady,
    CountingProgress,
    CountsReady,
    ExportFailed,
    HistoryRead,
    SessionExported,
    SessionGrew,
    SessionLoaded,
    SessionLoadFailed,
    SessionReadWhole,
    WatchProblem,
    WorkFailed,
    bug_line,
)
from ctxtui.tui.retention_job import (
    AUDIT_TOKENIZER,
    RetentionNoted,
    audits_of_file,
    note_retention,
)
from ctxtui.tui.settings import LLMSettings
from ctxtui.tui.start import PLAIN, Start
from ctxtui.tui.state import MainState
from ctxtui.tui.widgets.busy import BusyRow
from ctxtui.tui.widgets.detail import DetailPane, gather
from ctxtui.tui.widgets.footer import FittingFooter
from ctxtui.tui.widgets.gauge import BudgetGauge
from ctxtui.tui.widgets.message_list import MessageList
from ctxtui.tui.widgets.search import SearchBar
from ctxtui.tui.widgets.session_bar import SessionBar
from ctxtui.tui.widgets.settings_panel import SettingsPanel

TALL_ROWS = 30
"""From this height the screen is "tall": the gauge has room for the API's own line."""


def file_label(path: Path) -> str:
    """The file's name (literally) and size, as the busy row shows it while the file is read."""
    try:
        size = path.stat().st_size
    except OSError:
        return visible(path.name)
    return f"{visible(path.name)} ({file_size(size)})"


def undone_note(compacted: int, state: MainState) -> str:
    """What undo did: the compaction taken back, the messages it brought back, and how many
    compactions are left to undo."""
    restored = len(state.session) if state.session is not None else 0
    note = (
        f"Undid the compaction: back to {plural(restored, 'message')} "
        f"(the compacted session had {compacted})."
    )
    if state.undo:
        note += f" {plural(len(state.undo), 'more compaction')} to undo."
    return note


GREW_UNDER_A_VIEW = (
    "The file grew: this view shows it as it was when opened. "
    "Esc, then open the view again, to see what was added."
)


class MainScreen(Screen[None]):
    """One session under one policy: what is sent, what is pruned, what would be dropped."""

    BINDINGS: ClassVar[list[BindingType]] = bindings(Scope.MAIN)

    HORIZONTAL_BREAKPOINTS = [  # noqa: RUF012 (Textual declares it without ClassVar)
        (0, "-narrow"),
        (70, "-medium"),
        (110, "-wide"),
    ]
    VERTICAL_BREAKPOINTS = [(0, "-short"), (TALL_ROWS, "-tall")]  # noqa: RUF012 (as above)

    _follow_end = False  # the watched file grew while the cursor was on the last message
    _reason_in_preview = False  # the reason dialog was skipped: the preview offers ``r``
    _priced_for: tuple[Session, str] | None = None  # the session and tokenizer priced last
    _totalled: Session | None = None  # the session whose recorded total was asked for last

    def __init__(
        self,
        source: Path | Session | None,
        *,
        start: Start = PLAIN,
        llm: LLMSettings | None = None,
    ) -> None:
        super().__init__()
        self._source = source
        self._format = start.format
        self.pick = start.pick  # start on the open dialog
        self.following = start.watch  # follow the file as it grows (``--watch``)
        self._drawn = threading.Event()  # set once a loaded session's list is on screen
        self._told_view: Screen[Any] | None = None  # the view last told the file grew
        self.llm = llm or LLMSettings()
        # A preset of None: each session on its agent's preset.
        self.state, self._startup_problem = MainState.start(
            start.preset, dict(start.overrides), start.preset_origin
        )

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

    def compose(self) -> ComposeResult:
        yield BudgetGauge(id="gauge")
        yield SessionBar(id="session-bar")
        yield BusyRow(id="progress-row")
        with Horizontal(id="body"):
            with Vertical(id="list-column"):
                yield MessageList(id="messages")
                yield SearchBar(id="search-row")
            yield DetailPane(id="detail")
            yield SettingsPanel(self.policy, list(available_tokenizers()), id="settings")
        yield FittingFooter()

    def on_mount(self) -> None:
        try:
            messages = self.query_one(MessageList)
        except NoMatches:  # a stop signal while the app started: it is ending, show nothing
            return
        messages.focus()
        if self.pick:
            self.action_open()
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
            self._show_no_session()

    def watch_focused(self) -> None:
        """Mark the pane that has the keys, so Tab's effect (list → detail → settings) shows.

        The list has no border of its own: its mark is the rule above it (the session bar's
        bottom border); the detail pane and the settings mark their own borders in the CSS.
        The class goes on the bar, not the screen: a screen class restyles every widget.
        The settings panel's mark is a class too, not ``:focus-within``: with that pseudo-class
        in the CSS, Textual restyles all the panel's widgets on every focus move inside it
        (each Tab or arrow between knobs); the class changes only when the keys enter or leave.
        """
        focused = self.focused
        self.query_one(SessionBar).set_class(isinstance(focused, MessageList), "-list-focused")
        settings = self.query_one(SettingsPanel)
        inside = focused is not None and settings in focused.ancestors_with_self
        settings.set_class(inside, "-focus-inside")

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

    @property
    def _busy(self) -> BusyRow:
        return self.query_one(BusyRow)

    def _show_error(self, message: str, title: str = "Could not open session") -> None:
        from ctxtui.tui.screens.error import ErrorScreen

        self.app.push_screen(ErrorScreen(message, title))

    # -- opening and watching --------------------------------------------------------------

    def action_open(self) -> None:
        """The open dialog: the agents' sessions, the samples, or a typed path."""
        from ctxtui.tui.screens.open import OpenSessionScreen

        path = self.state.path
        start = path.parent if path is not None else Path.cwd()
        self.app.push_screen(OpenSessionScreen(start), self.open_or_select)

    def open_or_select(self, result: object) -> None:
        """Act on what a view dismissed with: a ``Path`` is a session file to open, an
        ``int`` the message to select (the compare view's cursor), a tuned point the settings
        to plan with (the tune view's); anything else, nothing."""
        from ctxtui.tui.screens.tune import Tuned

        if isinstance(result, Path):
            self.load(result)
        elif isinstance(result, Tuned):
            self._apply_tuned(result.agent, result.settings)
        elif (
            isinstance(result, int)
            and not isinstance(result, bool)
            and self.session is not None
            and 0 <= result < len(self.session.messages)
        ):
            self.query_one(MessageList).select(result)

    def _apply_tuned(self, agent: str, settings: Any) -> None:
        """The tune view's point: the agent's preset fitted to the session, with the point's
        settings laid over it by the agent's own rules."""
        from ctxtui.core.tuning.space import candidate_policy, preset_of

        def tuned() -> MainState:
            base = self.state.with_preset(preset_of(agent))
            return base.with_policy(candidate_policy(agent, settings, base.policy))

        self._change_policy(tuned, "Cannot apply")

    def load(self, path: Path) -> None:
        """Open ``path`` in a worker; the current session stays until it has loaded.

        Opening another file ends ``--watch``: the watched file is no longer on screen.
        """
        if self.following:
            self.following = False
            self.workers.cancel_group(self, "watch")
        self._busy.start(f"loading {file_label(path)}…")
        self._drawn = threading.Event()
        self._run(jobs.read_session, path, self._format, self._drawn, group="load")

    @on(SessionLoadFailed)
    def _load_failed(self, event: SessionLoadFailed) -> None:
        self._busy.stop()
        if self.session is None:
            self._show_no_session()
        self._show_error(event.problem)

    def _show_no_session(self) -> None:
        """Say plainly that nothing is open (not "loading…" for ever) and how to open a file."""
        self.query_one(BudgetGauge).show_placeholder("no session open")
        self.query_one(SessionBar).set_status("press o to open a session file")

    @on(SessionLoaded)
    def _loaded(self, event: SessionLoaded) -> None:
        self.state, problem = self.state.opened(
            event.session, event.path, event.fit, event.agent_config
        )
        keep_out_of_collections(len(event.session))  # full GC walks froze keys (system.heap)
        if problem:
            self._show_error(problem, "Ignored the policy options")
        self._forget_previous()
        self._session_changed(opened=True)

    def _forget_previous(self) -> None:
        """Take what the previous file's workers said off the screen (its retention note, its
        dollars) and stop those still running for it: nothing of it stays beside the new one."""
        for group in ("retention", "cost", "estimate"):
            self.workers.cancel_group(self, group)
        self._priced_for = None
        for bar in self.query(SessionBar):
            bar.set_retention("")
            bar.set_cost("")
        self.query_one(BudgetGauge).show_cost("")
        self.query_one(DetailPane).set_cost(None)

    @on(HistoryRead)
    def _history_read(self, event: HistoryRead) -> None:
        """The full history arrived after the first paint: its fit numbers the gap as
        ``replay`` does, and the retention note is audited from it (never read again)."""
        before = self.state
        if event.path != before.path:
            return  # another file was opened meanwhile
        self.state = before.with_history(event.session, event.history, event.fit)
        if self.state is before:
            return
        if self.plan is not None and self.state.fit is not before.fit:
            self.query_one(BudgetGauge).show(self.plan, self.state.reported)
        self._show_tuning()  # the band of every compaction, not only the last one's
        self._run(note_retention, event, self.policy, self.following, group="retention")
        self._run(price_whole, event.session, event.history, group="total")

    def _session_changed(self, *, opened: bool = False) -> None:
        """A session was ``opened``, or replaced by a compaction or an undo: show, count it."""
        assert self.session is not None
        if opened:  # a new file brings its own policy
            self.query_one(SettingsPanel).show_policy(self.policy)
        self.refresh_bindings()  # undo and the session's keys may have changed state
        self.query_one(SearchBar).search_in(self.session)
        self._recount()
        if opened:
            self.query_one(MessageList).cursor = 0

    @on(RetentionNoted)
    def _retention_noted(self, event: RetentionNoted) -> None:
        if event.path != self.state.path:
            return
        if event.history is not None and event.history is not self.state.history:
            return  # worked out from a history the watched file has since outgrown
        for bar in self.query(SessionBar):
            bar.set_retention(event.note)

    @on(SessionReadWhole)
    def _read_whole(self, event: SessionReadWhole) -> None:
        """The whole read of the file drawn from its tail: it takes the first look's place,
        the selection kept (the messages are the same ones; where they are not, the list
        shows the whole read's)."""
        if event.path != self.state.path:
            return  # another file was opened meanwhile
        live = self.state.as_read
        if live is not event.first:
            return
        self.state = self.state.grown(event.session)
        self._session_changed()

    @on(SessionGrew)
    def _grew(self, event: SessionGrew) -> None:
        if not self.following or event.path != self.state.path:
            return  # another file was opened meanwhile
        before = self.state
        self.state = self.state.grown(event.session, event.fit)
        if self.state.session is before.session:
            return
        for bar in self.query(SessionBar):
            bar.grew()
        # The cursor on the last message follows new ones; anywhere else it stays put.
        last = len(before.session) - 1 if before.session is not None else 0
        self._follow_end = self.query_one(MessageList).cursor >= last
        if before.session is not None and self.session is not None:
            note = shrink_note(before.session, self.session)
            if note:  # a list that shrinks under the user's eyes needs a reason
                self.notify(note, title="Watched file", severity="warning")
            if tail_start(before.session) != tail_start(self.session):
                # a new compaction: the note said what the one before it lost (a note still
                # being worked out for it is dropped as it lands: ``_retention_noted``)
                for bar in self.query(SessionBar):
                    bar.set_retention("")
        self._tell_the_view_on_top()
        self._session_changed()

    def _tell_the_view_on_top(self) -> None:
        """Say, once per view, that a view opened over a watched file (timeline, tools,
        compare, tune) still shows the file as it was: it replays what it was given."""
        top = self.app.screen
        built_from_the_state = isinstance(getattr(top, "state", None), MainState)
        if top is self or not built_from_the_state or top is self._told_view:
            return
        self._told_view = top
        self.notify(GREW_UNDER_A_VIEW, title="Watched file")

    @on(WatchProblem)
    def _watch_problem(self, event: WatchProblem) -> None:
        if event.problem is not None:
            self.notify(
                f"Still showing the last good read: {visible(event.problem)}", severity="warning"
            )

    # -- counting and planning -------------------------------------------------------------

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
        first = self.state.first_pass
        if first is not None and engine.cached_counts(first) is not None:
            self._replan(first)  # drawn now from the estimate; the exact count follows
            first = None
        self._run(jobs.count, engine, self.policy, first, self._drawn, group="count")

    @on(CountingProgress)
    def _counting_progress(self, event: CountingProgress) -> None:
        self._busy.advance(event.done, event.total)

    @on(CountsReady)
    def _counts_ready(self, event: CountsReady) -> None:
        # Stale if the policy's tokenizer (or the session) changed while counting.
        if self.state.counts_known:
            self._replan()
        elif event.policy == self.state.first_pass:
            self._replan(event.policy)

    def _replan(self, first: Policy | None = None) -> None:
        """Plan under the policy with its counts, or under ``first``, the estimator whose
        counts draw a new session while the exact count goes on (the busy row stays, and
        pricing waits for the exact counts)."""
        assert self.engine is not None
        policy = first if first is not None else self.policy
        counts = self.engine.cached_counts(policy)
        try:
            plan = self.engine.plan(policy, counts)
        except Exception as err:  # a planner bug must leave the previous plan on screen
            self._busy.stop()
            self._show_error(f"planning failed: {bug_line(err)}", "Planning failed")
            return
        self.state = self.state.planned(plan)
        self.call_after_refresh(self._drawn.set)  # the list is on screen: reads may go on
        if first is not None:
            self._render_plan(plan, final=False)
            return
        self._busy.stop()
        self._render_plan(plan)
        self._show_notes()

    def _render_plan(self, plan: Plan, *, final: bool = True) -> None:
        assert self.session is not None
        self.query_one(BudgetGauge).show(plan, self.state.reported)
        bar = self.query_one(SessionBar)
        bar.show(
            self.session,
            plan,
            undo_depth=len(self.state.undo),
            preset_origin=self.state.preset_origin,
        )
        self._show_tuning()
        watching = "watching the file for new records" if self.following else ""
        bar.set_status(f"cannot fit: {plan.overflow.reason}" if plan.overflow else watching)
        messages = self.query_one(MessageList)
        messages.show(self.session, plan)
        bar.border_subtitle = scale_label(messages.scale)  # on the rule right above the bars
        if self._follow_end:
            self._follow_end = False
            messages.select(len(self.session) - 1)
        self.show_detail(messages.cursor)
        if final:
            self._price(plan)

    def _show_tuning(self) -> None:
        """The agent's configured values' origins and the trigger it was seen to use."""
        observed, verdict = self.state.observed_words
        configured = self.state.configured_words
        for bar in self.query(SessionBar):
            bar.set_tuning(configured=configured, observed=observed, verdict=verdict)

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

    # -- dollars ---------------------------------------------------------------------------

    def _price(self, plan: Plan) -> None:
        """Price the session in a worker once per session and tokenizer (the carry costs
        share each request out by the messages' counts); the recorded total is the file's,
        whatever compaction is applied on screen."""
        assert self.session is not None
        read = self.state.as_read
        if read is not None and self._totalled is not read:
            self._totalled = read
            self.run_worker(
                partial(price_whole, self.post_message, read, self.state.history),
                group="total",
                description="session total", thread=True, exclusive=True, exit_on_error=False,
            )  # fmt: skip
        done = self._priced_for
        if done is not None and done[0] is self.session and done[1] == plan.tokenizer.used:
            return
        self._priced_for = (self.session, plan.tokenizer.used)
        job = partial(price_session, self.post_message, self.session, plan.message_tokens)
        self.run_worker(
            job, group="cost", description="cost", thread=True, exclusive=True,
            exit_on_error=False,
        )  # fmt: skip

    @on(CostReady)
    def _priced(self, event: CostReady) -> None:
        if event.session is not self.session:
            return
        view = event.view
        words = last_request_words(view.cost) if view is not None else ""
        self.query_one(BudgetGauge).show_cost(words)
        self.query_one(DetailPane).set_cost(view)

    @on(SessionTotalReady)
    def _totalled_ready(self, event: SessionTotalReady) -> None:
        if event.session is self.state.as_read:
            self.query_one(SessionBar).set_cost(event.words)

    # -- detail ----------------------------------------------------------------------------

    @on(MessageList.Selected)
    def _selected(self, event: MessageList.Selected) -> None:
        self.show_detail(event.index)

    def show_detail(self, index: int) -> None:
        """Message ``index`` in the detail pane (its counts follow from the pane's worker)."""
        self.state = self.state.selected(index)
        session, plan = self.session, self.plan
        pane = self.query_one(DetailPane)
        if session is None or plan is None:
            pane.show(None)
            return
        highlight = self.query_one(MessageList).search_query
        pane.show(gather(session, plan, index, highlight), session, self.policy.chars_per_token)

    def on_resize(self) -> None:
        self.query_one(BudgetGauge).set_compact(self.size.height < TALL_ROWS)
        self.query_one(SessionBar).set_compact(self.size.height < TALL_ROWS)
        # The pane hides under 70 columns; coming back, it must not say "counting…" for ever.
        if self.plan is not None:
            self.show_detail(self.query_one(MessageList).cursor)

    # -- compact, undo, export -------------------------------------------------------------

    def action_compact(self) -> None:
        """Preview a compaction. Under most presets the reason only labels the event, so
        the preview opens at once with the plan's reason (``r`` there changes it); where the
        reason changes what is compacted (PicoClaw after its turn limit), it is asked first."""
        if self.engine is None or self.plan is None:
            return
        post_turn = self.plan.compaction.post_turn
        choices = reason_choices(self.policy, post_turn=post_turn)
        if all(choice.labels_only for choice in choices):
            planned = self.plan.compaction.reason
            offered = [choice.reason for choice in choices]
            self._compact(planned if planned in offered else offered[0], in_preview=True)
        else:
            self._ask_reason()

    def _ask_reason(self, *, in_preview: bool = False) -> None:
        """The reason dialog, then the preview; asked from a preview (``in_preview``), the
        new preview keeps its ``Reason: … (r)`` button, saying the choice and changing it."""
        from ctxtui.tui.screens.reason import ReasonScreen

        def chosen(reason: CompactReason | None) -> None:
            if reason is not None:
                self._compact(reason, in_preview=in_preview)

        post_turn = self.plan is not None and self.plan.compaction.post_turn
        self.app.push_screen(ReasonScreen(self.policy, post_turn=post_turn), chosen)

    def _compact(self, reason: CompactReason, *, in_preview: bool) -> None:
        if self.engine is None:
            return
        self._reason_in_preview = in_preview
        self._busy.start(f"compacting ({reason.value})…")
        self._run(jobs.compact, self.engine, self.policy, reason, group="compact")

    def action_audit(self, note: str = "") -> None:
        """The retention audit of the agent's last recorded compaction (the timeline's `a`
        audits the one at its cursor); ``note`` says why it opened instead of a preview."""
        from ctxtui.tui.screens.retention import RecordedAuditScreen

        session, path = self.session, self.state.path
        if session is None:
            return
        if path is None or not session.meta.recorded_compactions:
            self.notify(f"{note}No compaction recorded in this session: nothing to audit.")
            return
        job = partial(audits_of_file, path, self._format, self.policy, True)
        self.app.push_screen(RecordedAuditScreen(job, note=note, counted_by=AUDIT_TOKENIZER))

    @on(CompactionReady)
    def _compaction_ready(self, event: CompactionReady) -> None:
        from ctxtui.tui.screens.compaction import CompactionPreviewScreen, PreviewContext

        self._busy.stop()
        session = self.session
        nothing = event.result.messages_replaced == 0 and event.result.note
        if nothing and session is not None and session.meta.recorded_compactions:
            # nothing left to compact after the agent's own compaction: its audit instead
            self.action_audit(note=f"{event.result.note.capitalize()}.\n")
            return
        before = len(self.session) if self.session is not None else None
        engine = self.state.engine
        context = PreviewContext(
            messages_before=before,
            tokenizer=engine.tokenizer(self.policy) if engine is not None else None,
            llm=self.llm,
            choose_reason=self._reason_in_preview,
        )
        preview = CompactionPreviewScreen(
            event.result, calls=event.calls, audit=event.audit, context=context
        )

        def decided(choice: str | None) -> None:
            if choice == "apply":
                applied = preview.session_to_apply
                self.state = self.state.applied(applied)
                self._session_changed()
                self.notify(f"Compacted: {plural(len(applied), 'message')} now.", timeout=3)
            elif choice == "export":
                self._export(preview.session_to_apply, compacted=True)
            elif choice == "reason":
                self._ask_reason(in_preview=True)

        self.app.push_screen(preview, decided)

    def action_undo(self) -> None:
        if not self.state.undo:
            self.notify(NOTHING_TO_UNDO, timeout=3)
            return
        compacted = len(self.session) if self.session is not None else 0
        self.state = self.state.undone()
        self._session_changed()
        self.notify(undone_note(compacted, self.state), timeout=4)

    def on_key(self, event: events.Key) -> None:
        """Undo's key is dimmed while nothing is applied, so Textual runs nothing when it is
        pressed; say why rather than leave the press unanswered."""
        active = self.active_bindings.get(event.key)
        if active is not None and active.binding.action == "undo" and not active.enabled:
            event.stop()
            self.notify(NOTHING_TO_UNDO, timeout=3)

    def action_export(self) -> None:
        if self.session is not None:
            self._export(self.session, compacted=self.state.compacted)

    def _export(self, session: Session, *, compacted: bool) -> None:
        from ctxtui.tui.screens.export import ExportScreen

        default, source = self.state.export_paths(session)
        title = "Export compacted session" if compacted else "Export session"

        def chosen(path: Path | None) -> None:
            if path is not None:
                self._busy.start(f"writing {visible(path.name)}…")
                self._run(jobs.write, session, path, group="export")

        self.app.push_screen(ExportScreen(default, source, title=title), chosen)

    @on(SessionExported)
    def _exported(self, event: SessionExported) -> None:
        self._busy.stop()
        self.notify(
            f"Wrote {visible(str(event.path))} ({plural(event.messages, 'message')})", timeout=4
        )

    @on(ExportFailed)
    def _export_failed(self, event: ExportFailed) -> None:
        self._busy.stop()
        self._show_error(event.problem, "Could not export")

    # -- keys ------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Which keys do something now; ``None`` shows a key dimmed in the footer.

        Without a session there is nothing to compact, export, search or jump in, and with
        nothing applied there is nothing to undo: dimmed keys say so before they are pressed.
        """
        if action == "close_panels":
            # Only offered (in the footer, and to Escape) while there is something to close.
            return bool(self.query_one(SettingsPanel).display or self._search.display)
        return True if self.state.can(action) else None

    def action_toggle_settings(self) -> None:
        """Open or close the settings. The panel is on screen at the press; the first time,
        its controls are built after that paint, under a busy mark, so the press is answered
        at once and a second press closes what is already shown."""
        panel = self.query_one(SettingsPanel)
        panel.display = not panel.display
        # Under 110 columns the list needs the room more than the detail pane (the CSS hides
        # it); wider, the pane stays beside the knobs, so its "why" follows each change.
        self.query_one(DetailPane).set_class(panel.display, "-settings-open")
        if panel.display and not panel.built:
            panel.loading = True
            self.call_after_refresh(self._build_settings)
        elif panel.display:
            panel.focus_first()
        else:
            if panel.built:  # closing discards what was typed but refused
                panel.show_policy(self.policy)
            self.query_one(MessageList).focus()
            self.show_detail(self.query_one(MessageList).cursor)
        self.refresh_bindings()

    async def _build_settings(self) -> None:
        """The settings' controls, made once, after the open panel was painted."""
        panel = self.query_one(SettingsPanel)
        await panel.build()
        panel.loading = False
        if panel.display:  # not closed again meanwhile
            panel.focus_first()
            self.refresh_bindings()

    def action_toggle_detail(self) -> None:
        """Show the detail pane where it is hidden (under 70 columns, beside the knobs), or
        hide it; the choice holds across resizes."""
        pane = self.query_one(DetailPane)
        shown = pane.display
        pane.set_class(not shown, "-detail-shown")
        pane.set_class(shown, "-detail-hidden")
        if not shown:
            self.show_detail(self.query_one(MessageList).cursor)  # a hidden pane did not count

    async def action_close_panels(self) -> None:
        """Escape: close the search bar if it has the focus, else the settings, else the search.

        Inside a knob's input ``s`` types an ``s``, so without this the keyboard could not
        leave the settings panel except by tabbing all the way round.
        """
        if self._search.input.has_focus:
            self._search.close()
        elif self.query_one(SettingsPanel).display:
            self.action_toggle_settings()
        elif self._search.display:
            self._search.close()

    @on(SettingsPanel.PolicyEdited)
    def _policy_edited(self, event: SettingsPanel.PolicyEdited) -> None:
        self.state = self.state.with_policy(event.policy)
        self._recount()

    @on(SettingsPanel.PresetChosen)
    def _preset_chosen(self, event: SettingsPanel.PresetChosen) -> None:
        self.action_preset(event.name)

    def action_preset(self, name: str) -> None:
        self._change_policy(partial(self.state.with_preset, name), "Unknown preset")

    def action_tokenizer(self, spec: str) -> None:
        self._change_policy(partial(self.state.with_tokenizer, spec), "Unknown tokenizer")

    def _change_policy(self, change: Callable[[], MainState], refused: str) -> None:
        try:
            self.state = change()
        except PolicyError as err:
            self._show_error(str(err), refused)
            return
        self.query_one(SettingsPanel).show_policy(self.policy)
        self._recount()

    def action_jump_tail(self) -> None:
        if self.plan is None or not self.session:
            return
        start = min(self.plan.tail.start, len(self.session) - 1)
        self.query_one(MessageList).select(start, top=True)

    # -- search ----------------------------------------------------------------------------

    @property
    def _search(self) -> SearchBar:
        return self.query_one(SearchBar)

    def action_search(self) -> None:
        self._search.open()

    def action_search_next(self) -> None:
        """Go to the next message holding the query, wrapping round; ``n`` with none asks."""
        self._search.next(self.query_one(MessageList).cursor)

    @on(SearchBar.Submitted)
    def _search_submitted(self) -> None:
        self.query_one(MessageList).focus()
        self.action_search_next()

    @on(SearchBar.Highlight)
    def _highlight(self, event: SearchBar.Highlight) -> None:
        self.query_one(MessageList).highlight(event.query)

    @on(SearchBar.Goto)
    def _goto(self, event: SearchBar.Goto) -> None:
        self.query_one(MessageList).select(event.index)

    @on(SearchBar.Shown)
    def _search_shown(self, event: SearchBar.Shown) -> None:
        if not event.shown:
            self.query_one(MessageList).highlight("")
            self.query_one(MessageList).focus()
        self.refresh_bindings()
