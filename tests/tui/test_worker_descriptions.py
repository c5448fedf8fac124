"""No worker is described by the ``repr`` of its arguments.

Textual names a worker, unless told otherwise, by ``repr`` of the call, on the UI thread, when
the worker starts. A session's ``repr`` is its every message: 0.7 s for 20,000 of them, paid
on each cursor move (the detail pane counts the selected message in a worker), each search
and each step of the timeline. The sessions here refuse to be repr'd.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from ctxtui.core.session.models import Session
from ctxtui.core.simulation.replay import Replay
from tests.tui.main_fixtures import app_for, demo_session, settle


@pytest.fixture
def no_repr(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    called: list[str] = []

    def refuse(self: object) -> str:
        called.append(type(self).__name__)
        return "<refused>"

    monkeypatch.setattr(Session, "__repr__", refuse)
    monkeypatch.setattr(Replay, "__repr__", refuse)
    yield called


async def test_moving_searching_and_the_timeline_never_repr_a_session(
    no_repr: list[str],
) -> None:
    async with app_for(demo_session()).run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("down", "down", "slash", "p", "y", "t", "e", "s", "t", "enter")
        await settle(pilot)
        await pilot.press("escape", "l")
        for _ in range(4):
            await settle(pilot)
        await pilot.press("left", "home")
        await settle(pilot)
        assert type(pilot.app.screen).__name__ == "TimelineScreen"
    assert no_repr == []
