"""The tools view (`T`): per tool, calls, tokens of calls and outputs, what pruning frees; the
table fitted to small terminals, cuts marked."""

from __future__ import annotations

from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import DataTable, Static

from ctxtui.core.planning.tool_costs import tool_costs
from ctxtui.core.pricing.cost_words import cost_view, dollars
from ctxtui.core.session.models import Session
from ctxtui.tui.screens.tools import (
    COLUMNS,
    SHORT_HEADINGS,
    ToolsScreen,
    ToolTable,
    fit_widths,
)
from tests.tui.main_fixtures import (
    SIZES,
    SnapCompare,
    app_for,
    demo_session,
    press,
    replay_sample,
    screen_lines,
    settle,
    then,
    whole_or_cut,
)


async def _open_tools(pilot: Pilot[Any]) -> ToolsScreen:
    await settle(pilot)
    await pilot.press("T")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, ToolsScreen)
    return screen


def test_tools_view_120x40(snap_compare: SnapCompare) -> None:
    """The demo's three tools, the most sent first (run_shell, grep, read_file): calls,
    outputs, call and output tokens, pruned tokens (run_shell 541, read_file 339), sent and
    share, and the ``$`` each cost while in the context; above them the file name (demo.jsonl,
    not its path) and the line with the tokens pruning frees (880 from 2 outputs) and the
    request's size."""
    assert snap_compare(
        app_for(demo_session()), terminal_size=(120, 40), run_before=then(press("T"))
    )


def priced_demo() -> Session:
    """The demo with the model its usage was recorded for, so the price table applies."""
    session = demo_session()
    meta = session.meta.model_copy(update={"model": "claude-sonnet-4-5"})
    return session.model_copy(update={"meta": meta})


def test_tools_view_cost_column_80x24(snap_compare: SnapCompare) -> None:
    """At 80 columns the ``$`` column (each tool's carry cost) still shows whole: the tool
    names and headings give way first."""
    assert snap_compare(app_for(priced_demo()), terminal_size=(80, 24), run_before=then(press("T")))


async def test_tools_view_cost_column_is_each_tools_carry() -> None:
    session = priced_demo()
    async with app_for(session).run_test(size=(120, 40)) as pilot:
        screen = await _open_tools(pilot)
        plan = pilot.app.screen_stack[0].state.plan  # type: ignore[attr-defined]
        view = cost_view(session, plan.message_tokens)
        assert view.cost.priced
        table = screen.query_one(DataTable)
        for row in range(table.row_count):
            cells = [str(c) for c in table.get_row_at(row)]
            assert cells[-1] == dollars(view.tools()[cells[0]].cost) != "—"


async def test_tools_view_rows_are_the_plans_costs_and_escape_returns() -> None:
    app = app_for(demo_session())
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _open_tools(pilot)
        main = pilot.app.screen_stack[0]
        session, plan = main.state.session, main.state.plan  # type: ignore[attr-defined]
        costs = tool_costs(session, plan)
        table = screen.query_one(DataTable)
        assert table.row_count == len(costs.tools) == 3
        first = [str(c) for c in table.get_row_at(0)]
        top = costs.tools[0]
        assert first[0] == top.name
        assert first[-3] == f"{top.sent_tokens:,}"
        assert first[-2] == f"{costs.share(top):.1%}"
        # $: the demo records usage but no model, so nothing can be priced
        assert first[-1] == "—"
        # Pruning frees something in this window, and the view says how much.
        assert plan.pruned and costs.pruned_tokens == plan.tokens_freed_by_pruning > 0
        freed = str(screen.query_one("#tools-freed", Static).render())
        assert f"pruning frees {costs.pruned_tokens:,} tok" in freed
        assert f"({len(plan.pruned)} outputs)" in freed
        # The share's base is the prompt (the gauge's request adds the output reserve).
        assert f"prompt {plan.totals.tokens:,} tok" in freed and "request" not in freed
        assert costs.request_tokens == plan.totals.tokens != plan.totals.requested
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(pilot.app.screen, ToolsScreen)


