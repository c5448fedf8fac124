"""Snapshots of the main screen's layout (issue 13): small terminals, settings beside the
detail pane, the help's legend, bars on a stated scale.

Each test's docstring says what the reader should see in its SVG.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from textual.containers import VerticalScroll
from textual.pilot import Pilot

from ctxtui.tui.widgets.settings_panel import SettingsPanel
from tests.tui.main_fixtures import app_for, demo_session
from tests.tui.test_snapshots_main import SnapCompare, press, select, then


def scroll_settings_to(name: str) -> Callable[[Pilot[Any]], Awaitable[None]]:
    """Scroll the settings panel so knob ``name``'s group heads it."""

    async def run(pilot: Pilot[Any]) -> None:
        panel = pilot.app.screen.query_one(SettingsPanel)
        knob = panel.query_one(f"#knob-{name}")
        panel.scroll_to(y=knob.virtual_region.y - 2, animate=False, immediate=True)

    return run


def test_small_80x24_detail_focused(snap_compare: SnapCompare) -> None:
    """80×24 after selecting #2 and Tab: 14 list rows (#0–#13) above a short detail pane whose
    top rule is accent-coloured (it has the focus), scrolled one page down into the output
    by PgDn; the footer keeps `? Help` and `q Quit` whole."""
    app = app_for(demo_session())
    steps = then(select(2), press("tab", "pagedown"))
    assert snap_compare(app, terminal_size=(80, 24), run_before=steps)


def test_small_60x20_detail_toggled(snap_compare: SnapCompare) -> None:
    """60×20 after `d` on #3: the detail pane, hidden at this width, shows #3 below the list
    (half the body); the gauge legend wraps whole entries (no swatch ends a line); the
    footer keeps `? Help`, `q Quit` and `d Detail`."""
    app = app_for(demo_session())
    steps = then(select(3), press("d"))
    assert snap_compare(app, terminal_size=(60, 20), run_before=steps)


def test_settings_beside_detail_picoclaw_120x40(snap_compare: SnapCompare) -> None:
    """picoclaw at 120×40 with the settings open on #3 and the panel scrolled to the fresh
    tail (mode `messages`): the detail pane stays between the list and the panel with its
    "why" sentence; the token-tail knobs (tail ratio, tail min/max tokens, min turns) are
    greyed out, each with `unused: the picoclaw preset's fresh tail is the last N items
    (--tail-items)`, while `tail items · items, ≥ 1` is live; every numeric heading gives
    its unit and range."""
    app = app_for(demo_session(), preset="picoclaw")
    steps = then(select(3), press("s"), scroll_settings_to("tail_mode"))
    assert snap_compare(app, terminal_size=(120, 40), run_before=steps)


def scroll_help_to_end() -> Callable[[Pilot[Any]], Awaitable[None]]:
    async def run(pilot: Pilot[Any]) -> None:
        pilot.app.screen.query_one(VerticalScroll).scroll_end(animate=False, immediate=True)

    return run


def test_help_legend_100x40(snap_compare: SnapCompare) -> None:
    """`?` scrolled to its legend: the rows (what the number, the bar and its stated scale
    mean), the marks, the detail pane's three counts (stored, sent, every tokenizer), and the
    gauge with a coloured swatch and a line for each segment (system … free)."""
    app = app_for(demo_session())
    steps = then(press("question_mark"), scroll_help_to_end())
    assert snap_compare(app, terminal_size=(100, 40), run_before=steps)


def test_tiny_messages_bar_scale_100x24(snap_compare: SnapCompare) -> None:
    """A chat of short messages: bars are slivers (one eighth), not full, because the rule
    above the list states `full bar = 1,000 tok`, the scale's floor."""
    from tests.tui.test_panes import tiny_session

    assert snap_compare(app_for(tiny_session()), terminal_size=(100, 24), run_before=then())
