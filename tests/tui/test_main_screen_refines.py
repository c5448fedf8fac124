"""The main screen draws first and refines after: the list comes from the estimator while the
exact count runs, keys answer meanwhile, and a newly opened file shows nothing of the last.

The exact count is held on an event until the test lets it go, so "before" and "while" are
states the test reaches, never a matter of timing.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ctxtui.core.engine import Engine
from ctxtui.core.policies.policy import Policy
from ctxtui.core.simulation.estimate_check import is_exact
from ctxtui.core.tokens.counts import SessionCounts
from ctxtui.tui.widgets.busy import BusyRow
from ctxtui.tui.widgets.message_list import MessageList
from ctxtui.tui.widgets.session_bar import SessionBar
from ctxtui.tui.widgets.settings_panel import SettingsPanel
from tests.tui.main_fixtures import (
    app_for,
    demo_session,
    replay_sample,
    settle,
    until,
    write_native,
)

EXACT = "tiktoken:cl100k_base"


@pytest.fixture
def held_exact(monkeypatch: pytest.MonkeyPatch) -> Iterator[threading.Event]:
    """Every exact count waits for the returned event (an estimator's goes through)."""
    gate = threading.Event()
    real = Engine.counts

    def counts(self: Engine, policy: Policy, **kwargs: Any) -> SessionCounts | None:
        if is_exact(policy.tokenizer) and self.cached_counts(policy) is None:
            assert gate.wait(60), "the test never released the exact count"
        return real(self, policy, **kwargs)

    monkeypatch.setattr(Engine, "counts", counts)
    yield gate
    gate.set()  # a failing test must not leave a worker waiting


async def test_the_list_is_drawn_from_the_estimate_before_the_exact_count_ends(
    held_exact: threading.Event,
) -> None:
    session = demo_session()
    app = app_for(session, tokenizer=EXACT)
    async with app.run_test(size=(120, 40)) as pilot:
        main = app.main
        await until(pilot, lambda: main.plan is not None, "the first paint")
        assert not held_exact.is_set()
        assert main.plan is not None and main.plan.tokenizer.used == "plan"
        assert app.screen.query_one(MessageList).message_count == len(session)
        busy = app.screen.query_one(BusyRow)
        assert busy.display and EXACT in busy.text, "the busy row says the count goes on"
        await pilot.press("down", "down")
        assert app.screen.query_one(MessageList).cursor == 2
        held_exact.set()
        await settle(pilot)
        assert main.plan is not None and main.plan.tokenizer.requested == EXACT
        assert main.plan.tokenizer.used != "plan"
        assert not busy.display


async def test_the_exact_count_starts_once_the_estimate_is_on_screen(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Loading a vocabulary holds the GIL: begun beside the first paint, it slowed that
    paint; the worker waits until the screen says the estimate's list was drawn."""
    from ctxtui.tui import jobs

    monkeypatch.setattr(jobs, "FIRST_LOOK_WAIT", 60.0)  # a loaded machine draws slowly
    drawn_at_start: list[bool] = []
    real = Engine.counts
    app = app_for(demo_session(), tokenizer=EXACT)

    def counts(self: Engine, policy: Policy, **kwargs: Any) -> SessionCounts | None:
        if is_exact(policy.tokenizer) and self.cached_counts(policy) is None:
            drawn_at_start.append(app.main._drawn.is_set())
        return real(self, policy, **kwargs)

    monkeypatch.setattr(Engine, "counts", counts)
    async with app.run_test(size=(120, 40)) as pilot:
        main = app.main

        def exact() -> bool:
            return main.plan is not None and main.plan.tokenizer.used != "plan"

        await until(pilot, exact, "the exact count")
    assert drawn_at_start == [True]


async def test_s_opens_the_settings_at_once_while_the_exact_count_runs(
    held_exact: threading.Event,
) -> None:
    app = app_for(demo_session(), tokenizer=EXACT)
    async with app.run_test(size=(120, 40)) as pilot:
        main = app.main
        await until(pilot, lambda: main.plan is not None, "the first paint")
        panel = app.screen.query_one(SettingsPanel)
        await pilot.press("s")
        assert panel.display, "the panel is on screen at the press"
        await until(pilot, lambda: panel.built and not panel.loading, "the controls")
        assert app.focused is not None and panel in app.focused.ancestors_with_self
        assert not held_exact.is_set(), "all of it while the exact count is still held"
        await pilot.press("escape")
        assert not panel.display
        await pilot.press("s", "s")
        assert not panel.display, "a second press closes what the first opened"
        assert not held_exact.is_set()
        held_exact.set()  # the app's exit waits for its workers


async def test_a_second_s_before_the_controls_are_built_closes_the_panel() -> None:
    app = app_for(demo_session())
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        panel = app.screen.query_one(SettingsPanel)
        main = app.main
        main.action_toggle_settings()
        assert panel.display and panel.loading
        main.action_toggle_settings()
        assert not panel.display
        await settle(pilot)
        assert not panel.display
        assert app.focused is app.screen.query_one(MessageList)


async def test_opening_another_file_drops_the_last_ones_retention_note(tmp_path: Path) -> None:
    app = app_for(replay_sample())
    async with app.run_test(size=(200, 40)) as pilot:
        bar = app.screen.query_one(SessionBar)
        await until(pilot, lambda: bool(bar._retention), "the first file's note")
        await settle(pilot)
        main = app.main
        main.load(write_native(tmp_path / "plain.json", demo_session()))
        await until(pilot, lambda: main.state.path == tmp_path / "plain.json", "the new file")
        assert not bar._retention, "the last file's note is gone with it"
        await settle(pilot)
        assert "last compaction" not in str(bar.render())


async def test_a_compacted_file_is_read_through_its_history_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The list is drawn from the normal read; the history is read once after it, and the
    retention note and the timeline reuse it."""
    import ctxtui.importers as importers

    reads: list[bool] = []
    real = importers.load_session

    def counted(path: Any, format: Any = None, *, full_history: bool = False, **kw: Any) -> Any:
        reads.append(full_history)
        return real(path, format, full_history=full_history, **kw)

    monkeypatch.setattr(importers, "load_session", counted)
    app = app_for(replay_sample())
    async with app.run_test(size=(200, 40)) as pilot:
        bar = app.screen.query_one(SessionBar)
        await until(pilot, lambda: bool(bar._retention), "the note")
        await settle(pilot)
        assert app.main.state.history is not None
        await pilot.press("l")
        await until(pilot, lambda: getattr(app.screen, "replay", None) is not None, "replay")
        await settle(pilot)
    assert reads == [False, True]


def test_the_first_pass_is_the_estimator_until_a_plan_is_drawn() -> None:
    from ctxtui.tui.state import MainState

    state, _ = MainState.start("plan", {"tokenizer": EXACT})
    session = demo_session()
    opened, _ = state.opened(session, None)
    first = opened.first_pass
    assert first is not None and first.tokenizer == "plan"
    assert opened.engine is not None
    assert opened.planned(opened.engine.plan(first)).first_pass is None
    plain, _ = MainState.start("plan")
    assert plain.opened(session, None)[0].first_pass is None, "an estimator needs no first pass"


def test_a_history_read_for_another_session_is_dropped() -> None:
    from ctxtui.core.tokens.calibration import session_fit
    from ctxtui.tui.state import MainState

    state, _ = MainState.start("plan")
    shown, other = demo_session(), demo_session(turns=3)
    opened, _ = state.opened(shown, None)
    fit = session_fit(other)
    assert opened.with_history(other, other, fit) is opened
    kept = opened.with_history(shown, other, fit)
    assert kept.history is other and kept.fit is fit
    assert kept.with_history(shown, other, None).fit is fit, "no fit keeps the one known"
    assert kept.grown(other).history is None, "a grown file's history is read again"


async def test_s_opens_while_a_replay_is_still_running(monkeypatch: pytest.MonkeyPatch) -> None:
    """The timeline's replay is held on an event; back on the main screen, ``s`` opens the
    settings and the keys move while it still runs."""
    from ctxtui.core.engine import Run
    from ctxtui.tui.screens.timeline import TimelineScreen

    gate, started = threading.Event(), threading.Event()
    real = Engine.run

    def held(self: Engine, policy: Policy, **kwargs: Any) -> Run | None:
        started.set()
        assert gate.wait(60), "the test never released the replay"
        return real(self, policy, **kwargs)

    monkeypatch.setattr(Engine, "run", held)
    app = app_for(replay_sample())
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("l")
        await until(pilot, started.is_set, "the replay to start")
        assert isinstance(app.screen, TimelineScreen)
        await pilot.press("escape")
        assert not isinstance(app.screen, TimelineScreen)
        panel = app.screen.query_one(SettingsPanel)
        await pilot.press("s")
        assert panel.display
        await until(pilot, lambda: panel.built and not panel.loading, "the controls")
        assert not gate.is_set(), "the replay is still held"
        await pilot.press("escape", "down")
        assert app.screen.query_one(MessageList).cursor == 1
        gate.set()
