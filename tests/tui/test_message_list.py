"""The message list (``widgets/message_list.py``): Line-API cost, the cursor and the mouse, rows
drawn literally and on a stated scale, the fresh-tail rule, search marks, and colours that
read on every theme."""

from __future__ import annotations

import re
from collections.abc import Sequence

from rich.color import Color
from rich.style import Style
from textual.app import App, ComposeResult
from textual.widgets import Static

from ctxtui.core.planning.plan import (
    CompactionNeed,
    FreshTail,
    Plan,
    PrunedOutput,
    TailReason,
    Totals,
    Zone,
)
from ctxtui.core.policies.policy import preset
from ctxtui.core.session.models import Message, Session
from ctxtui.core.tokens.tokenizers import TokenizerInfo
from ctxtui.tui.cells import BAR_FLOOR
from ctxtui.tui.widgets.detail import DetailPane
from ctxtui.tui.widgets.gauge import SEGMENTS, segment_values
from ctxtui.tui.widgets.message_list import BOUNDARY, MessageList
from ctxtui.tui.widgets.session_bar import SessionBar
from ctxtui.tui.widgets.theme_style import MIN_TEXT_CONTRAST, component_style, readable_on
from tests.tui.colour_fixtures import contrast, rgb, terminal_for
from tests.tui.main_fixtures import (
    SnapCompare,
    app_for,
    big_session,
    cjk_session,
    demo_session,
    markup_session,
    select,
    settle,
    then,
    tiny_session,
)


def hand_plan(
    tokens: Sequence[int],
    *,
    tail_start: int,
    kept_start: int = 0,
    pruned: Sequence[int] = (),
) -> Plan:
    """A plan built by hand, so these tests never depend on the planner's rules."""
    n = len(tokens)
    tail = sum(tokens[tail_start:])
    return Plan(
        policy=preset("plan"),
        tokenizer=TokenizerInfo("plan", "plan"),
        message_tokens=tokens,
        effective_tokens=[1 if i in pruned else t for i, t in enumerate(tokens)],
        kept_start=kept_start,
        tail=FreshTail(tail_start, 8_000, tail, TailReason.BUDGET, 2, 2),
        totals=Totals(131_072, 32_768, 0, 0, 0, sum(tokens), sum(tokens) - tail, tail, 0),
        compaction=CompactionNeed(False, None, None, 0, 131_072),
        pruned={i: PrunedOutput(i, tokens[i], 1) for i in pruned if i < n},
    )


class ListApp(App[None]):
    """Just the list, filling the screen."""

    def __init__(self, session: Session, plan: Plan) -> None:
        super().__init__()
        self.session = session
        self.plan = plan

    def compose(self) -> ComposeResult:
        yield MessageList()

    def on_mount(self) -> None:
        self.query_one(MessageList).show(self.session, self.plan)


def count_row_builds(widget: MessageList) -> list[int]:
    """Patch the widget so every row it formats (a cache miss) is recorded."""
    built: list[int] = []
    original = widget._row_text

    def spy(index: int, width: int) -> object:
        built.append(index)
        return original(index, width)

    widget._row_text = spy  # type: ignore[method-assign]
    return built


async def rows_built_for(n: int) -> tuple[list[int], list[int]]:
    """Paint a list of ``n`` rows, then paint again; return what each pass formatted."""
    session = big_session(n)
    plan = hand_plan([7 + i % 50 for i in range(n)], tail_start=n - 10)
    app = ListApp(session, plan)
    async with app.run_test(size=(80, 24)) as pilot:
        widget = app.query_one(MessageList)
        built = count_row_builds(widget)
        widget.refresh()
        await pilot.pause()
        first = list(built)
        built.clear()
        for y in range(widget.size.height):
            widget.render_line(y)
        second = list(built)
        await pilot.press("end")
        await pilot.pause()
        assert widget.cursor == n - 1
        texts = [widget.render_line(y).text for y in range(widget.size.height)]
        assert any(f"message number {n - 1}" in t for t in texts)
    return first, second


