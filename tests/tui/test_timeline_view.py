"""The timeline view (`l`): every request replayed, a chart over time in a colour per series,
the context at each, at every terminal size."""

from __future__ import annotations

from itertools import combinations
from typing import Any

from textual.app import App, ComposeResult
from textual.content import Content
from textual.pilot import Pilot
from textual.style import Style as VisualStyle
from textual.widgets import OptionList, Static

from ctxtui.core.simulation.replay import EventKind
from ctxtui.palette import SERIES_COLOURS
from ctxtui.samples import samples_dir
from ctxtui.tui.screens.timeline import LEGEND_SERIES, TimelineScreen
from ctxtui.tui.widgets.cost_strip import CostSeries
from ctxtui.tui.widgets.message_list import MessageList
from ctxtui.tui.widgets.timeline_chart import (
    GUTTER,
    SERIES,
    ChartFigures,
    TimelineChart,
    axis_line,
    draw,
    short_tokens,
    spans,
)
from tests.tui.colour_fixtures import contrast, distance, rgb, terminal_for, themes
from tests.tui.main_fixtures import (
    SMALL_WINDOW,
    SnapCompare,
    _footer,
    app_for,
    apply_compaction,
    big_session,
    demo_session,
    open_timeline,
    press,
    replay_sample,
    settle,
    settled_timeline,
    then,
)


def _status(screen: TimelineScreen) -> str:
    return str(screen.query_one("#timeline-status", Static).render())


MIN_APART = 60
"""Two series closer than this in RGB (0–441) read as one line of dots."""


MIN_ON_SURFACE = 4.0
"""Braille dots are thin: a series must stand well clear of the chart's background."""


def test_timeline_120x40(snap_compare: SnapCompare) -> None:
    """The Claude Code sample in a 10,000-token window: the title names the file, model, 260
    requests, the compactions (`C 3 R 3`: three simulated, three recorded), the peak and
    `preset plan · tokenizer plan`; under the legend, the gap line of the gauge, report and
    replay; the braille chart shows the green simulated sawtooth (three
    drops), the reported prompts above the window line (the API counted ~15,800 tokens of
    system prompt and tools the transcript lacks), the red window and dashed yellow trigger
    lines with their gutter labels; the mark row has `C` at three requests and `R` at three;
    the status names the cursor's request (#452, #1 in the main view) with its simulated and
    reported figures; the list below is the context at that request, led by an `S` row (the
    simulated summary) and cut by the fresh-tail rule. Under the chart, the cost series: a bar
    per request's dollars and a row of cache-miss letters, then the cursor's request priced."""
    app = app_for(replay_sample(), context_window=SMALL_WINDOW)
    assert snap_compare(app, terminal_size=(120, 40), run_before=then(press("l"), *_waits()))


def test_timeline_cost_series_of_the_cache_story_120x40(snap_compare: SnapCompare) -> None:
    """The cache story: the cost bars jump at each miss, whose letters sit under them (F the
    first request, T the 6-minute pause, M the switch to Opus, C the compaction, in the same
    column as the chart's R); the line under them prices the cursor's request (the last: a
    hit after the 20-minute pause, the cache written with the 1-hour lifetime) and the
    session, recorded and simulated."""
    app = app_for(samples_dir() / "claude_code_cache_story.jsonl")
    assert snap_compare(app, terminal_size=(120, 40), run_before=then(press("l"), *_waits()))


def test_timeline_80x24(snap_compare: SnapCompare) -> None:
    """The same at 80×24 after End: a shorter chart with the same marks, the cursor on the
    last request (260 on the axis), the short legend (series, marks, keys, and `?` for the
    cost and miss marks), and context rows above the footer."""
    app = app_for(replay_sample(), context_window=SMALL_WINDOW)
    steps = then(press("l"), *_waits(), press("end"), *_waits())
    assert snap_compare(app, terminal_size=(80, 24), run_before=steps)


def _waits() -> list[Any]:
    async def wait(pilot: Pilot[Any]) -> None:
        await settled_timeline(pilot)

    return [wait]


