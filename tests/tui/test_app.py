"""The app itself (``tui/app.py``): the demo it falls back to, the user's keymap, views as
rows, screenshots, and the interpreter's switch interval while it runs."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from ctxtui.tui.app import KEYS_SWITCH_INTERVAL, make_app
from ctxtui.tui.screens.main import MainScreen
from ctxtui.tui.settings import deterministic_settings
from tests.tui.main_fixtures import PickScreen, app_for, cjk_session, demo_session, notes, settle


async def test_missing_demo_shows_the_error_screen(monkeypatch: object) -> None:
    app = make_app(None, settings=deterministic_settings())
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        from ctxtui.tui.screens.error import ErrorScreen

        if app.main.session is None:  # no demo in this install: say so, keep running
            assert isinstance(app.screen, ErrorScreen)
        else:
            assert isinstance(app.screen, MainScreen)


async def test_an_unknown_key_id_in_the_settings_is_named_and_the_rest_applies() -> None:
    settings = deterministic_settings(keys={"compakt": "k", "export": "x"})
    app = make_app(demo_session(), settings=settings)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        from textual.widgets import Static

        from ctxtui.tui.screens.error import ErrorScreen

        assert isinstance(app.screen, ErrorScreen), "ignored settings are listed in a dialog"
        assert "'compakt'" in str(app.screen.query_one("#message", Static).render())
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("x")
        await pilot.pause()
        from ctxtui.tui.screens.export import ExportScreen

        assert isinstance(app.screen, ExportScreen), "the known id was remapped"


async def test_a_view_is_one_row_and_one_module(tmp_path: Path) -> None:
    """A row naming a screen class is all a view needs: the app opens it with the main
    screen's state, and a path it dismisses with is opened like any session file."""
    from ctxtui.system.export import native_bytes

    picked = tmp_path / "picked.json"
    picked.write_bytes(native_bytes(cjk_session()))
    PickScreen.target = picked
    app = app_for(demo_session())
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        app.push_view(PickScreen)
        await settle(pilot)
        assert app.main.session is not None and len(app.main.session) == 5
        assert app.main.state.path == picked


async def test_the_app_sets_the_switch_interval_while_it_runs_and_restores_it() -> None:
    before = sys.getswitchinterval()
    assert before != pytest.approx(KEYS_SWITCH_INTERVAL)
    app = app_for(demo_session())
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert sys.getswitchinterval() == pytest.approx(KEYS_SWITCH_INTERVAL)
    assert sys.getswitchinterval() == pytest.approx(before)


async def test_a_screenshot_falls_back_to_the_current_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    missing = tmp_path / "no-downloads"
    here = tmp_path / "here"
    here.mkdir()
    monkeypatch.setattr("ctxtui.tui.app.user_downloads_path", lambda: missing)
    monkeypatch.chdir(here)
    app = app_for(demo_session())
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        app.deliver_screenshot()
        for _ in range(20):
            await settle(pilot)
            if list(here.iterdir()):
                break
        assert [p.suffix for p in here.iterdir()] == [".svg"]
        said = " ".join(notes(app))
        assert f"{missing} is missing; saving in the current directory instead" in said


async def test_a_screenshot_says_where_it_tried(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if os.geteuid() == 0:
        locked = tmp_path / "file-not-dir"
        locked.write_text("")  # root can write anywhere: a file stands in for a bad directory
        monkeypatch.setattr("ctxtui.tui.app.Path.cwd", lambda: locked)
    else:
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o500)
        monkeypatch.chdir(locked)
    monkeypatch.setattr("ctxtui.tui.app.user_downloads_path", lambda: tmp_path / "none")
    app = app_for(demo_session())
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert app.deliver_screenshot() is None
        await settle(pilot)
        said = " ".join(notes(app))
        assert "Could not save the screenshot" in said
        assert str(tmp_path / "none") in said and str(locked) in said
