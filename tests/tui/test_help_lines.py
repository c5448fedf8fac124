"""Every line of the help says what its key does, over the main screen and over each view."""

from __future__ import annotations

import pytest

from ctxtui.tui.screens.help import HelpScreen
from tests.tui.main_fixtures import app_for, demo_session
from tests.tui.test_snapshots_main import settle


@pytest.mark.parametrize("view", ["", "v", "T", "l"])
async def test_every_help_line_has_its_explanation(view: str) -> None:
    """`n  Next match` stood alone in the help, the list's arrows and Textual's own keys
    (tab, copy, the tools table's cursor) too, while every other line said what it does."""
    app = app_for(demo_session())
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        if view:
            await pilot.press(view)
            await settle(pilot)
        await pilot.press("question_mark")
        await settle(pilot)
        help_screen = app.screen
        assert isinstance(help_screen, HelpScreen)
        assert help_screen.rows, "help lists the keys"
        bare = [f"{row.keys} {row.description}" for row in help_screen.rows if not row.explanation]
        assert bare == []
        if not view:
            line = next(row for row in help_screen.rows if row.keys == "n")
            assert line.description == "Next match" and "next match" in line.explanation