def match_cells(widget: MessageList, row: int) -> list[str]:
    """The texts drawn in the search-match style on ``row`` of the list."""
    bg = component_style(widget, "message-list--search-match").bgcolor
    return [s.text for s in widget.render_line(row) if s.style and s.style.bgcolor == bg]


MIN_ANSI_CONTRAST = 3.0
"""An ANSI theme's colours are the terminal's to draw, so only WCAG's large-text minimum."""


def light_themes() -> list[str]:
    app = App[None]()
    return sorted(name for name, theme in app.available_themes.items() if not theme.dark)


ROW_FIGURE = re.compile(r" (\d[\d,]*) [▏▎▍▌▋▊▉█]*\s*$")


def shown_figures(messages: MessageList) -> dict[int, int]:
    """The figure each message's row shows, read back from the painted lines."""
    figures: dict[int, int] = {}
    messages.scroll_to(y=0, animate=False, immediate=True)
    for row in range(messages.row_count):
        if row >= messages.scroll_offset.y + messages.size.height:
            messages.scroll_to(y=row, animate=False, immediate=True)
        index = messages.row_to_index(row)
        if index is None or row == messages.boundary_row:
            continue
        y = row - int(messages.scroll_offset.y)
        line = "".join(segment.text for segment in messages.render_line(y))
        found = ROW_FIGURE.search(line)
        assert found, line
        figures[index] = int(found[1].replace(",", ""))
    return figures


async def test_painting_costs_the_screen_not_the_list() -> None:
    small_first, small_second = await rows_built_for(100)
    big_first, big_second = await rows_built_for(100_000)
    assert small_first == big_first, "the same visible rows are formatted, whatever the total"
    assert len(big_first) <= 24
    assert small_second == [] and big_second == [], "a repaint is served from the strip cache"


async def test_boundary_rule_sits_above_the_first_tail_message() -> None:
    session = big_session(30)
    app = ListApp(session, hand_plan([10] * 30, tail_start=12))
    async with app.run_test(size=(80, 40)) as pilot:
        await pilot.pause()
        widget = app.query_one(MessageList)
        assert widget.row_to_index(11) == 11
        assert widget.row_to_index(12) == BOUNDARY
        assert widget.row_to_index(13) == 12
        rule = widget.render_line(12).text
        assert rule.startswith("── fresh tail · 180 / 8,000 tok · min 2 turns ")
        assert rule.rstrip().endswith("─")


async def test_markup_ansi_and_controls_are_shown_literally() -> None:
    session = markup_session()
    app = ListApp(session, hand_plan([12, 20, 15, 9, 8], tail_start=2, pruned=[1]))
    async with app.run_test(size=(100, 12)) as pilot:
        await pilot.pause()
        widget = app.query_one(MessageList)
        rows = [widget.render_line(y).text for y in range(6)]
        assert "Please print [bold]bold[/] and [red]red[/red] text" in rows[0]
        assert "Here: ␛[1mbold␛[0m and ␛[31mred␛[0m" in rows[1]
        assert "pruned · was 20 · −19 tok" in rows[1]
        assert "tabs⇥here, a bell␇, NUL␀ and␍⏎CRLF" in rows[3]  # row 2 is the rule
        assert "[link=https://example.com]click[/link] :smile:" in rows[4]
        assert "\x1b" not in "".join(rows)


async def test_rows_fill_the_width_exactly() -> None:
    session = markup_session()
    app = ListApp(session, hand_plan([12, 20, 15, 9, 8], tail_start=2))
    async with app.run_test(size=(90, 12)) as pilot:
        await pilot.pause()
        widget = app.query_one(MessageList)
        width = widget.scrollable_content_region.width
        assert {widget.render_line(y).cell_length for y in range(6)} == {width}


