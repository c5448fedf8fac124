"""Row text fitted to terminal cells (``tui/cells.py``): exact bar cells, clipped columns, tags
and titles that give way, sizes, the fresh-tail rule."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from rich.cells import cell_len, set_cell_size

from ctxtui.core.planning.plan import FreshTail, TailReason
from ctxtui.core.session.models import Message, ToolCall
from ctxtui.tui.cells import (
    BAR_FLOOR,
    ELLIPSIS,
    Row,
    bar_cells,
    bar_scale,
    boundary_rule,
    clip,
    clip_tool,
    layout_columns,
    preview,
    row_cells,
)


def test_biggest_message_fills_the_bar() -> None:
    assert bar_cells(500, 500, 4) == "████"


def test_half_bar_is_exact() -> None:
    assert bar_cells(250, 500, 4) == "██  "


def test_eighths_give_sub_cell_precision() -> None:
    # 3/8 of one cell of a 1-cell bar.
    assert bar_cells(3, 8, 1) == "▍"
    # 1 + 5/8 cells of a 2-cell bar: 13 of 16 eighths.
    assert bar_cells(13, 16, 2) == "█▋"


def test_any_nonzero_message_shows_one_eighth() -> None:
    assert bar_cells(1, 1_000_000, 10) == "▏" + " " * 9


def test_a_tiny_message_among_tiny_ones_does_not_fill_its_bar() -> None:
    """Scaled to the biggest alone, a 5-token reply in a chat of short messages was a full
    bar; the scale never drops under ``BAR_FLOOR`` (issue 13 item 13)."""
    assert bar_scale(5) == BAR_FLOOR and bar_scale(13_044) == 13_044
    assert bar_cells(5, bar_scale(5), 10) == "▏" + " " * 9
    assert bar_cells(13_044, bar_scale(13_044), 10) == "█" * 10


def test_row_numbers_have_thousands_separators() -> None:
    layout = layout_columns(80, rows=20_000, biggest=100, longest_tool=0)
    assert layout.index == len("19,999")
    assert (
        row_cells(layout, Row(12_345, Message(role="user", content="x"), 1), 100).index == "12,345"
    )
    assert row_cells(layout, Row(7, Message(role="user", content="x"), 1), 100).index == "     7"


def test_zero_tokens_is_blank() -> None:
    assert bar_cells(0, 100, 5) == " " * 5


@given(st.integers(0, 10**7), st.integers(1, 10**7), st.integers(0, 40))
def test_bar_is_always_exactly_its_width(tokens: int, biggest: int, width: int) -> None:
    tokens = min(tokens, biggest)
    assert cell_len(bar_cells(tokens, biggest, width)) == width


def test_clip_pads_and_cuts_in_cells() -> None:
    assert clip("ab", 4) == "ab  "
    assert clip("abcdef", 4) == "abc…"
    assert cell_len(clip("漢字漢字漢字", 7)) == 7


def test_preview_is_one_literal_line() -> None:
    msg = Message(role="user", content="line one\nline two\x1b[1m")
    assert preview(msg, 40) == "line one⏎line two␛[1m".ljust(40)


def test_preview_of_a_tool_call_shows_the_call() -> None:
    msg = Message(role="assistant", tool_calls=(ToolCall(id="1", name="ls", arguments="{}"),))
    assert preview(msg, 10) == "ls({})    "


def test_layout_fills_the_width_exactly() -> None:
    for width in (60, 80, 120, 200):
        layout = layout_columns(width, rows=100_000, biggest=123_456, longest_tool=9)
        msg = Message(role="tool", tool_name="read_file", content="x" * 500)
        cells = row_cells(layout, Row(99_999, msg, 123_456, "pruned −120,000 tok"), 123_456)
        assert cell_len(cells.text) == width, width


def test_tag_is_kept_whole_and_the_preview_gives_way() -> None:
    layout = layout_columns(80, rows=10, biggest=1_000, longest_tool=0)
    cells = row_cells(
        layout, Row(3, Message(role="tool", content="y" * 200), 1_000, "pruned"), 1_000
    )
    assert cells.tag == " pruned"
    assert cells.preview.endswith("…")


def test_narrow_layout_abbreviates_roles_and_hides_tools() -> None:
    layout = layout_columns(60, rows=10, biggest=1_000, longest_tool=12)
    assert layout.tool == 0
    assert row_cells(layout, Row(1, Message(role="assistant"), 5), 10).role == "asst"


def test_clip_tool_keeps_the_count_of_further_calls() -> None:
    assert clip_tool("run_shell +1", 11) == "run_she… +1"
    assert clip_tool("run_shell +1", 12) == "run_shell +1"
    assert clip_tool("apply_patch", 11) == "apply_patch"
    assert clip_tool("a_very_long_tool_name", 11) == "a_very_lon…"
    assert clip_tool("x +12", 3) == "x …"  # no room for the count: cut plainly


def test_row_cells_show_a_second_call_in_a_narrow_tool_column() -> None:
    calls = (ToolCall(id="1", name="run_shell"), ToolCall(id="2", name="run_shell"))
    layout = layout_columns(80, rows=10, biggest=100, longest_tool=12)
    cells = row_cells(layout, Row(1, Message(role="assistant", tool_calls=calls), 10), 100)
    assert cells.tool.endswith(" +1")


def test_row_cells_locate_the_query_in_the_shown_preview() -> None:
    layout = layout_columns(80, rows=10, biggest=100, longest_tool=0)
    msg = Message(role="user", content="run the tests\nthen [bold]Tests[/] again")
    cells = row_cells(layout, Row(0, msg, 10), 100, query="tests")
    assert [cells.preview[a:b] for a, b in cells.matches] == ["tests", "Tests"]
    assert row_cells(layout, Row(0, msg, 10), 100).matches == ()


def _tail(tokens: int, budget: int, *, over: bool = False) -> FreshTail:
    reason = TailReason.MIN_TURNS if over else TailReason.BUDGET
    return FreshTail(12, budget, tokens, reason, 2, 2, over_budget=over)


def test_boundary_rule_uses_the_full_label_when_it_fits() -> None:
    rule = boundary_rule(_tail(7_840, 8_000), 80)
    assert rule.startswith("── fresh tail · 7,840 / 8,000 tok · min 2 turns ──")
    assert cell_len(rule) == 80


def test_boundary_rule_keeps_the_over_budget_reason_on_a_narrow_list() -> None:
    """At 76 cells the full label would end in 'min turn…'; a shorter form keeps the reason."""
    tail = _tail(24_782, 8_000, over=True)
    rule = boundary_rule(tail, 76)
    assert "over budget (min turns)" in rule
    assert "…" not in rule
    assert cell_len(rule) == 76
    narrow = boundary_rule(tail, 40)
    assert "tail 24,782 / 8,000" in narrow
    assert cell_len(narrow) == 40


@given(st.integers(0, 200), st.integers(0, 10**7), st.integers(1, 10**7), st.booleans())
def test_boundary_rule_is_always_exactly_its_width(
    width: int, tokens: int, budget: int, over: bool
) -> None:
    assert cell_len(boundary_rule(_tail(tokens, budget, over=over), width)) == width


def test_a_tool_name_holding_a_newline_keeps_the_row_on_one_line() -> None:
    """A transcript's tool name is shown literally: a newline in it must not end the row."""
    layout = layout_columns(120, rows=10, biggest=100, longest_tool=16)
    msg = Message(role="tool", tool_name="read\nfile", content="ok")
    cells = row_cells(layout, Row(1, msg, 10), 100)
    assert cells.tool.startswith("read⏎file")
    assert "\n" not in cells.text
    assert cell_len(cells.text) == 120


