"""The export dialog (``e``): a new path at once, an existing one confirmed, the source and a
served app's outside refused, and the last directory remembered."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from screen_fixtures import SIZE, HostApp, _text
from textual.pilot import Pilot
from textual.widgets import (
    Button,
    Input,
    Static,
)

from ctxtui.system.output import WRITE_ROOT_ENV
from ctxtui.tui.app import CtxtuiApp
from ctxtui.tui.screens.export import ExportScreen, Risk, assess
from ctxtui.tui.screens.main import MainScreen
from tests.importers.test_protected_paths import _opencode_storage, _picoclaw
from tests.tui.main_fixtures import app_for, demo_session, settle, write_native


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


async def test_export_new_path_is_returned_at_once(tmp_path: Path) -> None:
    target = tmp_path / "out.json"
    app = HostApp(lambda: ExportScreen(target, tmp_path / "source.jsonl"))
    async with app.run_test(size=SIZE) as pilot:
        assert app.screen.query_one("#path", Input).value == str(target)
        await pilot.press("enter")
        assert app.results == [target]


async def test_export_refuses_the_source_outright(tmp_path: Path) -> None:
    """The core never writes over the source, so the dialog must not offer to: a second
    Enter used to 'confirm' an overwrite that could only end in an error."""
    source = tmp_path / "session.jsonl"
    source.write_text("{}\n")
    app = HostApp(lambda: ExportScreen(source, source))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("enter")
        problem = str(app.screen.query_one("#problem", Static).render())
        assert "source file" in problem and "never writes over" in problem
        assert str(app.screen.query_one("#confirm", Button).label) == "Export"
        await pilot.press("enter")
        assert app.results == []  # still refused
        await pilot.press("escape")
        assert app.results == [None]


async def test_export_title_says_what_is_exported(tmp_path: Path) -> None:
    app = HostApp(lambda: ExportScreen(tmp_path / "a.json", None, title="Export compacted session"))
    async with app.run_test(size=SIZE):
        assert _text(app, "#title") == "Export compacted session (ctxtui JSON)"


async def test_export_asks_before_overwriting(tmp_path: Path) -> None:
    existing = tmp_path / "old.json"
    existing.write_text("{}")
    app = HostApp(lambda: ExportScreen(existing, tmp_path / "source.jsonl"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("enter")
        assert app.results == []
        assert "already exists" in str(app.screen.query_one("#problem", Static).render())
        await pilot.press("enter")
        assert app.results == [existing]


async def test_export_editing_the_path_withdraws_the_confirmation(tmp_path: Path) -> None:
    existing = tmp_path / "old.json"
    existing.write_text("{}")
    app = HostApp(lambda: ExportScreen(existing, None))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("enter")  # armed
        await pilot.press("end", "backspace", "n")  # edited, even if back to the same name
        await pilot.press("enter")
        assert app.results == []  # asked again, not taken as the confirmation
        await pilot.press("enter")
        assert app.results == [existing]


async def test_export_rejects_missing_directory_and_cancels(tmp_path: Path) -> None:
    app = HostApp(lambda: ExportScreen(tmp_path / "nope" / "out.json", None))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("enter")
        assert app.results == []
        assert "No such directory" in str(app.screen.query_one("#problem", Static).render())
        await pilot.press("escape")
        assert app.results == [None]


def test_the_export_dialog_refuses_what_the_source_is_read_from(tmp_path: Path) -> None:
    jsonl, meta = _picoclaw(tmp_path)
    risk, problem = assess(meta, jsonl)
    assert risk is Risk.NONE and "never writes there" in problem
    storage = _opencode_storage(tmp_path)
    risk, problem = assess(storage / "part" / "x.json", storage)
    assert risk is Risk.NONE and "never writes there" in problem
    assert assess(tmp_path / "fine.json", jsonl) == (Risk.NONE, "")


async def test_the_next_export_starts_in_the_directory_of_the_last(tmp_path: Path) -> None:
    out = tmp_path / "exports"
    out.mkdir()
    app = app_for(demo_session())
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("e")
        await settle(pilot)
        assert isinstance(app.screen, ExportScreen)
        first = app.screen.query_one("#path", Input)
        assert Path(first.value) == Path("/somewhere/private/demo.ctxtui.json")
        first.value = str(out / "mine.json")
        await pilot.press("enter")
        await settle(pilot)
        assert (out / "mine.json").is_file()
        await pilot.press("e")
        await settle(pilot)
        assert isinstance(app.screen, ExportScreen)
        again = Path(app.screen.query_one("#path", Input).value)
        assert again == out / "demo.ctxtui.json", "the last directory, this session's name"
        await pilot.press("escape")


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