async def test_a_tool_name_holding_a_newline_is_drawn_on_its_own_row() -> None:
    """A transcript's tool name with a newline used to break the row in two (issue 9)."""

    session = Session(
        messages=(
            Message(role="tool", tool_name="read\nfile", content="first"),
            Message(role="user", content="second"),
        )
    )
    app = ListApp(session, hand_plan([10, 10], tail_start=2))
    async with app.run_test(size=(120, 10)):
        widget = app.query_one(MessageList)
        first = "".join(segment.text for segment in widget.render_line(0))
        second = "".join(segment.text for segment in widget.render_line(1))
        assert "read⏎file" in first and "first" in first and "\n" not in first
        assert "second" in second


async def test_cursor_moves_with_keys_and_stays_in_range() -> None:
    session = demo_session()
    app = app_for(session)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        messages = app.screen.query_one(MessageList)
        await pilot.press("down", "down", "down")
        assert messages.cursor == 3
        await pilot.press("up")
        assert messages.cursor == 2
        await pilot.press("end")
        assert messages.cursor == len(session) - 1
        await pilot.press("down")
        assert messages.cursor == len(session) - 1  # clamped, not past the end
        await pilot.press("home", "up")
        assert messages.cursor == 0
        await pilot.press("pagedown")
        assert messages.cursor > 5


async def test_click_selects_the_row_under_the_mouse() -> None:
    app = app_for(demo_session())
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        messages = app.screen.query_one(MessageList)
        await pilot.click(MessageList, offset=(5, 2))
        assert messages.cursor == 2


async def test_search_marks_the_match_in_every_row_that_shows_it() -> None:
    session = demo_session()
    app = app_for(session)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        messages = app.screen.query_one(MessageList)
        await pilot.press("slash", *"Pytest", "enter")
        await settle(pilot)
        assert messages.search_query == "Pytest"
        # Message 5 is "Running run_shell on pytest -q." (row 5: the rule is further down).
        assert session.messages[5].content == "Running run_shell on pytest -q."
        assert match_cells(messages, 5) == ["pytest"]
        assert match_cells(messages, 4) == []
        await pilot.press("escape")  # the list has the focus: Escape closes the search bar
        await pilot.pause()
        assert not app.screen.query_one("#search-row").display
        assert messages.search_query == ""
        assert match_cells(messages, 5) == []


async def test_theme_switch_repaints_the_rows_in_the_new_colours() -> None:
    """On a light theme the muted index column must be dark, not the white that a partial
    style gives for `$text-muted`; the boundary rule carries its own colour."""
    app = app_for(demo_session())
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        messages = app.screen.query_one(MessageList)
        dark_row = list(messages.render_line(1))
        app.theme = "catppuccin-latte"
        await pilot.pause()
        light_row = list(messages.render_line(1))
        assert dark_row != light_row
        index_style = light_row[0].style
        assert index_style is not None and index_style.color is not None
        assert index_style.color.triplet is not None
        assert sum(index_style.color.triplet) < 3 * 160, "a muted dark grey on a light surface"
        boundary = messages.boundary_row
        assert boundary is not None
        rule = list(messages.render_line(boundary - int(messages.scroll_offset.y)))
        assert all(seg.style is not None and seg.style.color is not None for seg in rule)


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


async def test_bars_are_on_a_stated_scale_that_tiny_messages_do_not_fill() -> None:
    app = app_for(tiny_session())
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        messages = app.screen.query_one(MessageList)
        assert messages.scale == BAR_FLOOR
        assert app.screen.query_one(SessionBar).border_subtitle == "full bar = 1,000 tok"
        for row in range(messages.row_count):
            line = "".join(segment.text for segment in messages.render_line(row))
            if row != messages.boundary_row:
                assert "█" not in line and line.rstrip().endswith("▏"), line
    app = app_for(demo_session(), chars_per_token=1.0)  # outputs of a few thousand tokens
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        assert app.main.plan is not None
        biggest = max(app.main.plan.effective_tokens)
        assert biggest > BAR_FLOOR
        assert app.screen.query_one(SessionBar).border_subtitle == f"full bar = {biggest:,} tok"


