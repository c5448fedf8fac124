"""The search bar (``widgets/search.py``): typing finds, ``n`` goes to the next match, and the
search runs in a worker."""

from __future__ import annotations

import threading

import pytest
from textual.widgets import Input, Label

from ctxtui.core.session.models import Session
from ctxtui.tui.widgets.message_list import MessageList
from tests.tui.main_fixtures import (
    SnapCompare,
    app_for,
    demo_session,
    press,
    settle,
    then,
)


async def test_search_finds_and_jumps_to_matches() -> None:
    session = demo_session()
    app = app_for(session)
    expected = [i for i, m in enumerate(session.messages) if "pytest" in m.content.lower()]
    assert len(expected) >= 2
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        messages = app.screen.query_one(MessageList)
        await pilot.press("slash")
        await pilot.press(*"pytest", "enter")
        await settle(pilot)
        assert messages.cursor == expected[0]
        status = app.screen.query_one("#search-status", Label)
        assert str(status.render()) == f"1 of {len(expected)}"
        await pilot.press("n")
        assert messages.cursor == expected[1]
        assert str(status.render()) == f"2 of {len(expected)}"


async def test_search_runs_in_a_worker_and_n_wraps_round(monkeypatch: pytest.MonkeyPatch) -> None:
    import ctxtui.tui.widgets.search as search_module

    threads: list[bool] = []
    real = search_module.find_matches

    def spy(session: Session, query: str) -> list[int]:
        threads.append(threading.current_thread() is threading.main_thread())
        return real(session, query)

    monkeypatch.setattr(search_module, "find_matches", spy)
    session = demo_session()
    expected = [i for i, m in enumerate(session.messages) if "pytest" in m.content.lower()]
    app = app_for(session)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        messages = app.screen.query_one(MessageList)
        status = app.screen.query_one("#search-status", Label)
        await pilot.press("n")  # nothing searched yet: n opens the search bar
        assert app.screen.query_one("#search", Input).has_focus
        await pilot.press(*"pytest", "enter")
        await settle(pilot)
        assert threads == [False], "searched once, off the UI thread"
        await pilot.press("end")
        await pilot.press("n")
        assert messages.cursor == expected[0]
        assert str(status.render()) == f"1 of {len(expected)} (from the top)"
        assert threads == [False], "n reuses the matches"


def test_search_match(snap_compare: SnapCompare) -> None:
    """After `/pytest` and Enter: every row whose preview shows "pytest" has the word marked
    (bold, underlined, on an accent background), the cursor is on the first match (#5), the
    detail pane marks it in the content too, and the search bar says `1 of N`."""
    app = app_for(demo_session())
    steps = then(press("slash", *"pytest", "enter"))
    assert snap_compare(app, terminal_size=(120, 40), run_before=steps)
