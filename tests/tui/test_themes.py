"""Every theme the app offers keeps apart what it must: the selected row reads against its
highlight, and the gauge's solid segments are distinct colours (issue 13 item 10).

Colours are compared as a terminal would show them: ANSI colours through a dark or a light
terminal palette (the theme says which), then by WCAG contrast (text) or RGB distance (bars).
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

import pytest
from rich.color import Color
from rich.terminal_theme import SVG_EXPORT_THEME

from ctxtui.tui.widgets.gauge import SEGMENTS, BudgetGauge
from ctxtui.tui.widgets.message_list import MessageList
from tests.tui.colour_fixtures import contrast, distance, rgb, terminal_for, themes
from tests.tui.main_fixtures import SnapCompare, app_for, demo_session, settle, then

MIN_CONTRAST = 3.0
"""WCAG's minimum for large text and interface parts; a row's text is the user's to read."""


MIN_DISTANCE = 20
"""Two bar colours closer than this in RGB (0–441) read as one segment."""


SOLID = [name for name, char in SEGMENTS if char == "█"]
"""The segments drawn with the same block, told apart by colour alone."""


ROWS = {"kept": 1, "tail": 31}
"""A demo message in each zone the selection can sit on (in a 16,384-token window)."""


def test_the_measures_tell_blue_on_blue_and_one_green_twice() -> None:
    blue = rgb(Color.parse("color(4)"), SVG_EXPORT_THEME, foreground=True)
    assert contrast(blue, blue) == 1.0 < MIN_CONTRAST
    assert contrast((255, 255, 255), (0, 0, 0)) == 21.0
    green = rgb(Color.parse("color(2)"), SVG_EXPORT_THEME, foreground=True)
    assert distance(green, green) == 0 < MIN_DISTANCE


async def test_every_theme_keeps_the_selected_row_and_the_gauge_apart() -> None:
    session = demo_session()
    app = app_for(session)
    failures: list[str] = []
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        rows = app.screen.query_one(MessageList)
        gauge = app.screen.query_one(BudgetGauge)
        plan = app.screen.plan  # type: ignore[attr-defined]
        assert {plan.zone(i).value for i in ROWS.values()} == set(ROWS)
        for name in themes():
            app.theme = name
            await pilot.pause()
            await pilot.pause()  # the styles are recomputed a frame after the theme changes
            terminal = terminal_for(app)
            for zone, index in ROWS.items():
                rows.select(index)  # the row's strip is drawn from the cursor, no frame needed
                line = rows.render_line(rows.index_to_row(index) - int(rows.scroll_offset.y))
                start = session.messages[index].content[:8]
                preview = next(s for s in line if s.text.strip().startswith(start))
                assert preview.style is not None
                fg = rgb(preview.style.color, terminal, foreground=True)
                bg = rgb(preview.style.bgcolor, terminal, foreground=False)
                if contrast(fg, bg) < MIN_CONTRAST:
                    failures.append(f"{name}: selected {zone} row {contrast(fg, bg):.1f}:1")
            colours = {
                seg: rgb(gauge._style(seg).color, terminal, foreground=True) for seg in SOLID
            }
            for a, b in combinations(SOLID, 2):
                if distance(colours[a], colours[b]) < MIN_DISTANCE:
                    failures.append(f"{name}: gauge {a} and {b} are one colour")
    assert failures == [], "\n".join(failures)


@pytest.mark.parametrize("theme", ["ansi-dark"])
def test_ansi_dark_120x40(snap_compare: SnapCompare, theme: str) -> None:
    """ansi-dark: the selected row (#1, kept) in bright white on the blue highlight, not blue
    on blue; the gauge's tool defs segment magenta, apart from the fresh tail's green."""

    async def use_theme(pilot: Any) -> None:
        pilot.app.theme = theme
        pilot.app.screen.query_one(MessageList).select(1)

    app = app_for(demo_session())
    assert snap_compare(app, terminal_size=(120, 40), run_before=then(use_theme))