async def test_the_rows_of_a_zone_add_up_to_its_gauge_segment() -> None:
    """Rows showed the stored size (a pruned output 13,044 while it sends 18), so they did not
    add up to the gauge (issue 13 item 2). Checked with pruned, kept, tail and dropped rows."""
    for overrides in ({}, {"context_window": 2_304, "max_tokens": 1_024}):
        app = app_for(demo_session(), **overrides)
        async with app.run_test(size=(120, 30)) as pilot:
            await settle(pilot)
            plan = app.main.plan
            assert plan is not None and plan.pruned
            figures = shown_figures(app.screen.query_one(MessageList))
            assert len(figures) == len(plan)
            sums = dict.fromkeys(Zone, 0)
            for index, figure in figures.items():
                sums[plan.zone(index)] += figure
            values = dict(zip((name for name, _ in SEGMENTS), segment_values(plan), strict=True))
            assert sums[Zone.KEPT] == values["kept"] == plan.totals.kept
            assert sums[Zone.TAIL] == values["tail"] == plan.totals.tail
            assert sums[Zone.DROPPED] == values["dropped"] == plan.totals.dropped
            assert sum(sums.values()) > 0 and (sums[Zone.DROPPED] > 0) == bool(overrides)


async def test_a_pruned_row_shows_what_it_sends_and_its_tag_what_it_was() -> None:
    app = app_for(demo_session())
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        plan = app.main.plan
        assert plan is not None
        index = min(plan.pruned)
        sent, stored = plan.effective_tokens[index], plan.message_tokens[index]
        messages = app.screen.query_one(MessageList)
        line = "".join(s.text for s in messages.render_line(messages.index_to_row(index)))
        assert ROW_FIGURE.search(line)[1] == f"{sent:,}"  # type: ignore[index]
        # At 120 columns the row keeps its text and says the change in short; the detail pane
        # says the rest (issue 29 item 2: the long tag left the text 5 cells).
        assert f"pruned −{stored - sent:,} " in line and " was " not in line
        layout = messages._row_layout(messages.size.width)
        assert layout.preview - len(f" pruned −{stored - sent:,}") >= 30
        messages.select(index)
        await settle(pilot)
        body = str(app.screen.query_one(DetailPane).query_one("#detail-body", Static).render())
        assert f"Sent as {sent:,} tokens of its {stored:,}: pruned, which frees" in body


def test_pruned_rows(snap_compare: SnapCompare) -> None:
    """Cursor on a pruned tool output (#2): pruned rows are dimmed, show the 16 tokens their
    stub sends and a short bar, with an orange `pruned · was 355 · −339 tok` tag; the detail
    pane says `Sent as 16 tokens of its 355: pruned, which frees 339 tokens.`, the call it
    answers (#1), the counts under each tokenizer and the plan's sentence saying why."""
    app = app_for(demo_session())
    assert snap_compare(app, terminal_size=(120, 40), run_before=then(select(2)))


def test_markup_and_ansi_shown_literally(snap_compare: SnapCompare) -> None:
    """A session full of `[bold]`, `[/]`, `[link=…]`, ANSI escapes, tabs, NUL, CR and a bidi
    override: every row shows them as text (␛[1m, ⇥, ␀, ␍⏎, �); nothing is bold or red.
    The detail pane (message #1) shows the escapes literally too."""
    app = app_for(markup_session())
    assert snap_compare(app, terminal_size=(110, 24), run_before=then(select(1)))


def test_cjk_content(snap_compare: SnapCompare) -> None:
    """Chinese, Japanese and Korean messages: double-width previews are cut on cell
    boundaries, so the token column and bars stay aligned."""
    assert snap_compare(app_for(cjk_session()), terminal_size=(80, 24), run_before=then())


def test_tiny_messages_bar_scale_100x24(snap_compare: SnapCompare) -> None:
    """A chat of short messages: bars are slivers (one eighth), not full, because the rule
    above the list states `full bar = 1,000 tok`, the scale's floor."""
    from tests.tui.main_fixtures import tiny_session

    assert snap_compare(app_for(tiny_session()), terminal_size=(100, 24), run_before=then())
