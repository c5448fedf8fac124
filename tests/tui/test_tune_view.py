"""The tune view (`K`): the open session replayed under its agent's candidates, the front as a
scatter and a table, and Enter applying a point to the session on screen."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import DataTable, Static

from ctxtui.core.tuning.figure import Figure, Point, text_grid
from ctxtui.tui.screens.tune import TuneScreen
from tests.tui.main_fixtures import SnapCompare, app_for, press, settle, then

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    (home / ".claude/settings.json").write_text(
        '{"env": {"CLAUDE_AUTOCOMPACT_PCT_OVERRIDE": "60"}}'
    )
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE", raising=False)


def test_tune_100x30(snap_compare: SnapCompare) -> None:
    """`K` over the Claude Code replay sample at 100×30: the title (claude-code settings),
    the configured 60 % from the fake home's settings.json with its origin, the observed band
    of the 3 automatic compactions and the verdict (below the override), the line saying
    every candidate scores alike (the recommendation one of equals), the scatter with `R`
    in the middle (every candidate ties: nothing compacts), the ten candidates as the front,
    40 % marked recommended (and not observed: the band at 28,199 lies below every
    candidate, 72,000 the lowest) and 60 % configured, and the status line's keys."""
    app = app_for(REPO / "sample_sessions" / "claude_code_replay.jsonl")
    assert snap_compare(app, terminal_size=(100, 30), run_before=then(press("K")))


async def test_the_front_and_enter_applies_a_point() -> None:
    app = app_for(REPO / "sample_sessions" / "claude_code_replay.jsonl")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("K")
        await settle(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, TuneScreen) and screen.agent == "claude-code"
        assert screen.doc is not None
        table = screen.query_one(DataTable)
        assert table.row_count == len(screen.doc["pareto"]) > 0
        chart = str(screen.query_one("#tune-chart", Static).render())
        assert "R" in chart and "dollars" in chart
        status = str(screen.query_one("#tune-status", Static).render())
        assert "enter: apply" in status
        # the configured 60 % is one of the grid's candidates: marked as configured
        assert screen.doc["configured_candidate"] == 4
        table.move_cursor(row=[r["index"] for r in screen.rows].index(4))
        await pilot.press("enter")
        await settle(pilot)
        assert not isinstance(pilot.app.screen, TuneScreen)
        policy = pilot.app.screen_stack[0].state.policy  # type: ignore[attr-defined]
        assert policy.preset == "claude-code"
        # 60 % of (200,000 − 20,000): the point's trigger laid over the agent's preset
        assert policy.trigger == 108_000


def test_named_points_are_drawn_over_others() -> None:
    points = (
        Point(0, 0.0, 0.0, 1.0, 0, 3, True, ()),
        Point(1, 0.0, 0.0, 1.0, 0, 3, True, ("recommended",)),
        Point(2, 1.0, 1.0, 2.0, 5, 12, True, ()),
        Point(3, 0.5, 1.0, 1.5, 5, 1, False, ()),
    )
    grid = text_grid(Figure(points, (1.0, 2.0), (0, 5)), 5, 3)
    assert grid == ["  · +", "     ", "R    "]


async def test_an_unpriced_session_says_its_dollars_are_unknown() -> None:
    """PicoClaw records no usage: the dollar axis says so rather than showing $0.0000."""
    app = app_for(REPO / "sample_sessions" / "picoclaw_long_chat.jsonl")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("K")
        await settle(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, TuneScreen) and screen.doc is not None
        chart = str(screen.query_one("#tune-chart", Static).render())
        assert "dollars → unknown: no request of these sessions was priced" in chart
        assert "$0.0000" not in chart


async def test_the_view_counts_its_candidates_and_closing_it_stops_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each candidate is said as it starts; Escape (or quitting) cancels the worker, which
    stops before the next candidate instead of replaying them all while the app waits."""
    import threading

    import ctxtui.core.tuning.space as space

    real = space.candidate_policy
    asked: list[object] = []
    gate = threading.Event()

    def held(*args: object, **kwargs: object) -> object:
        asked.append(args)
        assert gate.wait(30), "the test never let the first candidate go"
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(space, "candidate_policy", held)
    app = app_for(REPO / "sample_sessions" / "claude_code_replay.jsonl")
    async with app.run_test(size=(120, 40)) as pilot:
        try:
            await settle(pilot)
            await pilot.press("K")
            screen = pilot.app.screen
            assert isinstance(screen, TuneScreen)
            status = screen.query_one("#tune-status", Static)
            for _ in range(200):
                if asked and "candidate 1 of" in str(status.render()):
                    break
                await pilot.pause(0.05)
            assert "candidate 1 of 10" in str(status.render())
            await pilot.press("escape")
            assert not isinstance(pilot.app.screen, TuneScreen)
        finally:
            gate.set()  # a failing test must not leave the worker waiting
        await settle(pilot)
    assert len(asked) == 1, "no candidate after the first once the view was closed"
