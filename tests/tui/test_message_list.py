"""The message list on its own: Line-API cost, strip cache, and literal rendering of rows."""

from __future__ import annotations

from collections.abc import Sequence

from textual.app import App, ComposeResult

from ctxtui.core.planning.plan import (
    CompactionNeed,
    FreshTail,
    Plan,
    PrunedOutput,
    TailReason,
    TokenizerInfo,
    Totals,
)
from ctxtui.core.policies.policy import preset
from ctxtui.core.session.models import Session
from ctxtui.tui.widgets.message_list import BOUNDARY, MessageList
from tests.tui.main_fixtures import big_session, markup_session


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
    from ctxtui.core.session.models import Message

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
