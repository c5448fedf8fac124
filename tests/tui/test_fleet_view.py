"""The fleet view (`F`): every session of a fake store, the totals above, sorting, the preset
switch replaying the fleet, and Enter opening a session."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import DataTable, Static

from ctxtui.core.fleet import ROW_FIELDS
from ctxtui.tui import fleet_job
from ctxtui.tui.fleet_rows import COLUMNS, cells, fitting_columns, ordered
from ctxtui.tui.screens.fleet import FleetScreen
from tests.fleet.store import make_store
from tests.tui.main_fixtures import SnapCompare, app_for, demo_session, press, settle, then


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    for name, value in make_store(tmp_path).items():
        if value:
            monkeypatch.setenv(name, value)
        else:
            monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    # the worker's own thread reads the sessions: no pool to start in a test
    monkeypatch.setattr(fleet_job, "pool", lambda: None)
    yield tmp_path
    monkeypatch.undo()
    time.tzset()


async def _open_fleet(pilot: Pilot[Any]) -> FleetScreen:
    await settle(pilot)
    await pilot.press("F")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, FleetScreen)
    return screen


def test_fleet(store: Path, snap_compare: SnapCompare) -> None:
    """`F` over the demo at 120×40: the title with the preset (plan) and the app's knobs
    (the 16k window and 2k reserve every session is replayed under), the totals line (7
    sessions of four agents, messages, requests, recorded and simulated compactions, peaks),
    then one row per session newest first — picoclaw, the Claude session with its `└
    claude-code` sub-agent under it, two codex rollouts, the compacted Claude session, the
    OpenCode database's session as `opencode.db#ses_01DEMO` — and the status line saying 7
    of 7 sessions and the keys."""
    assert snap_compare(
        app_for(demo_session()), terminal_size=(120, 40), run_before=then(press("F"))
    )


def test_fleet_at_80x24(store: Path, snap_compare: SnapCompare) -> None:
    """`F` at 80×24: the summary wraps, "recorded $" names what was spent; the table keeps
    the agent, the messages, the recorded and simulated compactions, the simulated peak,
    the recorded dollars (`rec $`: it was the second column a narrow table left out) and
    the session, and leaves out the top tool, model, reported peak, start and requests."""
    assert snap_compare(
        app_for(demo_session()), terminal_size=(80, 24), run_before=then(press("F"))
    )


def test_a_narrow_table_keeps_the_recorded_cost() -> None:
    natural = {c.key: max(len(c.heading), 8) for c in COLUMNS}
    shown = [c.key for c in fitting_columns(natural, 78, 2)]
    assert "cost_usd" in shown and "compactions_simulated" in shown
    assert "top_tool" not in shown


async def test_rows_are_the_fleet_commands_and_enter_opens_one(store: Path) -> None:
    from ctxtui.cli.main import main

    app = app_for(demo_session())
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _open_fleet(pilot)
        table = screen.query_one(DataTable)
        assert table.row_count == len(screen.rows) == 7
        summary = str(screen.query_one("#fleet-summary", Static).render())
        assert summary.startswith("7 sessions (claude-code, codex, opencode, picoclaw)")
        first = screen.rows[0]
        assert [str(c).strip() for c in table.get_row_at(0)] == list(cells(first))
        # Enter on the first row opens it on the main screen.
        await pilot.press("enter")
        await settle(pilot)
        assert not isinstance(pilot.app.screen, FleetScreen)
        main_state = pilot.app.screen_stack[0].state  # type: ignore[attr-defined]
        assert str(main_state.path) == first["path"]
    assert main(["fleet", "--json", "--workers", "1"]) == 0


async def test_sorting_and_the_preset_switch(store: Path) -> None:
    app = app_for(demo_session())
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _open_fleet(pilot)
        screen._sort("peak_simulated")
        table = screen.query_one(DataTable)
        peaks = [screen.rows[int(k.value)]["peak_simulated"] for k in table.rows]  # type: ignore[arg-type]
        assert peaks == sorted(peaks, reverse=True)  # numbers sort largest first
        screen._sort("peak_simulated")
        peaks = [screen.rows[int(k.value)]["peak_simulated"] for k in table.rows]  # type: ignore[arg-type]
        assert peaks == sorted(peaks)
        before = dict(screen.rows)
        await pilot.press("p")
        await settle(pilot)
        assert screen.preset == "picoclaw" and not screen.running
        assert "preset picoclaw" in str(screen.query_one("#fleet-title", Static).render())
        assert set(screen.rows) == set(before)
        assert [r["messages"] for r in screen.rows.values()] == [
            r["messages"] for r in before.values()
        ]
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(pilot.app.screen, FleetScreen)


def test_a_name_that_is_not_utf8_shows_its_byte() -> None:
    """A file name's undecodable byte is ``\\xff`` in the session column, as ``ctxtui fleet``
    prints it, not the ``�`` that hid which byte it was."""
    row: dict[str, Any] = dict.fromkeys(ROW_FIELDS)
    row |= {"agent": "native", "path": os.fsdecode(b"/s/ses\xff.json"), "error": None}
    assert cells(row)[-1] == "ses\\xff.json"


def test_unknown_values_sort_last_both_ways() -> None:
    rows = {
        i: {"peak_simulated": v, "model": m}
        for i, (v, m) in enumerate([(3, "b"), (None, None), (7, "A")])
    }
    assert ordered(rows, "peak_simulated", False) == [0, 2, 1]
    assert ordered(rows, "peak_simulated", True) == [2, 0, 1]
    assert ordered(rows, "model", False) == [2, 0, 1]  # case does not order


async def test_the_fleet_is_replayed_under_the_apps_knobs(
    store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The knobs the app was started with (here a 16k window and a 2k reserve) and those
    changed in the settings panel since (the tail share) replay every session, as the same
    flags do for ``ctxtui fleet``; the title names them."""
    import json

    from ctxtui.cli.main import main

    app = app_for(demo_session())
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        main_screen = pilot.app.screen
        state = main_screen.state  # type: ignore[attr-defined]
        main_screen.state = state.with_policy(state.policy.with_changes(tail_ratio=0.5))  # type: ignore[attr-defined]
        screen = await _open_fleet(pilot)
        assert dict(screen.overrides) == {
            "context_window": 16_384,
            "max_tokens": 2_048,
            "tail_ratio": 0.5,
        }
        title = str(screen.query_one("#fleet-title", Static).render())
        assert "context window 16,384" in title and "tail ratio 0.5" in title
        shown = [screen.rows[i] for i in sorted(screen.rows)]
    capsys.readouterr()
    argv = ["fleet", "--json", "--workers", "1", "--context-window", "16384"]
    assert main([*argv, "--max-tokens", "2048", "--tail-ratio", "0.5"]) == 0
    rows = json.loads(capsys.readouterr().out)["sessions"]
    assert [{k: r[k] for k in ROW_FIELDS} for r in shown] == rows
    assert main([*argv[:4]]) == 0  # without the knobs the figures differ
    plain = json.loads(capsys.readouterr().out)["sessions"]
    assert [r["peak_simulated"] for r in plain] != [r["peak_simulated"] for r in rows]