async def test_timeline_replays_the_full_history_with_both_kinds_of_compaction() -> None:
    app = app_for(replay_sample(), context_window=SMALL_WINDOW)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_timeline(pilot)
        assert screen.replay is not None and screen.history is not None
        assert len(screen.replay) == 260  # the full history, not the 36 after the last boundary
        assert screen.history.offset == 451
        figures = screen.chart.figures
        assert figures is not None
        assert sum("C" in m for m in figures.marks) == len(screen.replay.compactions) == 3
        assert sum("R" in m for m in figures.marks) == 3
        assert all(v is not None for v in figures.reported)
        # The cursor starts at the request that produced the main view's selection (#0 there).
        request = screen.replay.requests[screen.chart.cursor]
        assert request.message_index - screen.history.offset == 1
        # 120 columns hold the status only in its short words.
        status = _status(screen)
        assert status.startswith(f"request {screen.chart.cursor + 1}/260 · #452 (main #1) · sim ")
        assert status.endswith("API 16,408 · recorded compaction (auto)")


async def test_timeline_cursor_moves_and_the_context_list_follows() -> None:
    app = app_for(replay_sample(), context_window=SMALL_WINDOW)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_timeline(pilot)
        assert screen.replay is not None
        await pilot.press("home")
        await settled_timeline(pilot)
        assert screen.chart.cursor == 0
        first = screen.replay.requests[0]
        assert screen.context_list.message_count == first.message_index
        assert _status(screen).startswith("request 1 of 260")

        await pilot.press("right", "right")
        await settled_timeline(pilot)
        assert screen.chart.cursor == 2
        assert screen.context_list.message_count == screen.replay.requests[2].message_index

        # `]` jumps to the first request with an event: the first simulated compaction.
        await pilot.press("right_square_bracket")
        await settled_timeline(pilot)
        k = screen.chart.cursor
        compaction = screen.replay.compactions[0]
        assert k == min(compaction.request, screen.replay.recorded[0].request or k)
        while not screen.replay.requests[screen.chart.cursor].has(EventKind.COMPACTION):
            await pilot.press("right_square_bracket")
            await settled_timeline(pilot)
        assert screen.chart.cursor == compaction.request
        context = screen.context
        assert context is not None and context.stand_in
        rows = screen.context_list
        assert rows._row_text(0, 100).plain.lstrip().startswith("S ")
        assert rows._row_text(1, 100).plain.lstrip().startswith(f"{compaction.replaced[1] + 1:,} ")
        assert "compaction (proactive)" in _status(screen)

        # Back to the main view on the message that request produced, when it is shown there.
        await pilot.press("end")
        await settled_timeline(pilot)
        last = screen.replay.requests[-1].message_index - 451
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(pilot.app.screen, TimelineScreen)
        assert pilot.app.screen.query_one(MessageList).cursor == last


async def test_timeline_preset_choice_replays() -> None:
    app = app_for(replay_sample(), context_window=SMALL_WINDOW)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_timeline(pilot)
        assert screen.replay is not None
        before = screen.replay
        await pilot.press("p")
        await settle(pilot)
        options = pilot.app.screen.query_one(OptionList)
        options.highlighted = [o.id for o in options._options].index("picoclaw-seahorse")
        await pilot.press("enter")
        await settled_timeline(pilot)
        assert pilot.app.screen is screen
        assert screen.replay is not before and screen.replay.policy.preset == "picoclaw-seahorse"
        assert screen.replay.policy.context_window == SMALL_WINDOW
        assert "picoclaw-seahorse" in str(screen.query_one("#timeline-title", Static).render())
        assert len(screen.replay.compactions) != len(before.compactions)


async def test_timeline_of_a_session_without_usage_has_no_reported_line() -> None:
    session = demo_session()
    stripped = session.model_copy(
        update={"messages": tuple(m.model_copy(update={"usage": None}) for m in session.messages)}
    )
    async with app_for(stripped).run_test(size=(100, 30)) as pilot:
        screen = await open_timeline(pilot)
        figures = screen.chart.figures
        assert figures is not None and set(figures.reported) == {None}
        assert "reported —" in _status(screen)
        assert screen.history is not None and screen.history.offset == 0


