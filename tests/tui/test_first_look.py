"""A big compacted Claude Code transcript is drawn from its last bytes first, and the whole
read then takes its place with the selection kept. The whole read is held on an event until
the test lets it go, so the first look is a state the test reaches, never a matter of timing."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ctxtui import importers
from ctxtui.core.errors import ReadStoppedError, SessionLoadError
from ctxtui.importers import claude_code
from ctxtui.tui.widgets.message_list import MessageList
from ctxtui.tui.widgets.session_bar import SessionBar
from tests.importers.test_views import _generated
from tests.tui.main_fixtures import app_for, settle, until


@pytest.fixture
def transcript(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(claude_code.load_tail, "__defaults__", (16_384,))
    path = tmp_path / "session.jsonl"
    path.write_bytes(_generated("claude-code"))
    return path


@pytest.fixture
def held_whole(monkeypatch: pytest.MonkeyPatch) -> Iterator[threading.Event]:
    """The whole read (not the full history's) waits for the returned event."""
    gate = threading.Event()
    real = importers.load_session

    def load_session(
        path: Any, format: Any = None, *, full_history: bool = False, **kwargs: Any
    ) -> Any:
        if not full_history:
            assert gate.wait(60), "the test never released the whole read"
        return real(path, format, full_history=full_history, **kwargs)

    monkeypatch.setattr(importers, "load_session", load_session)
    yield gate
    gate.set()


def _bar(app: Any) -> str:
    return " ".join(str(bar.render()) for bar in app.main.query(SessionBar))


async def test_the_first_look_is_drawn_then_the_whole_read_takes_its_place(
    transcript: Path, held_whole: threading.Event
) -> None:
    app = app_for(transcript)
    async with app.run_test(size=(120, 40)) as pilot:
        main = app.main
        await until(pilot, lambda: main.plan is not None, "the first look on screen")
        assert not held_whole.is_set()
        assert main.session is not None
        first = main.session
        assert "still being read" in first.meta.events[0]
        assert "still being read" in _bar(app)
        listed = app.screen.query_one(MessageList)
        assert listed.message_count == len(first.messages)
        await pilot.press("down", "down")
        assert listed.cursor == 2
        held_whole.set()
        await until(pilot, lambda: main.session is not first, "the whole read")
        await settle(pilot)
        assert main.session.messages == first.messages
        assert "earlier messages hidden" in main.session.meta.events[0]
        assert "earlier messages hidden" in _bar(app) and "still being read" not in _bar(app)
        assert listed.cursor == 2, "the selection stays"


async def test_a_whole_read_that_fails_leaves_the_first_look_saying_so(
    transcript: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = importers.load_session
    gate = threading.Event()

    def refused(path: Any, format: Any = None, *, full_history: bool = False, **kwargs: Any) -> Any:
        if not full_history:
            assert gate.wait(60), "the test never let the whole read fail"
            raise SessionLoadError(str(path), "more than 1,000,000 JSON values", 7)
        return real(path, format, full_history=full_history, **kwargs)

    monkeypatch.setattr(importers, "load_session", refused)
    app = app_for(transcript)
    async with app.run_test(size=(120, 40)) as pilot:
        main = app.main
        await until(pilot, lambda: main.plan is not None, "the first look on screen")
        first = main.session
        assert first is not None and "still being read" in first.meta.events[0]
        gate.set()
        await until(pilot, lambda: main.session is not first, "the failure said")
        await settle(pilot)
        assert main.session is not None and main.session.messages == first.messages
        assert "the earlier part could not be read" in main.session.meta.events[0]
        assert "could not be read" in _bar(app) and "still being read" not in _bar(app)


async def test_a_quit_during_the_whole_read_stops_it(
    transcript: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The whole read asks whether its worker was cancelled, and a quit cancels it: the app's
    exit waits for the read's thread, so a read that went on would hold the terminal."""
    entered = threading.Event()
    stopped: list[bool] = []

    def endless(path: Any, format: Any = None, **kwargs: Any) -> Any:
        should_stop = kwargs.get("should_stop")
        entered.set()
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if should_stop is not None and should_stop():
                stopped.append(True)
                raise ReadStoppedError(str(path))
            time.sleep(0.01)
        raise AssertionError("the read was never told to stop")

    monkeypatch.setattr(importers, "load_session", endless)
    app = app_for(transcript)
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: app.main.plan is not None, "the first look on screen")
        assert entered.wait(30)
        await pilot.press("q")
    assert stopped == [True]
