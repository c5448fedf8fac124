"""Pilot tests of the main screen's panes: focus, scrolling, and what small terminals keep.

Issue 13 items 1 and 11: the detail pane is reached with Tab and scrolled with the keys, the
focused pane is marked, and the smallest terminals keep the list, the footer's ``?`` and ``q``
and a way to the detail pane.
"""

from __future__ import annotations

from typing import Any

from textual.color import Color
from textual.pilot import Pilot

from ctxtui.tui.widgets.detail import DetailPane
from ctxtui.tui.widgets.message_list import MessageList
from ctxtui.tui.widgets.session_bar import SessionBar
from tests.tui.main_fixtures import app_for, demo_session

LONG_OUTPUT = 2  # the demo's first tool output: 40 numbered lines, taller than the pane


async def settle(pilot: Pilot[Any]) -> None:
    for _ in range(3):
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()


def border_colour(pane: DetailPane, *, wide: bool) -> Color:
    edge = pane.styles.border_left if wide else pane.styles.border_top
    return edge[1]


async def test_tab_focuses_the_detail_pane_and_its_keys_scroll_it() -> None:
    for size, wide in (((120, 40), True), ((80, 24), False)):
        app = app_for(demo_session())
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            messages = app.screen.query_one(MessageList)
            pane = app.screen.query_one(DetailPane)
            messages.select(LONG_OUTPUT)
            await settle(pilot)
            unfocused = border_colour(pane, wide=wide)
            assert app.screen.has_class("-list-focused")
            list_mark = app.screen.query_one(SessionBar).styles.border_bottom[1]

            await pilot.press("tab")
            await pilot.pause()
            assert app.screen.focused is pane, size
            assert not app.screen.has_class("-list-focused")
            assert border_colour(pane, wide=wide) != unfocused, "the focused pane is marked"
            assert app.screen.query_one(SessionBar).styles.border_bottom[1] != list_mark
            assert pane.max_scroll_y > 0, "the output is taller than the pane"

            await pilot.press("pagedown")
            await pilot.pause()
            assert pane.scroll_y > 0
            await pilot.press("end")
            await pilot.pause()
            assert pane.scroll_y == pane.max_scroll_y
            await pilot.press("up")
            await pilot.pause()
            assert pane.scroll_y == pane.max_scroll_y - 1
            assert messages.cursor == LONG_OUTPUT, "the keys scrolled the pane, not the list"

            await pilot.press("shift+tab")
            await pilot.pause()
            assert app.screen.focused is messages
            assert border_colour(pane, wide=wide) == unfocused
