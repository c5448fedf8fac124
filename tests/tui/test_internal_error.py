"""An exception no handler catches ends the app with one line, not a screen of traceback
(issue 9, item 14); ``CTXTUI_DEBUG=1`` keeps Textual's traceback."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from ctxtui.cli import main
from ctxtui.options import EXIT_INTERNAL
from ctxtui.samples import demo_session_path
from ctxtui.tui.app import CtxtuiApp


def _boom(self: CtxtuiApp) -> None:
    raise RuntimeError("boom\nsecond line")


def _run_headless(self: CtxtuiApp, *args: Any, **kwargs: Any) -> None:
    """``App.run`` as the CLI calls it, headless, pressing the key whose handler raises."""

    async def press(pilot: Pilot[Any]) -> None:
        await pilot.pause()
        await pilot.press("question_mark")
        await pilot.pause()

    asyncio.run(self.run_async(headless=True, size=(100, 30), auto_pilot=press))


@pytest.fixture
def broken_help(monkeypatch: pytest.MonkeyPatch) -> None:
    from ctxtui import cli

    monkeypatch.setattr(cli, "_has_terminal", lambda: True)
    monkeypatch.setattr(CtxtuiApp, "action_help", _boom)
    monkeypatch.setattr(CtxtuiApp, "run", _run_headless)


def test_an_exception_in_a_handler_is_one_line_and_exit_3(
    broken_help: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("CTXTUI_DEBUG", raising=False)
    assert main([str(demo_session_path())]) == EXIT_INTERNAL
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert "Traceback" not in err
    assert "ctxtui: internal error (RuntimeError: boom second line)" in err
    assert "CTXTUI_DEBUG=1" in err


def test_ctxtui_debug_shows_textuals_traceback(
    broken_help: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("CTXTUI_DEBUG", "1")
    assert main([str(demo_session_path())]) == 1  # Textual's own exit code for a crash
    err = capsys.readouterr().err
    assert "Traceback" in err and "RuntimeError: boom" in err


def test_the_app_records_the_error_and_exits_with_the_internal_code(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("CTXTUI_DEBUG", raising=False)
    monkeypatch.setattr(CtxtuiApp, "action_help", _boom)
    from ctxtui.tui.app import make_app

    app = make_app(demo_session_path())

    async def run() -> None:
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.press("question_mark")
            await pilot.pause()

    with pytest.raises(RuntimeError):  # Pilot re-raises what ended the app
        asyncio.run(run())
    assert isinstance(app.internal_error, RuntimeError)
    assert app.return_code == EXIT_INTERNAL
