"""The search bar: finds text in message contents and says where the next match is.

Like Toolong's find dialog, the bar owns its state (``SearchState``: the query, the matches,
whether a search is running) and its worker, and talks to the screen only in messages:
``Highlight`` (mark this text), ``Goto`` (select this message), ``Shown`` (opened or
closed) and ``Submitted`` (Enter). The screen tells it which session to search and, with
``next``, where the cursor is.
"""

from __future__ import annotations

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Input, Label
from textual.worker import get_current_worker

from ctxtui.core.session.models import Session
from ctxtui.tui.state import SearchState


def find_matches(session: Session, query: str) -> list[int]:
    """Indices of the messages whose content, tool calls or reasoning contain ``query``.

    Case-insensitive; matching is on the literal text, so searching for ``[bold]`` or an
    escape sequence's visible part (``[31m``) finds it.
    """
    needle = query.casefold()
    if not needle:
        return []
    out: list[int] = []
    for i, m in enumerate(session.messages):
        if (
            needle in m.content.casefold()
            or any(
                needle in c.arguments.casefold() or needle in c.name.casefold()
                for c in m.tool_calls
            )
            or (m.reasoning and needle in m.reasoning.casefold())
        ):
            out.append(i)
    return out


def in_summary(session: Session, query: str) -> bool:
    """Whether the summary the source keeps outside the messages (PicoClaw's meta summary,
    shown on the session bar) holds ``query``, case-insensitively."""
    summary = session.meta.summary
    return bool(query and summary and query.casefold() in summary.casefold())


SUMMARY_NOTE = "in the meta summary (the session bar's summary line)"


class SearchBar(Horizontal):
    """An input and a status line under the list; hidden until ``/`` (or ``n``) opens it."""

    class Highlight(Message):
        """Mark ``query`` wherever the list and the detail pane show it (empty: unmark)."""

        def __init__(self, query: str) -> None:
            super().__init__()
            self.query = query

    class Goto(Message):
        """Select message ``index``: the match the user asked for."""

        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    class Shown(Message):
        """The bar opened or closed (the keys on offer change); closing unmarks the matches."""

        def __init__(self, shown: bool) -> None:
            super().__init__()
            self.shown = shown

    class Submitted(Message):
        """Enter in the input: the screen asks for the next match from its cursor (``next``)."""

    class _Found(Message):
        def __init__(
            self, session: Session, query: str, matches: tuple[int, ...], summary: bool
        ) -> None:
            super().__init__()
            self.session = session
            self.query = query
            self.matches = matches
            self.summary = summary

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.state = SearchState()
        self._session: Session | None = None
        self._cursor = 0
        self._summary_hit = False

    def compose(self) -> ComposeResult:
        yield Input(placeholder="search message contents", id="search", compact=True)
        yield Label("", id="search-status")

    @property
    def input(self) -> Input:
        return self.query_one("#search", Input)

    def _status(self, text: str) -> None:
        self.query_one("#search-status", Label).update(text)

    def search_in(self, session: Session) -> None:
        """Search ``session`` from now on; what was found in the previous one is forgotten."""
        self._session = session
        self.state = SearchState()
        self._status("")
        self.post_message(self.Highlight(""))

    def open(self) -> None:
        """Show the bar with the input focused."""
        self._show(True)
        self.input.focus()

    def close(self) -> None:
        self._show(False)

    def _show(self, shown: bool) -> None:
        if self.display != shown:
            self.display = shown
            self.post_message(self.Shown(shown))

    def next(self, cursor: int) -> None:
        """Go to the next match after ``cursor``, searching first if the query is new.

        With nothing typed yet, open the bar to ask for the text instead.
        """
        if self._session is None:
            return
        query = self.input.value
        if not query:
            self.open()
            return
        self._show(True)
        self._cursor = cursor
        self.state, start = self.state.asked(query)
        if start:
            self._status("searching…")
            self._search(self._session, query)
        elif not self.state.searching:
            self._go_next()

    @on(Input.Submitted, "#search")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.post_message(self.Submitted())

    @work(thread=True, exclusive=True, exit_on_error=False, group="search", description="search")
    def _search(self, session: Session, query: str) -> None:
        # 100,000 messages take a noticeable fraction of a second: never on the UI thread.
        matches = tuple(find_matches(session, query))
        summary = in_summary(session, query)
        if not get_current_worker().is_cancelled:
            self.post_message(self._Found(session, query, matches, summary))

    @on(_Found)
    def _found(self, event: _Found) -> None:
        if event.session is not self._session:
            return  # the session changed while searching
        before = self.state
        self.state = before.found(event.query, event.matches)
        if self.state is not before:
            self._summary_hit = event.summary
            self._go_next()

    def _go_next(self) -> None:
        target, status = self.state.next_after(self._cursor)
        self.post_message(self.Highlight(self.state.query))
        if target is not None:
            self.post_message(self.Goto(target))
        if self._summary_hit:
            status = (
                f"{status} · also {SUMMARY_NOTE}"
                if target is not None
                else (f"no message; found {SUMMARY_NOTE}")
            )
        self._status(status)