async def test_timeline_chart_stays_flat_on_a_long_session() -> None:
    """10,000 requests: one drawing per size, and a cursor move repaints without redrawing."""
    app = app_for(big_session(20_000))
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_timeline(pilot)
        chart = screen.chart
        assert chart.count == 10_000
        assert len(list(screen.walk_children())) < 40
        chart.render_line(0)
        drawing = chart._drawing
        for step in range(20):  # twenty frames of the whole chart, the cursor moving
            chart.select(500 * step)
            for y in range(chart.size.height):
                chart.render_line(y)
        assert chart._drawing is drawing  # moving the cursor did not lay the plot out again
        await pilot.press("right", "right", "left")
        await settled_timeline(pilot)
        assert chart.cursor == 500 * 19 + 1
        await pilot.press("end")
        await settled_timeline(pilot)
        assert chart.cursor == 9_999
        rows = screen.context_list
        assert screen.context is not None and screen.context.stand_in  # it compacted on the way
        assert rows._row_text(rows.message_count - 1, 100).plain.lstrip().startswith("19,998 ")


def test_spans_keep_every_drop_and_join_the_steps() -> None:
    # More requests than columns: a column keeps its lowest and highest value.
    assert spans([1, 9, 2, 8, 3, 7], 3) == [(1, 9), (2, 9), (3, 8)]
    # Fewer requests than columns: a request spans columns, joined to the one before.
    assert spans([5, 1], 4) == [(5, 5), (5, 5), (1, 5), (1, 1)]
    # Missing figures draw nothing and join nothing.
    assert spans([None, 4, None], 3) == [None, (4, 4), None]


def test_draw_puts_the_levels_and_the_marks_where_they_belong() -> None:
    figures = ChartFigures(
        simulated=(100, 200, 300, 400),
        reported=(None, None, 1_000, 1_100),
        marks=("", "", "C", "R"),
        trigger=500,
        window=600,
    )
    drawing = draw(figures, width=8, height=6)
    assert drawing.marks == (" ", " ", " ", " ", "C", " ", "R", " ")
    # The top is the largest figure of any series; each level names its own row.
    assert drawing.labels == {0: "1.1k", 2: "600", 3: "500", 5: "0"}
    owners = [{owner for _, owner in row} - {""} for row in drawing.cells]
    assert owners[0] == {"reported"}
    assert owners[2] == {"window"}
    assert "trigger" in owners[3] and "simulated" in owners[5]
    assert set(drawing.cells[1][0][0]) == {"\u2800"}  # nothing between reported and window
    assert short_tokens(16_384) == "16.4k" and short_tokens(200_000) == "200k"


async def test_timeline_chart_paints_the_cursor_column() -> None:
    async with app_for(demo_session()).run_test(size=(100, 30)) as pilot:
        screen = await open_timeline(pilot)
        chart: TimelineChart = screen.chart
        await pilot.press("end")
        await settle(pilot)
        axis = chart.render_line(chart.size.height - 1).text
        assert axis.rstrip().endswith(f"{chart.count}")
        marks = chart.render_line(chart.size.height - 2).text
        column = chart.cursor_column(chart.size.width - GUTTER)
        assert marks[GUTTER + column] in "▲CR!+"


class ChartApp(App[None]):
    """The chart alone, so its rendered lines are the widget's own."""

    def __init__(self, figures: ChartFigures) -> None:
        super().__init__()
        self.figures = figures

    def compose(self) -> ComposeResult:
        yield TimelineChart()

    def on_mount(self) -> None:
        self.query_one(TimelineChart).show(self.figures)


FEW_REQUESTS = ChartFigures(
    simulated=(1_000, 2_000, 3_000, 1_200, 2_200, 3_200),
    reported=(None,) * 6,
    marks=("", "", "", "R", "", ""),
    trigger=4_000,
    window=5_000,
)
"""Six requests on a 40-column plot: each request spreads over six or seven columns."""


