"""The help screen (``?``): every key with its explanation, remapped keys, the legend, over the
main screen and over each view."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from screen_fixtures import SIZE, HostApp, _text
from textual.containers import VerticalScroll
from textual.pilot import Pilot
from textual.widgets import (
    Static,
)

from ctxtui.tui.screens.help import HelpScreen, key_rows
from ctxtui.tui.widgets.gauge import LABELS, SEGMENTS
from tests.tui.main_fixtures import (
    SnapCompare,
    app_for,
    demo_session,
    press,
    settle,
    then,
)


def scroll_help_to_end() -> Callable[[Pilot[Any]], Awaitable[None]]:
    async def run(pilot: Pilot[Any]) -> None:
        pilot.app.screen.query_one(VerticalScroll).scroll_end(animate=False, immediate=True)

    return run


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


async def test_help_lists_bindings_with_remapped_keys() -> None:
    app = HostApp(HelpScreen, keymap={"compact": "k"})
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, HelpScreen)
        described = {row.description for row in screen.rows}
        assert {"Compact", "Jump to tail"} <= described
        rows = {row.description: row.keys for row in key_rows(app.screen_stack[0])}
        assert rows["Compact"] == "k"  # the remapped key, not the default "c"
        assert "fresh tail" in _text(app, "#legend")
        await pilot.press("question_mark")
        assert app.results == [None]


async def test_help_closes_on_escape() -> None:
    app = HostApp(HelpScreen)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("escape")
        assert app.results == [None]


async def test_help_over_the_main_screen_lists_ctxtui_keys_first() -> None:
    """Help used to open on Textual's generic keys (scroll left, page right, focus next)."""
    app = app_for(demo_session())
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        rows = key_rows(app.screen_stack[0])
        assert [r.keys for r in rows[:3]] == ["c", "u", "e"]
        assert rows[0].explanation.startswith("Choose a reason")
        descriptions = [r.description for r in rows]
        assert "Scroll Left" not in descriptions and "Page Right" not in descriptions
        assert descriptions.index("Quit") < descriptions.index("Focus Next")


async def test_help_explains_the_gauge_the_bars_and_the_detail_counts() -> None:
    app = app_for(demo_session())
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        legend = str(app.screen.query_one("#legend", Static).render())
        for name, char in SEGMENTS:
            assert f"{char} {LABELS.get(name, name)} " in legend, name
        assert "full bar = N tok" in legend and "1,000 tokens" in legend
        assert "what is sent, what it was, and the tokens" in legend
        assert "counted by every tokenizer" in legend


def test_help_explains_the_api_line_dollars_cache_marks_and_facts() -> None:
    """The API line, the dollars, the cache figure, every timeline and miss mark and what a
    fact is were explained only in docs/ (issue: a user could not read "55¢" or "F")."""
    from ctxtui.core.pricing.cost_words import miss_legend
    from ctxtui.tui.screens.help import LEGEND

    legend = " ".join(LEGEND.plain.split())
    for heading in ("API line", "Dollars", "Cache figure", "Timeline marks", "Facts"):
        assert f"{heading} " in legend, heading
    assert "last request $0.0108 · cache hit 99%" in legend
    assert "recorded $52.97" in legend and "with 3 sub-agents" in legend
    for phrase in miss_legend():
        assert phrase in legend, phrase
    for mark in ("C simulated compaction", "R recorded compaction", "! over the window"):
        assert mark in legend


def test_help_screen_with_remapped_key(snap_compare: SnapCompare) -> None:
    """Help lists the keys in force, including a remapped one, then the legend.

    The reader should see "Keys" with "k  Compact" (remapped from c through the keymap),
    "u  Undo", "t  Jump to tail", "?  Help" and the palette key, then the legend explaining
    the zones (tail, kept, dropped), what a row's figure and bar mean, the pruned and
    truncated marks, the detail pane's counts, and each gauge segment and colour.
    """
    app = HostApp(HelpScreen, keymap={"compact": "k"})
    assert snap_compare(app, terminal_size=(100, 40))


def test_help_legend_100x40(snap_compare: SnapCompare) -> None:
    """`?` scrolled to the end of its legend: the API line (the last request's figures and
    dollars), the dollars (recorded, with sub-agents, simulated, over which requests), the
    cache figure with each miss mark (f e m a d ? +), the timeline's marks (C R ! + ▲ ▇) and
    what a fact is."""
    app = app_for(demo_session())
    steps = then(press("question_mark"), scroll_help_to_end())
    assert snap_compare(app, terminal_size=(100, 40), run_before=steps)


def test_help_over_the_demo_80x24(snap_compare: SnapCompare) -> None:
    """`?` over the demo at 80×24: the first keys are ctxtui's own (c Compact, u Undo,
    e Export, / Search, n Next match, t Tail, s Settings, d Detail, o Open), each with a
    short muted explanation; nothing about scrolling sideways."""
    app = app_for(demo_session())
    assert snap_compare(app, terminal_size=(80, 24), run_before=then(press("question_mark")))


def test_help_legend_120x40(snap_compare: SnapCompare) -> None:
    """The same legend end at 120×40: every line whole inside the dialog."""
    app = app_for(demo_session())
    steps = then(press("question_mark"), scroll_help_to_end())
    assert snap_compare(app, terminal_size=(120, 40), run_before=steps)


def test_help_legend_80x24(snap_compare: SnapCompare) -> None:
    """The legend's end at 80×24: the cache figure's miss marks, the timeline's marks and what
    a fact is, each line wrapped inside the dialog rather than cut."""
    app = app_for(demo_session())
    steps = then(press("question_mark"), scroll_help_to_end())
    assert snap_compare(app, terminal_size=(80, 24), run_before=steps)
