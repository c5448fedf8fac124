"""Every series of the timeline has its own colour in every bundled theme, and the legend
names each one in that colour (issue 29 item 7)."""

from __future__ import annotations

from itertools import combinations

from textual.content import Content
from textual.style import Style as VisualStyle
from textual.widgets import Static

from ctxtui.palette import SERIES_COLOURS
from ctxtui.tui.screens.timeline import LEGEND_SERIES
from ctxtui.tui.widgets.timeline_chart import SERIES
from tests.tui.main_fixtures import app_for
from tests.tui.test_themes import contrast, distance, rgb, terminal_for, themes
from tests.tui.test_timeline_view import SMALL_WINDOW, _open, sample

MIN_APART = 60
"""Two series closer than this in RGB (0–441) read as one line of dots."""

MIN_ON_SURFACE = 4.0
"""Braille dots are thin: a series must stand well clear of the chart's background."""


async def test_every_series_has_its_own_colour_in_every_theme() -> None:
    app = app_for(sample(), context_window=SMALL_WINDOW)
    failures: list[str] = []
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _open(pilot)
        chart = screen.chart
        for name in themes():
            app.theme = name
            await pilot.pause()
            await pilot.pause()
            terminal = terminal_for(app)
            chart.notify_style_update()
            background = rgb(chart.rich_style.bgcolor, terminal, foreground=False)
            colours = {s: rgb(chart._style(s).color, terminal, foreground=True) for s in SERIES}
            for a, b in combinations(SERIES, 2):
                if distance(colours[a], colours[b]) < MIN_APART:
                    failures.append(f"{name}: {a} and {b} are one colour")
            for s, colour in colours.items():
                if contrast(colour, background) < MIN_ON_SURFACE:
                    failures.append(f"{name}: {s} {contrast(colour, background):.1f}:1")
            legend = screen.query_one("#timeline-legend", Static).render()
            text = str(legend)
            for s in SERIES:
                assert s in text, (name, s)
    assert failures == [], "\n".join(failures)
    assert set(LEGEND_SERIES) == set(SERIES) <= set(SERIES_COLOURS) | set(SERIES)


async def test_the_legend_swatch_is_the_series_colour() -> None:
    app = app_for(sample(), context_window=SMALL_WINDOW)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _open(pilot)
        legend = screen.query_one("#timeline-legend", Static).render()
        assert isinstance(legend, Content)
        text = legend.plain
        swatches = [
            (text[span.end :].split()[0], span.style)
            for span in legend.spans
            if text[span.start : span.end] == "⣿ "
        ]
        assert [name for name, _ in swatches] == list(SERIES)
        for name, style in swatches:
            assert isinstance(style, VisualStyle)
            assert style.rich_style.color == screen.chart.series_style(name).color, name
