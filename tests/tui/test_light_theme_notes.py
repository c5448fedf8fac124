"""On a light theme the message list's tool names, pruned notes and tail rule read against
its background (they were the theme's warning and accent oranges: 1.4:1 on textual-light).

Measured as tests/tui/test_themes.py measures: ANSI colours through the terminal palette the
theme implies, then WCAG contrast, on the rows as ``render_line`` paints them.
"""

from __future__ import annotations

from rich.color import Color
from rich.style import Style
from textual.app import App

from ctxtui.tui.widgets.message_list import MessageList
from ctxtui.tui.widgets.theme_style import MIN_TEXT_CONTRAST, readable_on
from tests.tui.main_fixtures import app_for, demo_session
from tests.tui.test_snapshots_main import settle
from tests.tui.test_themes import contrast, rgb, terminal_for

MIN_ANSI_CONTRAST = 3.0
"""An ANSI theme's colours are the terminal's to draw, so only WCAG's large-text minimum."""


def light_themes() -> list[str]:
    app = App[None]()
    return sorted(name for name, theme in app.available_themes.items() if not theme.dark)


def test_readable_on_moves_a_pale_colour_just_far_enough() -> None:
    white = Color.parse("#ffffff")
    orange = Style(color="#ffa62b", italic=True)
    moved = readable_on(orange, white)
    assert moved.italic
    c = moved.color.triplet  # type: ignore[union-attr]
    assert c is not None
    assert 4.5 <= contrast((c.red, c.green, c.blue), (255, 255, 255)) < 5.5
    assert c.red > c.green > c.blue, "still an orange"
    dark = Style(color="#202020")
    assert readable_on(dark, white) is dark, "a colour that reads is kept"
    ansi = Style(color="yellow")
    assert readable_on(ansi, white) is ansi, "ANSI colours are the terminal's"


async def test_tool_names_and_pruned_notes_read_on_every_light_theme() -> None:
    session = demo_session()
    app = app_for(session)
    themes = light_themes()
    assert {"textual-light", "solarized-light", "catppuccin-latte"} <= set(themes)
    failures: list[str] = []
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        rows = app.screen.query_one(MessageList)
        plan = app.screen.plan  # type: ignore[attr-defined]
        pruned = min(plan.pruned)
        tool = session.messages[pruned].tool_name
        assert tool
        for name in themes:
            app.theme = name
            await pilot.pause()
            await pilot.pause()
            terminal = terminal_for(app)
            minimum = MIN_ANSI_CONTRAST if name.startswith("ansi") else MIN_TEXT_CONTRAST
            rows.select(0)
            await pilot.pause()
            line = list(rows.render_line(rows.index_to_row(pruned) - int(rows.scroll_offset.y)))
            assert rows.boundary_row is not None
            rule = list(rows.render_line(rows.boundary_row - int(rows.scroll_offset.y)))
            parts = {
                "tool name": next(s for s in line if s.text == tool),
                "pruned note": next(s for s in line if "pruned" in s.text),
                "tail rule": next(s for s in rule if s.text.strip()),
            }
            for what, segment in parts.items():
                assert segment.style is not None
                fg = rgb(segment.style.color, terminal, foreground=True)
                bg = rgb(segment.style.bgcolor, terminal, foreground=False)
                if contrast(fg, bg) < minimum:
                    failures.append(f"{name}: {what} {contrast(fg, bg):.1f}:1")
    assert failures == [], "\n".join(failures)