async def test_one_recorded_compaction_is_one_mark_and_the_axis_says_each_number_once() -> None:
    """With fewer requests than columns a recorded compaction was drawn `RRRRRR` (a mark in
    every column of its request) and, with the cursor on the last request, the axis read
    `6 6` (the count at the right edge beside the cursor's number)."""
    async with ChartApp(FEW_REQUESTS).run_test(size=(GUTTER + 40, 12)) as pilot:
        await pilot.pause()
        chart = pilot.app.query_one(TimelineChart)
        height = chart.size.height
        for cursor in (0, 3, 5):
            chart.select(cursor)
            await pilot.pause()
            marks = chart.render_line(height - 2).text[GUTTER:]
            axis = chart.render_line(height - 1).text[GUTTER:]
            assert marks.count("R") == 1, (cursor, marks)
            assert marks.index("R") == 3 * 40 // 6, "at its request"
            numbers = axis.replace("▲", " ").split()
            assert numbers.count("6") == 1, (cursor, axis)
            assert numbers.count("1") == 1, (cursor, axis)
            assert numbers[0] == "1" and numbers[-1] == "6", (cursor, axis)
            assert f"▲{cursor + 1}" in axis or f"{cursor + 1}▲" in axis, (cursor, axis)


def test_the_axis_leaves_out_a_fixed_number_the_cursor_would_touch() -> None:
    assert axis_line(6, 40, 5) == "1" + " " * 32 + "▲6" + " " * 5
    assert axis_line(6, 40, 0) == "▲1" + " " * 31 + "6" + " " * 6
    assert axis_line(6, 40, 3).split() == ["1", "▲4", "6"]
    assert axis_line(1_000, 20, 999) == "1" + " " * 13 + "1,000▲"
    assert axis_line(1_000, 20, 500) == "1" + " " * 9 + "▲501 1,000"


def test_the_cursors_number_is_marked_apart_from_the_last_requests() -> None:
    """The right-hand number is the last request's; the cursor's carries ``▲`` (issue: the
    axis named the last request where a reader looked for the cursor's)."""
    axis = axis_line(937, 80, 500)
    assert axis.split() == ["1", "▲501", "937"]
    assert axis_line(937, 80, 935).rstrip().endswith("936▲")


def test_the_session_as_read_is_the_tail_of_its_full_history() -> None:
    from ctxtui.core.simulation.replay import shown_offset
    from ctxtui.importers import load_session

    for name, offset in (("claude_code_replay.jsonl", 451), ("codex_replay.jsonl", 409)):
        shown = load_session(samples_dir() / name)
        history = load_session(samples_dir() / name, full_history=True)
        assert shown_offset(history, shown) == offset
        assert shown_offset(history, history) == 0
        assert shown_offset(shown, history) is None  # longer than what it should end
    cut = shown.model_copy(update={"messages": shown.messages[1:]})
    assert shown_offset(shown, cut) == 1
    changed = cut.model_copy(update={"messages": (shown.messages[0], *cut.messages[1:])})
    assert shown_offset(shown, changed) is None


async def test_timeline_after_an_applied_compaction_replays_the_session_on_screen() -> None:
    """The compacted session is no tail of the file's history: the view replays it as shown."""
    app = app_for(replay_sample(), context_window=SMALL_WINDOW)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await apply_compaction(pilot)
        compacted = pilot.app.screen.state.session
        assert pilot.app.screen.state.compacted and compacted is not None
        screen = await open_timeline(pilot)
        assert screen.history is not None and screen.history.offset == 0
        assert screen.history.session is compacted
        assert screen.replay is not None and screen.replay.session is compacted