async def test_gauge_calls_the_tool_schemas_tool_defs() -> None:
    """The gauge's ``tools`` segment is the tool definitions, not the calls and outputs this
    view adds up: its legend says ``tool defs`` (``defs`` when the width is short)."""
    from ctxtui.tui.widgets.gauge import BudgetGauge

    for width, label in ((120, " tool defs "), (52, " defs ")):
        app = app_for(demo_session())
        async with app.run_test(size=(width, 24)) as pilot:
            await settle(pilot)
            legend = str(app.screen.query_one(BudgetGauge).render()).splitlines()[2]
            assert label in legend, (width, legend)
            assert " tools " not in legend


async def test_enter_on_a_tool_returns_to_its_largest_output() -> None:
    from ctxtui.tui.widgets.message_list import MessageList

    session = demo_session()
    app = app_for(session)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _open_tools(pilot)
        table = screen.query_one(DataTable)
        name = str(table.get_row_at(1)[0])
        await pilot.press("down", "enter")
        await settle(pilot)
        assert not isinstance(pilot.app.screen, ToolsScreen)
        plan = pilot.app.screen.plan  # type: ignore[attr-defined]
        outputs = [
            i for i, m in enumerate(session.messages) if m.role == "tool" and m.tool_name == name
        ]
        biggest = max(outputs, key=lambda i: (plan.message_tokens[i], -i))
        assert pilot.app.screen.query_one(MessageList).cursor == biggest


async def test_a_tool_name_with_escapes_is_shown_not_obeyed() -> None:
    """A transcript's tool name may hold ANSI and OSC sequences (clear screen, set the title):
    the view shows them as ``␛`` text, as the message list does, and sends none to the terminal."""
    from ctxtui.core.session.models import Message, ToolCall

    evil = "\x1b[2J\x1b[H\x1b]0;PWNED\x07[red]x[/red]"
    session = Session(
        messages=(
            Message(role="user", content="go"),
            Message(role="assistant", tool_calls=(ToolCall(id="c1", name=evil, arguments="{}"),)),
            Message(role="tool", tool_call_id="c1", tool_name=evil, content="done"),
        )
    )
    async with app_for(session).run_test(size=(120, 40)) as pilot:
        screen = await _open_tools(pilot)
        shown = str(screen.query_one(DataTable).get_row_at(0)[0])
        assert "\x1b" not in shown and "\x07" not in shown
        assert shown.startswith("␛[2J␛[H␛]0;PWNED") and "[red]x[/red]" in shown


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
        headings = [heading for heading, _ in COLUMNS]
        if table.short:  # the short headings, explained in the note, before a cut one
            headings = [SHORT_HEADINGS.get(h, h) for h in headings]
            note = str(app.screen.query_one("#tools-note").render())
            assert note.startswith("outs: outputs · call, out:"), note
        full = [headings, *full_rows]
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
        assert cut or table.short, "the test saw a cut cell, or short headings that fit"
        # the last column (the carry cost, one cell wide) is on screen: nothing runs off the edge
        assert COLUMNS[-1][0] == "$" and lines[0].rstrip().endswith(" $")


async def test_at_80_columns_no_heading_is_cut() -> None:
    """The headings read "cal… out… pr…" at 80×24: short ones, explained, now fit whole."""
    app = app_for(replay_sample())
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("T")
        await settle(pilot)
        table = app.screen.query_one(ToolTable)
        assert table.short
        for column in table.ordered_columns:
            assert not column.label.plain.endswith("…"), column.label.plain
            assert column.get_render_width(table) - 2 >= len(column.label.plain)


async def test_on_a_compacted_session_the_tools_cover_the_whole_file() -> None:
    """T counted the 72 messages after the agent's last compaction (23 calls of 210); it
    covers the whole file by default, and w shows the last segment."""
    from tests.tui.main_fixtures import until

    app = app_for(replay_sample())
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("T")
        screen = app.screen
        assert isinstance(screen, ToolsScreen)
        await until(pilot, lambda: screen.whole is not None, "the whole file")
        assert screen.costs is not None and screen.whole is not None
        whole_calls = sum(t.calls for t in screen.costs.tools)
        title = str(screen.query_one("#tools-title").render())
        assert f"the whole file: {len(screen.whole.session):,} messages" in title
        await pilot.press("w")
        await pilot.pause()
        segment_calls = sum(t.calls for t in screen.costs.tools)
        assert segment_calls < whole_calls
        assert "the last segment: the 72 messages" in str(screen.query_one("#tools-title").render())
