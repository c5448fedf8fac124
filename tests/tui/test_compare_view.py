"""The compare view (`v`): the session under several presets, a lane per preset, each priced,
its lines cut with an ellipsis, its glyphs legible in every theme."""

from __future__ import annotations

from typing import Any

import pytest
from rich.text import Text
from textual.pilot import Pilot
from textual.widgets import SelectionList, Static

from ctxtui.core.pricing.cost_words import dollars
from ctxtui.tui.screens.compare import DEFAULT_PRESETS, CompareScreen, gauge_line
from ctxtui.tui.widgets.compare_lanes import CompareLanes
from ctxtui.tui.widgets.message_list import MessageList
from tests.tui.colour_fixtures import contrast, rgb, terminal_for, themes
from tests.tui.main_fixtures import (
    SIZES,
    STORY,
    SnapCompare,
    app_for,
    big_session,
    demo_session,
    press,
    screen_lines,
    settle,
    then,
    whole_or_cut,
)


async def _open_compare(pilot: Pilot[Any]) -> CompareLanes:
    await settle(pilot)
    await pilot.press("v")
    await settle(pilot)
    assert isinstance(pilot.app.screen, CompareScreen)
    return pilot.app.screen.query_one(CompareLanes)


def _row_text(lanes: CompareLanes, index: int) -> str:
    return lanes._row_text(index, 100).plain


def gauge_lines(screen: CompareScreen, width: int) -> list[Text]:
    name_cells = max(len(p.name) for p in screen.plans)
    return [gauge_line(n + 1, p, width, name_cells) for n, p in enumerate(screen.plans)]


MIN_TEXT = 4.5


def test_compare_120x40(snap_compare: SnapCompare) -> None:
    """The demo under plan, picoclaw, opencode, codex and claude-code in a 16,384 window: five
    gauge lines (bar, prompt / window, trigger, tail start, when it compacts where it does),
    lane numbers over the list, a T/K/·/p glyph per preset beside each message, the status
    line naming each preset's mark for message #0, and the legend."""
    assert snap_compare(
        app_for(demo_session()), terminal_size=(120, 40), run_before=then(press("v"))
    )


def test_compare_80x24(snap_compare: SnapCompare) -> None:
    """The same at 80×24: gauge lines cut at the width, lanes and previews still aligned."""
    assert snap_compare(
        app_for(demo_session()), terminal_size=(80, 24), run_before=then(press("v"))
    )


async def test_compare_lanes_differ_where_the_presets_disagree() -> None:
    app = app_for(demo_session())
    async with app.run_test(size=(120, 40)) as pilot:
        lanes = await _open_compare(pilot)
        assert lanes.message_count == len(demo_session().messages)
        marks = [lanes.marks(i) for i in range(lanes.message_count)]
        assert all(len(m) == len(DEFAULT_PRESETS) for m in marks)
        disagree = [i for i, m in enumerate(marks) if len(set(m)) > 1]
        assert disagree, "five policies in a small window agree on every message"
        # The glyphs on screen are the marks, lane by lane, after the index and role.
        row = _row_text(lanes, disagree[0])
        glyphs = row.split()[2 : 2 + len(DEFAULT_PRESETS)]
        expected = {"tail": "T", "kept": "K", "dropped": "·", "pruned": "p"}
        assert glyphs == [expected[m] for m in marks[disagree[0]]]
        # No preset sends a request without its newest message.
        assert "dropped" not in marks[-1]


async def test_compare_cursor_moves_describe_and_escape_returns_to_that_message() -> None:
    app = app_for(demo_session())
    async with app.run_test(size=(120, 40)) as pilot:
        lanes = await _open_compare(pilot)
        status = pilot.app.screen.query_one("#compare-status", Static)
        await pilot.press("end")
        await settle(pilot)
        last = lanes.message_count - 1
        assert lanes.cursor == last
        assert str(status.render()).startswith(f"#{last}: plan ")
        await pilot.press("pageup", "up")
        await settle(pilot)
        chosen = lanes.cursor
        assert chosen < last
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(pilot.app.screen, CompareScreen)
        assert pilot.app.screen.query_one(MessageList).cursor == chosen


async def test_compare_presets_can_be_chosen() -> None:
    app = app_for(demo_session())
    async with app.run_test(size=(120, 40)) as pilot:
        lanes = await _open_compare(pilot)
        await pilot.press("p")
        await settle(pilot)
        choices = pilot.app.screen.query_one(SelectionList)
        choices.deselect("picoclaw")
        choices.deselect("opencode")
        choices.select("picoclaw-seahorse")
        await pilot.press("enter")
        await settle(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, CompareScreen)
        assert screen.presets == ("plan", "picoclaw-seahorse", "codex", "claude-code")
        assert [p.name for p in screen.plans] == list(screen.presets)
        assert len(lanes.marks(0)) == 4


async def test_compare_stays_flat_on_a_long_session() -> None:
    """2,000 messages: one widget for the whole list (a widget per row would be thousands),
    and painting the last rows works."""
    app = app_for(big_session(2_000))
    async with app.run_test(size=(100, 30)) as pilot:
        lanes = await _open_compare(pilot)
        assert lanes.message_count == 2_000
        assert len(list(pilot.app.screen.walk_children())) < 40
        await pilot.press("end")
        await settle(pilot)
        assert "1999" in _row_text(lanes, 1_999)