async def test_timeline_of_a_session_without_requests_says_so() -> None:
    from ctxtui.core.session.models import Message, Session, SessionMeta

    session = Session(
        messages=(Message(role="user", content="hello"), Message(role="user", content="anyone?")),
        meta=SessionMeta(source_path="lonely.json", format="native"),
    )
    async with app_for(session).run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("l")
        for _ in range(4):
            await settle(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, TimelineScreen)
        assert screen.replay is not None and len(screen.replay) == 0
        assert _status(screen).startswith("no requests")
        await pilot.press("right", "end", "right_square_bracket")
        assert screen.chart.render_line(0).cell_length == screen.chart.size.width
        await pilot.press("enter")
        await settle(pilot)
        assert not isinstance(pilot.app.screen, TimelineScreen)


async def test_every_series_has_its_own_colour_in_every_theme() -> None:
    app = app_for(replay_sample(), context_window=SMALL_WINDOW)
    failures: list[str] = []
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_timeline(pilot)
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
    app = app_for(replay_sample(), context_window=SMALL_WINDOW)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_timeline(pilot)
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


async def test_the_timeline_at_80x24_and_60x20() -> None:
    app = app_for(replay_sample(), context_window=SMALL_WINDOW)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_timeline(pilot)
        title = str(screen.query_one("#timeline-title", Static).render())
        assert "260 req" in title and "preset plan" in title, title
        assert "claude_co….jsonl" in title, "the name gives way in its middle, not the preset"
        assert not title.rstrip().endswith("·")
        await pilot.resize_terminal(60, 20)
        await pilot.pause()
        await pilot.pause()
        footer = _footer(app)
        assert "? Help" in footer and "q Quit" in footer, footer
        assert "esc Back" in footer and "[ ] Events" in footer, footer


async def test_the_chart_grows_with_the_terminal() -> None:
    app = app_for(replay_sample(), context_window=SMALL_WINDOW)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_timeline(pilot)
        await pilot.resize_terminal(200, 50)
        await pilot.pause()
        await pilot.pause()
        assert screen.chart.size.height >= 20


def test_every_mark_of_the_app_has_one_meaning() -> None:
    """``C`` was both a simulated compaction and a miss after a compaction, ``T`` both an
    expired cache and the fresh tail: the marks of the timeline's events, its cache misses
    and the compare view's lanes are now all different."""
    from ctxtui.core.pricing.cost_words import CAUSE_MARKS
    from ctxtui.tui.widgets.compare_lanes import GLYPHS
    from ctxtui.tui.widgets.timeline_chart import MARKS

    groups = [set(MARKS.values()), set(CAUSE_MARKS.values()), set(GLYPHS.values())]
    every = [mark for group in groups for mark in group]
    assert len(every) == len(set(every)), every
    assert len(set(CAUSE_MARKS.values())) == len(CAUSE_MARKS)


def test_an_event_says_its_reason_once() -> None:
    from ctxtui.core.simulation.replay import EventKind, ReplayEvent, Request
    from ctxtui.tui.timeline_words import event_words

    events = (
        ReplayEvent(EventKind.COMPACTION, "proactive"),
        ReplayEvent(EventKind.OVERFLOW, "overflow"),
        ReplayEvent(EventKind.RECORDED_COMPACTION, "auto"),
    )
    request = Request.__new__(Request)
    object.__setattr__(request, "events", events)
    assert event_words(request) == "compaction (proactive), overflow, recorded compaction (auto)"


async def test_at_80x24_the_context_list_keeps_rows_on_a_priced_session() -> None:
    """A priced, compacted session at 80×24: the legend in full (series, marks, the band,
    the cost and miss rows) left the context list no row; a short screen's legend keeps to
    the series, the marks and the keys, and the list shows messages."""
    app = app_for(samples_dir() / "claude_code_cache_story.jsonl")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_timeline(pilot)
        assert screen.query_one(CostSeries).priced
        assert screen.context_list.size.height >= 3
        legend = str(screen.query_one("#timeline-legend", Static).render())
        assert "R recorded compaction" in legend and "tab list" in legend
        await pilot.resize_terminal(120, 40)
        await pilot.pause()
        await pilot.pause()
        legend = str(screen.query_one("#timeline-legend", Static).render())
        assert "dollars per request" in legend  # the full legend where there is room
