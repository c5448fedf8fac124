"""The error screen: a message shown literally, dismissed by a key."""

from __future__ import annotations

import pytest
from screen_fixtures import SIZE, HostApp, _text

from ctxtui.tui.screens.error import ErrorScreen
from tests.tui.main_fixtures import SnapCompare


@pytest.mark.parametrize("key", ["enter", "escape"])
async def test_error_screen_shows_message_literally_and_dismisses(key: str) -> None:
    message = "bad[1].jsonl:3: expected a JSON object, found [bold]text[/bold]"
    app = HostApp(lambda: ErrorScreen(message))
    async with app.run_test(size=SIZE) as pilot:
        assert isinstance(app.screen, ErrorScreen)
        assert _text(app, "#message") == message
        assert _text(app, "#title") == "Could not open session"
        await pilot.press(key)
        assert not isinstance(app.screen, ErrorScreen)
        assert app.results == [None]
        assert app.is_running  # the app survives a bad file


def test_error_screen(snap_compare: SnapCompare) -> None:
    """A bad file opens an error dialog over the app, which keeps running behind it.

    The reader should see a red-bordered dialog titled "Could not open session" with the
    importer's one-line message "sessions/broken.jsonl:3: expected a JSON object, found
    [1, 2]" shown literally (brackets intact) and an OK button; the host app and its footer
    are dimmed behind it.
    """
    message = "sessions/broken.jsonl:3: expected a JSON object, found [1, 2]"
    app = HostApp(lambda: ErrorScreen(message))
    assert snap_compare(app, terminal_size=(80, 24))