def test_a_gauge_line_says_when_its_preset_compacts_as_the_cli_does() -> None:
    """The plan covers the whole transcript: over the trigger, the *next* request compacts
    (``ctxtui compare`` says so), and PicoClaw legacy past its after-turn limit summarises
    after this turn. "compacts now" left replay's zero compactions unexplained."""
    from ctxtui.core.compare import plan_presets
    from ctxtui.core.engine import Engine
    from ctxtui.core.policies.presets import PRESETS
    from ctxtui.tui.screens.compare import gauge_line

    session = demo_session(turns=20)
    entries = plan_presets(Engine(session), tuple(PRESETS))
    words = {}
    for entry in entries:
        line = gauge_line(1, entry, 400, 20).plain
        assert "compacts now" not in line
        words[entry.name] = (
            "summarises after this turn"
            if "summarises after this turn" in line
            else "compacts before the next request"
            if "compacts before the next request" in line
            else ""
        )
        if entry.plan.compaction.post_turn:
            assert words[entry.name] == "summarises after this turn", entry.name
        elif entry.plan.compaction.needed:
            assert words[entry.name] == "compacts before the next request", entry.name
        else:
            assert words[entry.name] == "", entry.name
    assert set(words.values()) - {""}, "some preset compacts this session"


async def test_compare_prices_each_presets_replay() -> None:
    from textual.widgets import Static

    from ctxtui.core.compare import replay_entry
    from ctxtui.tui.screens.compare import DEFAULT_PRESETS, CompareScreen

    async with app_for(STORY).run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("v")
        await settle(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, CompareScreen)
        line = str(screen.query_one("#compare-cost", Static).render()).replace("\n", " ")
        # the sample's agent compacted it: the view prices the whole file
        assert screen.whole is not None and screen.source is not None
        engine = screen.source[1]
        overrides = {k: v for k, v in screen.state.overrides.items() if k in ("context_window",)}
        entry = replay_entry(engine, "codex", {**overrides, "max_tokens": 4096})
        assert line.startswith(
            f"replayed in dollars: recorded {dollars(entry['recorded_cost_usd'])}"
        )
        for n, name in enumerate(DEFAULT_PRESETS):
            assert f"{n + 1} {name} $" in line


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


async def test_the_compare_lanes_glyphs_read_in_every_theme() -> None:
    app = app_for(demo_session())
    failures: list[str] = []
    async with app.run_test(size=(120, 40)) as pilot:
        lanes = await _open_compare(pilot)
        assert isinstance(lanes, CompareLanes)
        for name in themes():
            app.theme = name
            await pilot.pause()
            await pilot.pause()
            lanes.notify_style_update()
            terminal = terminal_for(app)
            ground = rgb(lanes.rich_style.bgcolor, terminal, foreground=False)
            for mark in ("kept", "tail", "pruned"):
                fg = rgb(lanes._style(mark).color, terminal, foreground=True)
                if contrast(fg, ground) < MIN_TEXT:
                    failures.append(f"{name}: {mark} {contrast(fg, ground):.1f}:1")
    assert failures == [], "\n".join(failures)


async def test_on_a_compacted_session_compare_covers_the_whole_file() -> None:
    """v planned only the 72 messages after the agent's last compaction; it plans the
    whole file by default (its dollars then cover every request), w the last segment."""
    from ctxtui.tui.screens.compare import CompareScreen
    from tests.tui.main_fixtures import replay_sample, until

    app = app_for(replay_sample())
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("v")
        screen = app.screen
        assert isinstance(screen, CompareScreen)
        await until(pilot, lambda: screen.whole is not None and screen.plans != (), "whole")
        await until(
            pilot,
            lambda: len(screen.plans[0].plan.message_tokens) == len(screen.whole.session),  # type: ignore[union-attr]
            "the whole file's plans",
        )
        title = str(screen.query_one("#compare-title").render())
        assert "the whole file: 523 messages" in title
        gauges = str(screen.query_one("#compare-gauges").render())
        assert "the whole file as one prompt, never sent as such" in gauges
        await pilot.press("w")
        await until(pilot, lambda: len(screen.plans[0].plan.message_tokens) == 72, "segment")
        title = str(screen.query_one("#compare-title").render())
        assert "the last segment: the 72 messages" in title
        assert "one prompt" not in str(screen.query_one("#compare-gauges").render())


async def test_the_whole_files_lanes_open_on_the_message_selected() -> None:
    """The main screen's last message selected, then v: the whole file's lanes replace the
    last segment's and scroll to that message, not to the top (the cursor was set before
    the whole file's rows were there, and its scroll stopped at the segment's end)."""
    from tests.tui.main_fixtures import replay_sample, until

    app = app_for(replay_sample())
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("end", "v")
        screen = app.screen
        assert isinstance(screen, CompareScreen)
        await until(
            pilot,
            lambda: (
                screen.whole is not None
                and screen.plans != ()
                and len(screen.plans[0].plan.message_tokens) == len(screen.whole.session)
            ),
            "the whole file's plans",
        )
        await pilot.pause()
        lanes = screen.query_one(CompareLanes)
        assert lanes.cursor == lanes.message_count - 1
        top = int(lanes.scroll_offset.y)
        assert top <= lanes.cursor < top + lanes.scrollable_content_region.height
