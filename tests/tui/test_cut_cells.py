"""A cell or line cut to fit the tools or the compare view ends in `…`, so a user can see
that there is more (at 80×24 and 60×20 the tools table ran off the screen's edge and the
compare view's gauge and status lines stopped mid-word)."""

from __future__ import annotations

from typing import Any

import pytest
from rich.text import Text
from textual.widgets import Static

from ctxtui.tui.screens.compare import CompareScreen, gauge_line
from ctxtui.tui.screens.tools import COLUMNS, ToolTable, fit_widths
from tests.tui.main_fixtures import app_for, demo_session
from tests.tui.test_snapshots_main import settle

SIZES = [(80, 24), (60, 20)]


def screen_lines(app: Any) -> list[str]:
    return ["".join(s.text for s in strip) for strip in app.screen._compositor.render_strips()]


def gauge_lines(screen: CompareScreen, width: int) -> list[Text]:
    name_cells = max(len(p.name) for p in screen.plans)
    return [gauge_line(n + 1, p, width, name_cells) for n, p in enumerate(screen.plans)]


def whole_or_cut(shown: str, full: str) -> bool:
    """``shown`` is ``full``, or a start of it ending in ``…``."""
    return shown == full or (shown.endswith("…") and full.startswith(shown[:-1]))


def test_fit_widths_cuts_headings_before_figures() -> None:
    natural = [9, 5, 7, 8, 10]  # headings wider than their figures
    floors = [8, 1, 1, 2, 5]
    assert fit_widths(natural, floors, 100) == natural, "a table that fits is not cut"
    assert fit_widths(natural, floors, 35) == [9, 5, 6, 6, 9], "what is above the figures"
    assert fit_widths(natural, floors, 17) == [8, 1, 1, 2, 5], "down to the figures"
    assert sum(fit_widths(natural, floors, 12)) == 12, "then the figures themselves"
    assert min(fit_widths(natural, floors, 0)) == 1


@pytest.mark.parametrize("size", SIZES)
async def test_the_tools_table_fits_and_marks_what_it_cuts(size: tuple[int, int]) -> None:
    app = app_for(demo_session())
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await pilot.press("T")
        await settle(pilot)
        table = app.screen.query_one(ToolTable)
        assert table.virtual_size.width <= table.scrollable_content_region.width, (
            "no column runs off the screen's edge"
        )
        full_rows = [[c.plain for c in cells] for _, cells in table._rows]
        full = [[heading for heading, _ in COLUMNS], *full_rows]
        lines = screen_lines(app)[table.region.y : table.region.y + len(full)]
        cut = 0
        for line, cells in zip(lines, full, strict=True):
            x = table.region.x
            for column, text in zip(table.ordered_columns, cells, strict=True):
                width = column.get_render_width(table)
                shown = line[x : x + width].strip()
                x += width
                assert whole_or_cut(shown, text), (size, shown, text)
                cut += shown != text
        assert cut, "the test saw a cut cell"
        # the last column (the carry cost, one cell wide) is on screen: nothing runs off the edge
        assert COLUMNS[-1][0] == "$" and lines[0].rstrip().endswith(" $")


@pytest.mark.parametrize("size", SIZES)
async def test_compare_lines_cut_to_the_width_end_in_an_ellipsis(size: tuple[int, int]) -> None:
    app = app_for(demo_session())
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await pilot.press("v")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, CompareScreen)
        lines = screen_lines(app)
        gauges = screen.query_one("#compare-gauges", Static)
        shown = [lines[gauges.region.y + n].strip() for n in range(len(screen.plans))]
        assert all(line.endswith("…") for line in shown), shown
        full = [line.plain for line in gauge_lines(screen, 10_000)]
        assert all(map(whole_or_cut, shown, full)), shown
        status = screen.query_one("#compare-status", Static)
        full = str(status.render()).strip()
        line = lines[status.region.y].strip()
        if len(full) > status.content_region.width:
            assert whole_or_cut(line, full) and line.endswith("…"), line
        else:
            assert line == full
