"""The command palette (``tui/command_palette.py``): an entry for every action, run on the node
its scope names, and a word when the action cannot run now."""

from __future__ import annotations

import pytest
from screen_fixtures import SIZE, HostApp
from textual.command import CommandList, CommandPalette

from ctxtui.tui.actions import palette_entries
from ctxtui.tui.command_palette import ActionsProvider
from ctxtui.tui.screens.help import HelpScreen
from ctxtui.tui.widgets.message_list import MessageList
from ctxtui.tui.widgets.settings_panel import SettingsPanel
from tests.tui.main_fixtures import (
    app_for,
    demo_session,
    notes,
    settle,
    until,
)


def test_palette_covers_every_agreed_action() -> None:
    actions = {c.action for c in palette_entries()}
    assert {
        "compact",
        "undo",
        "export",
        "open",
        "search",
        "jump_tail",
        "toggle_settings",
        "help",
        "preset('plan')",
        "preset('picoclaw')",
        "tokenizer('plan')",
        "change_theme",
    } <= actions
    assert all(c.help for c in palette_entries())


@pytest.mark.parametrize(
    ("query", "title"),
    [("compact", "Compact"), ("tokenizer", "Tokenizer: plan"), ("preset pico", "Preset: picoclaw")],
)
async def test_provider_yields_hits(query: str, title: str) -> None:
    app = HostApp()
    async with app.run_test(size=SIZE):
        provider = ActionsProvider(app.screen)
        hits = [hit async for hit in provider.search(query)]
        assert title in [hit.text for hit in hits]
        discovered = [hit async for hit in provider.discover()]
        assert len(discovered) == len(palette_entries())


async def test_palette_hit_runs_the_action() -> None:
    app = HostApp()
    app.COMMANDS = {ActionsProvider}
    async with app.run_test(size=SIZE) as pilot:
        app.action_command_palette()
        await pilot.pause()
        assert isinstance(app.screen, CommandPalette)
        await pilot.press(*"Tokenizer: picoclaw")
        # The search runs in the background: wait for its hit, not for a guessed time.
        await until(pilot, lambda: app.screen.query_one(CommandList).option_count > 0, "a hit")
        await pilot.press("enter")
        await pilot.pause()
        assert app.actions == ["tokenizer:picoclaw"]


async def test_palette_actions_reach_the_main_screen() -> None:
    """Palette entries run on the main screen even over a dialog: no forwarder on the app."""
    from ctxtui.tui.command_palette import ActionsProvider

    app = app_for(demo_session(turns=20))
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        main = app.main
        hits = {hit.text: hit async for hit in ActionsProvider(app.screen).discover()}
        await hits["Jump to fresh tail"].command()
        assert main.plan is not None
        assert app.screen.query_one(MessageList).cursor == main.plan.tail.start
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        await hits["Preset: picoclaw"].command()
        await settle(pilot)
        assert main.plan is not None and main.plan.policy.preset == "picoclaw"


async def test_every_palette_entry_runs_on_the_real_app() -> None:
    """Each entry's action, run as the palette runs it, on the real screen: nothing raises,
    and whatever dialog it opens closes with Escape."""
    from ctxtui.tui.actions import palette_entries
    from ctxtui.tui.command_palette import target

    app = app_for(demo_session())
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        for command in palette_entries():
            await app.run_action(command.action, target(app, command.scope))
            await pilot.pause()
            await settle(pilot)
            while app.screen is not app.main:
                await pilot.press("escape")
                await pilot.pause()
            if app.main.query_one(SettingsPanel).display:
                await pilot.press("escape")
            assert app.is_running, command.title
        assert app.main.plan is not None


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
