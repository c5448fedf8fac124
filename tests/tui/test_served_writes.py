"""A served app (``ctxtui serve``) writes only inside ``--export-dir``: the export dialog and
the writer both refuse anything else, and an agent's store is refused everywhere."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, Static

from ctxtui.system.output import WRITE_ROOT_ENV
from ctxtui.tui.app import CtxtuiApp
from ctxtui.tui.screens.export import ExportScreen
from ctxtui.tui.screens.main import MainScreen
from tests.tui.main_fixtures import app_for, demo_session, settle
from tests.tui.test_flows import write_native


async def _export_to(app: CtxtuiApp, pilot: Pilot[Any], path: Path) -> str:
    """Press ``e``, type ``path``, Enter; the dialog's problem line ("" when it closed)."""
    await pilot.press("e")
    await pilot.pause()
    screen = app.screen
    assert isinstance(screen, ExportScreen)
    screen.query_one("#path", Input).value = str(path)
    await pilot.press("enter")
    await settle(pilot)
    if isinstance(app.screen, ExportScreen):
        problem = str(app.screen.query_one("#problem", Static).render())
        await pilot.press("escape")
        await pilot.pause()
        return problem
    return ""


async def test_a_served_app_exports_inside_the_named_directory_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "exports"
    root.mkdir()
    (root / "escape").symlink_to(tmp_path)
    victim = tmp_path / "victim.txt"
    victim.write_text("mine")
    monkeypatch.setenv(WRITE_ROOT_ENV, str(root))
    source = write_native(tmp_path / "work.json", demo_session())
    app = app_for(source)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        for outside in (victim, root / "escape" / "victim.txt", root / ".." / "x.json"):
            problem = await _export_to(app, pilot, outside)
            assert "writes only inside" in problem, problem
        assert await _export_to(app, pilot, root / "ok.json") == ""
        assert isinstance(app.screen, MainScreen)
    assert victim.read_text() == "mine"
    assert sorted(p.name for p in root.iterdir()) == ["escape", "ok.json"]


async def test_a_served_app_without_export_dir_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(WRITE_ROOT_ENV, "")
    source = write_native(tmp_path / "work.json", demo_session())
    app = app_for(source)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        problem = await _export_to(app, pilot, tmp_path / "out.json")
    assert "writes no file" in problem
    assert sorted(p.name for p in tmp_path.iterdir()) == ["work.json"]