def _clip_whole(text: str, width: int) -> str:
    """``clip`` by its definition: the whole text measured."""
    if width <= 0:
        return ""
    if cell_len(text) <= width:
        return set_cell_size(text, width)
    return set_cell_size(text, width - 1) + ELLIPSIS


_CELL_MIX = st.sampled_from(
    [*"ab ⏎·—é\t", "\u0301", "中", "文", "👍", "\u200d", "👨", "\ufe0f", "🇫", "🇷", "\u200b"]
)


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.tuples(_CELL_MIX, st.integers(1, 60)), max_size=30).map(
        lambda runs: "".join(c * n for c, n in runs)  # runs: long zero-width stretches too
    ),
    st.integers(0, 70),
)
def test_clip_measuring_a_head_cuts_where_measuring_the_whole_text_does(
    text: str, width: int
) -> None:
    """Wide, zero-width, combining and joined characters (emoji, flags) around the cut."""
    assert clip(text, width) == _clip_whole(text, width)


def test_a_row_tag_gives_way_to_the_text() -> None:
    from ctxtui.tui.cells import TEXT_CELLS, fit_tag

    tags = ("pruned · was 2,860 · −2,842 tok", "pruned −2,842", "pruned")
    assert fit_tag(tags, 100) == tags[0]
    assert fit_tag(tags, 50) == tags[1]
    assert fit_tag(tags, 20) == tags[2]
    assert 50 - len(tags[1]) - 1 >= min(TEXT_CELLS, 25)
    assert fit_tag("summary", 5) == "summary"


def test_a_title_leaves_out_whole_words() -> None:
    from ctxtui.tui.cells import whole_words

    title = (
        "Timeline · 260 req · C 3 R 3 · peak 7,869 · claude_code_replay.jsonl · claude-sonnet-4-5"
    )
    assert (
        whole_words(title, 78)
        == "Timeline · 260 req · C 3 R 3 · peak 7,869 · claude_code_replay.jsonl"
    )
    assert whole_words(title, 200) == title
    assert whole_words("Timeline", 4) == "Tim…"
