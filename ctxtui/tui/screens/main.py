"""The main screen: gauge, session bar, message list, detail pane and settings, kept in step.

The screen owns the state (session, engine, policy, plan, undo stack). Workers do the slow
steps — reading a file, counting tokens, compacting — and only post messages; the handlers
below are the one place that state changes, and each change ends in ``_render_plan``.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Input, Label
from textual.worker import get_current_worker

from ctxtui.core.engine import Engine
from ctxtui.core.errors import SessionLoadError
from ctxtui.core.explain import why
from ctxtui.core.models import Message, Session
from ctxtui.core.plan import Plan
from ctxtui.core.policy import Policy, PolicyError, policy_for_session, preset
from ctxtui.core.reasons import CompactReason
from ctxtui.core.rows import row_tag
from ctxtui.tui.actions import Scope, bindings, needs_session
from ctxtui.tui.messages import (
    CompactionReady,
    CountingProgress,
    CountsReady,
    DetailCounts,
    ExportFailed,
    SearchDone,
    SessionExported,
    SessionLoaded,
    SessionLoadFailed,
    WorkFailed,
)
from ctxtui.tui.widgets.busy import BusyRow, format_bytes
from ctxtui.tui.widgets.detail import DetailInfo, DetailPane, partner_text
from ctxtui.tui.widgets.footer import FittingFooter
from ctxtui.tui.widgets.gauge import BudgetGauge
from ctxtui.tui.widgets.message_list import MessageList
from ctxtui.tui.widgets.search import find_matches
from ctxtui.tui.widgets.session_bar import SessionBar
from ctxtui.tui.widgets.settings_panel import SettingsPanel


def tokenizer_names() -> list[str]:
    from ctxtui.core.tokenizers import available_tokenizers

    return list(available_tokenizers())


def file_label(path: Path) -> str:
    """The file's name and size, as the busy row shows it while the file is read."""
    try:
        size = path.stat().st_size
    except OSError:
        return path.name
    return f"{path.name} ({format_bytes(size)})"


DETAIL_SYNC_CHARS = 20_000
"""Messages up to this long are counted for the detail pane at once, without a worker.

Counting them under every tokenizer takes well under a millisecond once tiktoken has loaded,
and doing it in a worker left the pane saying "counting…" for a frame on every cursor move.
"""


