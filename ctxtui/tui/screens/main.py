"""The main screen: gauge, session bar, message list, detail pane and settings, kept in step.

The screen composes the widgets and routes keys and messages. Its state is one ``MainState``
(``tui/state.py``), kept in step with the loading and counting workers by ``SessionScreen``;
compacting and writing are ``tui/jobs.py`` functions in workers that only post messages; the
search bar and the detail pane own their state and their workers, and talk back in messages.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical

from ctxtui.core.planning.plan import Plan
from ctxtui.core.policies.policy import PolicyError
from ctxtui.core.pricing.cost_words import last_priced, request_words
from ctxtui.core.session.import_notes import shrink_note
from ctxtui.core.session.models import Session
from ctxtui.core.tokens.tokenizers import available_tokenizers
from ctxtui.tui.actions import Scope, bindings
from ctxtui.tui.cells import scale_label
from ctxtui.tui.cost_jobs import CostReady, price_session
from ctxtui.tui.screens.flows import FlowScreen
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


class MainScreen(FlowScreen):
    """One session under one policy: what is sent, what is pruned, what would be dropped."""

    BINDINGS: ClassVar[list[BindingType]] = bindings(Scope.MAIN)

    _follow_end = False  # the watched file grew while the cursor was on the last message

    HORIZONTAL_BREAKPOINTS = [  # noqa: RUF012 (Textual declares it without ClassVar)
        (0, "-narrow"),
        (70, "-medium"),
        (110, "-wide"),
    ]
    VERTICAL_BREAKPOINTS = [(0, "-short"), (TALL_ROWS, "-tall")]  # noqa: RUF012 (as above)

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

    def on_mount(self) -> None:  # then Textual calls SessionScreen.on_mount, which loads
        self.query_one(MessageList).focus()
        if self.pick:
            self.action_open()

    def watch_focused(self) -> None:
        """Mark the pane that has the keys, so Tab's effect (list → detail → settings) shows.

        The list has no border of its own: its mark is the rule above it (the session bar's
        bottom border); the detail pane and the settings mark their own borders in the CSS.
        The class goes on the bar, not the screen: a screen class restyles every widget.
        The settings panel's mark is a class too, not ``:focus-within``: with that pseudo-class
        in the CSS, Textual restyles the panel's ~250 widgets on every focus move inside it
        (each Tab or arrow between knobs); the class changes only when the keys enter or leave.
        """
        focused = self.focused
        self.query_one(SessionBar).set_class(isinstance(focused, MessageList), "-list-focused")
        settings = self.query_one(SettingsPanel)
        inside = focused is not None and settings in focused.ancestors_with_self
        settings.set_class(inside, "-focus-inside")

    def show_no_session(self) -> None:
        self.query_one(BudgetGauge).show_placeholder("no session open")
        self.query_one(SessionBar).set_status("press o to open a session file")

    def session_changed(self, *, opened: bool = False) -> None:
        assert self.session is not None
        if opened:  # a new file brings its own policy
            self.query_one(SettingsPanel).show_policy(self.policy)
        self.refresh_bindings()  # undo and the session's keys may have changed state
        self.query_one(SearchBar).search_in(self.session)
        self._recount()
        if opened:
            self.query_one(MessageList).cursor = 0

    def session_grew(self, before: MainState) -> None:
        # The cursor on the last message follows new ones; anywhere else it stays put.
        last = len(before.session) - 1 if before.session is not None else 0
        self._follow_end = self.query_one(MessageList).cursor >= last
        if before.session is not None and self.session is not None:
            note = shrink_note(before.session, self.session)
            if note:  # a list that shrinks under the user's eyes needs a reason
                self.notify(note, title="Watched file", severity="warning")
        self.session_changed()

    # -- rendering -------------------------------------------------------------------------

    def render_plan(self, plan: Plan) -> None:
        assert self.session is not None
        self.query_one(BudgetGauge).show(plan, self.state.reported)
        bar = self.query_one(SessionBar)
        bar.show(self.session, plan, undo_depth=len(self.state.undo))
        watching = "watching the file for new records" if self.following else ""
        bar.set_status(f"cannot fit: {plan.overflow.reason}" if plan.overflow else watching)
        messages = self.query_one(MessageList)
        messages.show(self.session, plan)
        bar.border_subtitle = scale_label(messages.scale)  # on the rule right above the bars
        if self._follow_end:
            self._follow_end = False
            messages.select(len(self.session) - 1)
        self.show_detail(messages.cursor)
        self._price(plan)

    # -- dollars ---------------------------------------------------------------------------

    _priced_for: tuple[Session, str] | None = None  # the session and tokenizer priced last

    def _price(self, plan: Plan) -> None:
        """Price the session in a worker once per session and tokenizer (the carry costs
        share each request out by the messages' counts)."""
        assert self.session is not None
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
        last = last_priced(view.cost) if view is not None else None
        priced = last is not None and last.cost is not None
        words = request_words(last, misses=False) if last is not None and priced else ""
        self.query_one(BudgetGauge).show_cost(words)
        self.query_one(DetailPane).set_cost(view)

    # -- detail ----------------------------------------------------------------------------

    def select_message(self, index: int) -> None:
        if self.session is not None and 0 <= index < len(self.session.messages):
            self.query_one(MessageList).select(index)

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
        # The pane hides under 70 columns; coming back, it must not say "counting…" for ever.
        if self.plan is not None:
            self.show_detail(self.query_one(MessageList).cursor)

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

    async def action_toggle_settings(self) -> None:
        panel = self.query_one(SettingsPanel)
        await panel.build()
        panel.display = not panel.display
        # Under 110 columns the list needs the room more than the detail pane (the CSS hides
        # it); wider, the pane stays beside the knobs, so its "why" follows each change.
        self.query_one(DetailPane).set_class(panel.display, "-settings-open")
        if panel.display:
            panel.focus_first()
        else:
            # Closing discards what was typed but refused: the inputs show the plan's values.
            panel.show_policy(self.policy)
            self.query_one(MessageList).focus()
            self.show_detail(self.query_one(MessageList).cursor)
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
            await self.action_toggle_settings()
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
