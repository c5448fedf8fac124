"""The palette and the looks (issue 29 item 9): one theme entry, no second keys panel beside
``?``, a screenshot that says where it went, a readable off switch, ``K`` at 4.5:1 in every
theme, and "Undo compaction" that answers when there is nothing to undo."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Switch

from ctxtui.tui.widgets.compare_lanes import CompareLanes
from tests.tui.main_fixtures import app_for, demo_session
from tests.tui.test_compare_view import _open_compare
from tests.tui.test_snapshots_main import settle
from tests.tui.test_themes import contrast, rgb, terminal_for, themes

MIN_TEXT = 4.5


def notes(app: Any) -> list[str]:
    return [str(n.message) for n in app._notifications]


async def test_one_theme_entry_and_no_second_keys_panel() -> None:
    app = app_for(demo_session())
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        titles = [c.title for c in app.get_system_commands(app.screen)]
        assert "Theme" not in titles and "Keys" not in titles
        assert "Screenshot" in titles and "Quit" in titles
        from ctxtui.tui.actions import palette_entries

        ours = [e.title for e in palette_entries()]
        assert sum("theme" in t.lower() for t in ours + titles) == 1
        assert "Help" in ours


async def test_palette_undo_says_there_is_nothing_to_undo() -> None:
    from ctxtui.tui.actions import palette_entries
    from ctxtui.tui.command_palette import NOTHING_TO_UNDO, run_entry

    app = app_for(demo_session())
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        undo = next(e for e in palette_entries() if e.title == "Undo compaction")
        await run_entry(app, undo)
        await settle(pilot)
        assert NOTHING_TO_UNDO in notes(app)


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


async def test_the_compare_lanes_glyphs_read_in_every_theme() -> None:
    app = app_for(demo_session())
    failures: list[str] = []
    async with app.run_test(size=(120, 40)) as pilot:
        lanes = await _open_compare(pilot)
        assert isinstance(lanes, CompareLanes)
        for name in themes():
            app.theme = name
            await pilot.pause()
            await pilot.pause()
            lanes.notify_style_update()
            terminal = terminal_for(app)
            ground = rgb(lanes.rich_style.bgcolor, terminal, foreground=False)
            for mark in ("kept", "tail", "pruned"):
                fg = rgb(lanes._style(mark).color, terminal, foreground=True)
                if contrast(fg, ground) < MIN_TEXT:
                    failures.append(f"{name}: {mark} {contrast(fg, ground):.1f}:1")
    assert failures == [], "\n".join(failures)


async def test_an_off_switch_reads_in_every_theme() -> None:
    app = app_for(demo_session())
    failures: list[str] = []
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("s")
        await settle(pilot)
        switch = next(s for s in app.screen.query(Switch) if not s.value)
        for name in themes():
            app.theme = name
            await pilot.pause()
            await pilot.pause()
            terminal = terminal_for(app)
            slider = switch.get_component_rich_style("switch--slider")
            ground = rgb(slider.bgcolor, terminal, foreground=False)  # the track
            knob = rgb(slider.color, terminal, foreground=True)
            if contrast(knob, ground) < 3.0:
                failures.append(f"{name}: off switch {contrast(knob, ground):.1f}:1")
    assert failures == [], "\n".join(failures)