class MainScreen(Screen[None]):
    """One session under one policy: what is sent, what is pruned, what would be dropped."""

    BINDINGS: ClassVar[list[BindingType]] = bindings(Scope.MAIN)

    HORIZONTAL_BREAKPOINTS = [  # noqa: RUF012 (Textual declares it without ClassVar)
        (0, "-narrow"),
        (70, "-medium"),
        (110, "-wide"),
    ]

    def __init__(
        self,
        source: Path | Session | None,
        *,
        format: str | None = None,
        preset_name: str = "plan",
        overrides: dict[str, Any] | None = None,
    ) -> None:
        super().__init__()
        self._source = source
        self._format = format
        self._preset_name = preset_name
        self._overrides = dict(overrides or {})
        self._path: Path | None = None
        self.session: Session | None = None
        self.engine: Engine | None = None
        try:
            self.policy = preset(preset_name, **self._overrides)
        except PolicyError as err:
            self._startup_problem: str | None = str(err)
            self._overrides = {}
            self.policy = preset(preset_name)
        else:
            self._startup_problem = None
        self.plan: Plan | None = None
        self._undo: list[Session] = []
        self._matches: list[int] = []
        self._query = ""
        self._searching = False
        self._detail_warm = False  # tiktoken loaded: short messages can be counted at once

    # -- layout ----------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield BudgetGauge(id="gauge")
        yield SessionBar(id="session-bar")
        yield BusyRow(id="progress-row")
        with Horizontal(id="body"):
            with Vertical(id="list-column"):
                yield MessageList(id="messages")
                with Horizontal(id="search-row"):
                    yield Input(placeholder="search message contents", id="search", compact=True)
                    yield Label("", id="search-status")
            yield DetailPane(id="detail")
            yield SettingsPanel(self.policy, tokenizer_names(), id="settings")
        yield FittingFooter()

    def on_mount(self) -> None:
        self.query_one(MessageList).focus()
        if self._startup_problem:
            self._show_error(self._startup_problem, "Ignored the policy options")
        source = self._source
        if isinstance(source, Session):
            self.post_message(SessionLoaded(source, None))
        elif source is not None:
            self._load(source)
        else:
            self._show_no_session()

    # -- loading ---------------------------------------------------------------------------

    def load(self, path: Path) -> None:
        """Open ``path`` in a worker; the current session stays until it has loaded."""
        self._load(path)

    def _load(self, path: Path) -> None:
        self._busy.start(f"loading {file_label(path)}…")
        self._read_session(path, self._format)

    @work(thread=True, exclusive=True, exit_on_error=False, group="load")
    def _read_session(self, path: Path, format: str | None) -> None:
        from ctxtui.importers import load_session

        try:
            session = load_session(path, format)
        except SessionLoadError as err:
            self.post_message(SessionLoadFailed(str(err)))
        except Exception as err:  # an importer bug must not take the app down
            self.post_message(SessionLoadFailed(f"{path.name}: {type(err).__name__}: {err}"))
        else:
            self.post_message(SessionLoaded(session, path))

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
        self._path = event.path
        try:
            policy = policy_for_session(self._preset_name, event.session, self._overrides)
        except PolicyError as err:
            self._show_error(str(err), "Ignored the policy options")
            # Still fitted to this session: its own window, and a reserve that fits it.
            policy = policy_for_session(self._preset_name, event.session)
        self._undo.clear()
        self._set_policy(policy)
        self._set_session(event.session)
        self.query_one(MessageList).cursor = 0

    def _set_session(self, session: Session) -> None:
        self.session = session
        self.engine = Engine(session)
        self.refresh_bindings()  # undo and the session's keys may have changed state
        self._matches = []
        self._query = ""
        self._searching = False
        self.query_one(MessageList).highlight("")
        self.query_one("#search-status", Label).update("")
        self._recount()

    def _set_policy(self, policy: Policy) -> None:
        self.policy = policy
        self.query_one(SettingsPanel).show_policy(policy)

    # -- counting and planning -------------------------------------------------------------

    def _recount(self) -> None:
        """Plan now if the counts are known, else count in a worker (the old plan stays)."""
        if self.engine is None:
            return
        counts = self.engine.cached_counts(self.policy)
        if counts is not None:
            # A count still running for another tokenizer is no longer wanted.
            self.workers.cancel_group(self, "count")
            self._replan()
            return
        total = len(self.engine.session)
        self._busy.start(f"counting {total:,} messages with {self.policy.tokenizer}…", total=total)
        self._count(self.engine, self.policy)

    @work(thread=True, exclusive=True, exit_on_error=False, group="count")
    def _count(self, engine: Engine, policy: Policy) -> None:
        worker = get_current_worker()
        try:

            def progress(done: int, total: int) -> None:
                self.post_message(CountingProgress(done, total))

            counts = engine.counts(
                policy, on_progress=progress, should_stop=lambda: worker.is_cancelled
            )
        except Exception as err:
            self.post_message(WorkFailed(f"counting failed: {err}"))
            return
        if counts is not None:
            self.post_message(CountsReady(policy, counts))

    @on(CountingProgress)
    def _counting_progress(self, event: CountingProgress) -> None:
        self._busy.advance(event.done, event.total)

    @on(CountsReady)
    def _counts_ready(self, event: CountsReady) -> None:
        # Stale if the policy's tokenizer (or the session) changed while counting.
        if self.engine is not None and self.engine.cached_counts(self.policy) is not None:
            self._replan()

    def _replan(self) -> None:
        assert self.engine is not None and self.session is not None
        counts = self.engine.cached_counts(self.policy)
        try:
            plan = self.engine.plan(self.policy, counts)
        except Exception as err:  # a planner bug must leave the previous plan on screen
            self._busy.stop()
            self._show_error(f"planning failed: {type(err).__name__}: {err}", "Planning failed")
            return
        self.plan = plan
        self._busy.stop()
        self._render_plan()

    def _render_plan(self) -> None:
        assert self.session is not None and self.plan is not None
        plan = self.plan
        self.query_one(BudgetGauge).show(plan)
        bar = self.query_one(SessionBar)
        bar.show(self.session, plan, undo_depth=len(self._undo))
        bar.set_status(f"cannot fit: {plan.overflow.reason}" if plan.overflow else "")
        messages = self.query_one(MessageList)
        messages.show(self.session, plan)
        self._show_detail(messages.cursor)

    # -- detail ----------------------------------------------------------------------------

    @on(MessageList.Selected)
    def _selected(self, event: MessageList.Selected) -> None:
        self._show_detail(event.index)

    def _detail_info(self, index: int, counts: dict[str, int] | None) -> DetailInfo | None:
        session, plan = self.session, self.plan
        if session is None or plan is None or not 0 <= index < len(session):
            return None
        tag = row_tag(plan, index, session.messages[index])
        return DetailInfo(
            index=index,
            message=session.messages[index],
            zone=plan.zone(index),
            tokens=plan.message_tokens[index],
            effective=plan.effective_tokens[index],
            tag=tag,
            partners=partner_text(session, index),
            why=why(session, plan, index),
            counts=counts,
            highlight=self.query_one(MessageList).search_query,
        )

    def _show_detail(self, index: int) -> None:
        pane = self.query_one(DetailPane)
        info = self._detail_info(index, None)
        if info is not None and pane.display and self._detail_warm and _short(info.message):
            from ctxtui.core.counting import count_message_everywhere

            counts = count_message_everywhere(info.message, self.policy.chars_per_token)
            pane.show(replace(info, counts=counts))  # the rest is gathered already
            return
        pane.show(info)
        if info is not None and pane.display:
            self._count_everywhere(index, info.message, self.policy.chars_per_token)

    def on_resize(self) -> None:
        # The pane hides under 70 columns; coming back, it must not say "counting…" for ever.
        if self.plan is not None:
            self._show_detail(self.query_one(MessageList).cursor)

    @work(thread=True, exclusive=True, exit_on_error=False, group="detail")
    def _count_everywhere(self, index: int, message: Message, chars_per_token: float) -> None:
        from ctxtui.core.counting import count_message_everywhere

        try:
            counts = count_message_everywhere(message, chars_per_token)
        except Exception:  # the detail pane says "counting…" rather than crash the screen
            return
        if not get_current_worker().is_cancelled:
            self.post_message(DetailCounts(index, counts))

    @on(DetailCounts)
    def _detail_counts(self, event: DetailCounts) -> None:
        self._detail_warm = True
        if event.index == self.query_one(MessageList).cursor:
            self.query_one(DetailPane).show(self._detail_info(event.index, event.counts))

    # -- settings --------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Which keys do something now; ``None`` shows a key dimmed in the footer.

        Without a session there is nothing to compact, export, search or jump in, and with
        nothing applied there is nothing to undo: dimmed keys say so before they are pressed.
        """
        if action == "close_panels":
            # Only offered (in the footer, and to Escape) while there is something to close.
            return bool(
                self.query_one(SettingsPanel).display or self.query_one("#search-row").display
            )
        if needs_session(action) and self.session is None:
            return None
        if action == "undo" and not self._undo:
            return None
        return True

    def action_toggle_settings(self) -> None:
        panel = self.query_one(SettingsPanel)
        panel.display = not panel.display
        # The list needs the room more than the detail pane while the knobs are out.
        self.set_class(panel.display, "-settings-open")
        if panel.display:
            panel.focus_first()
        else:
            # Closing discards what was typed but refused: the inputs show the plan's values.
            panel.show_policy(self.policy)
            self.query_one(MessageList).focus()
            self._show_detail(self.query_one(MessageList).cursor)
        self.refresh_bindings()

    def action_close_panels(self) -> None:
        """Escape: close the search bar if it has the focus, else the settings, else the search.

        Inside a knob's input ``s`` types an ``s``, so without this the keyboard could not
        leave the settings panel except by tabbing all the way round.
        """
        search_row = self.query_one("#search-row")
        if self.query_one("#search", Input).has_focus:
            self._close_search()
        elif self.query_one(SettingsPanel).display:
            self.action_toggle_settings()
        elif search_row.display:
            self._close_search()

    def _close_search(self) -> None:
        self.query_one("#search-row").display = False
        self.query_one(MessageList).highlight("")
        self.query_one(MessageList).focus()
        self.refresh_bindings()

    @on(SettingsPanel.PolicyEdited)
    def _policy_edited(self, event: SettingsPanel.PolicyEdited) -> None:
        self.policy = event.policy
        self._recount()

    @on(SettingsPanel.PresetChosen)
    def _preset_chosen(self, event: SettingsPanel.PresetChosen) -> None:
        self.action_preset(event.name)

    def action_preset(self, name: str) -> None:
        try:
            policy = policy_for_session(name, self.session) if self.session else preset(name)
        except PolicyError as err:
            self._show_error(str(err), "Unknown preset")
            return
        self._set_policy(policy)
        self._recount()

    def action_tokenizer(self, spec: str) -> None:
        try:
            policy = self.policy.with_changes(tokenizer=spec)
        except PolicyError as err:
            self._show_error(str(err), "Unknown tokenizer")
            return
        self._set_policy(policy)
        self._recount()

    # -- navigation and search -------------------------------------------------------------

    def action_jump_tail(self) -> None:
        if self.plan is None or not self.session:
            return
        start = min(self.plan.tail.start, len(self.session) - 1)
        self.query_one(MessageList).select(start, top=True)

    def action_search(self) -> None:
        row = self.query_one("#search-row")
        row.display = True
        self.query_one("#search", Input).focus()
        self.refresh_bindings()

    @on(Input.Submitted, "#search")
    def _search_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.query_one(MessageList).focus()
        self.action_search_next()

    def action_search_next(self) -> None:
        """Go to the next message holding the query, wrapping round; ``n`` with none asks."""
        if self.session is None:
            return
        query = self.query_one("#search", Input).value
        if not query:
            self.action_search()
            return
        if not self.query_one("#search-row").display:
            self.query_one("#search-row").display = True
            self.refresh_bindings()
        if query != self._query:
            self._query = query
            self._matches = []
            self._searching = True
            self.query_one("#search-status", Label).update("searching…")
            self._search(self.session, query)
        elif not self._searching:
            self._next_match()

    @work(thread=True, exclusive=True, exit_on_error=False, group="search")
    def _search(self, session: Session, query: str) -> None:
        # 100,000 messages take a noticeable fraction of a second: never on the UI thread.
        matches = find_matches(session, query)
        if not get_current_worker().is_cancelled:
            self.post_message(SearchDone(session, query, matches))

    @on(SearchDone)
    def _search_done(self, event: SearchDone) -> None:
        if event.session is not self.session or event.query != self._query:
            return  # the session or the query changed while searching
        self._searching = False
        self._matches = event.matches
        self._next_match()

    def _next_match(self) -> None:
        status = self.query_one("#search-status", Label)
        messages = self.query_one(MessageList)
        messages.highlight(self._query)
        if not self._matches:
            status.update("no match")
            return
        after = [i for i in self._matches if i > messages.cursor]
        target = after[0] if after else self._matches[0]
        messages.select(target)
        wrapped = " (from the top)" if not after and len(self._matches) > 1 else ""
        status.update(f"{self._matches.index(target) + 1:,} of {len(self._matches):,}{wrapped}")

    # -- compaction, undo, export, open ----------------------------------------------------

    def action_compact(self) -> None:
        if self.engine is None:
            return
        from ctxtui.tui.screens.reason import ReasonScreen

        def chosen(reason: CompactReason | None) -> None:
            if reason is not None and self.engine is not None:
                self._busy.start(f"compacting ({reason.value})…")
                self._compact(self.engine, self.policy, reason)

        self.app.push_screen(ReasonScreen(), chosen)

    @work(thread=True, exclusive=True, exit_on_error=False, group="compact")
    def _compact(self, engine: Engine, policy: Policy, reason: CompactReason) -> None:
        try:
            result = engine.compact(policy, reason)
        except Exception as err:
            self.post_message(WorkFailed(f"compaction failed: {type(err).__name__}: {err}"))
            return
        self.post_message(CompactionReady(result))

    @on(CompactionReady)
    def _compaction_ready(self, event: CompactionReady) -> None:
        self._busy.stop()
        from ctxtui.tui.screens.compaction import CompactionPreviewScreen

        result = event.result
        before = len(self.session) if self.session is not None else None

        def decided(choice: str | None) -> None:
            if choice == "apply":
                self._apply(result.session)
            elif choice == "export":
                self._export(result.session, compacted=True)

        self.app.push_screen(CompactionPreviewScreen(result, messages_before=before), decided)

    def _apply(self, session: Session) -> None:
        if self.session is not None:
            self._undo.append(self.session)
        self._set_session(session)
        self.notify(f"Compacted: {len(session):,} messages now.", timeout=3)

    def action_undo(self) -> None:
        if not self._undo:
            self.notify("Nothing to undo.", timeout=2)
            return
        self._set_session(self._undo.pop())

    def action_export(self) -> None:
        if self.session is not None:
            self._export(self.session, compacted=bool(self._undo))

    def _export(self, session: Session, *, compacted: bool) -> None:
        from ctxtui.tui.screens.export import ExportScreen

        source = Path(session.meta.source_path) if session.meta.source_path else self._path
        # Absolute: the dialog resolves what the user types against the default's directory,
        # and a relative source (``ctxtui sample_sessions/x.json``) would be applied twice.
        source = source.absolute() if source is not None else None
        base = source.parent if source is not None else Path.cwd()
        stem = source.stem if source is not None else "session"
        default = base / f"{stem}.ctxtui.json"
        title = "Export compacted session" if compacted else "Export session"

        def chosen(path: Path | None) -> None:
            if path is not None:
                self._busy.start(f"writing {path.name}…")
                self._write(session, path)

        self.app.push_screen(ExportScreen(default, source, title=title), chosen)

    @work(thread=True, exclusive=True, exit_on_error=False, group="export")
    def _write(self, session: Session, path: Path) -> None:
        # 100,000 messages are 260 MB of JSON: seconds of work that must not freeze the keys.
        from ctxtui.core.export import ExportError, write_session

        try:
            written = write_session(session, path, force=path.exists())
        except ExportError as err:
            self.post_message(ExportFailed(str(err)))
        except Exception as err:  # a bug in the writer must not take the app down
            self.post_message(ExportFailed(f"{path.name}: {type(err).__name__}: {err}"))
        else:
            self.post_message(SessionExported(written, len(session)))

    @on(SessionExported)
    def _exported(self, event: SessionExported) -> None:
        self._busy.stop()
        self.notify(f"Wrote {event.path} ({event.messages:,} messages)", timeout=4)

    @on(ExportFailed)
    def _export_failed(self, event: ExportFailed) -> None:
        self._busy.stop()
        self._show_error(event.problem, "Could not export")

    def action_open(self) -> None:
        from ctxtui.tui.screens.open import OpenSessionScreen

        start = self._path.parent if self._path is not None else Path.cwd()

        def chosen(path: Path | None) -> None:
            if path is not None:
                self._load(path)

        self.app.push_screen(OpenSessionScreen(start), chosen)

    # -- status and errors -----------------------------------------------------------------

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


def _short(message: Message) -> bool:
    """Whether ``message`` is cheap enough to count on the UI thread (``DETAIL_SYNC_CHARS``)."""
    size = len(message.content) + len(message.reasoning or "")
    size += sum(len(c.arguments) + len(c.name) for c in message.tool_calls)
    return bool(size <= DETAIL_SYNC_CHARS)
