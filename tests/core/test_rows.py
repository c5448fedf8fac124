"""Row formatting: exact bar cells, sanitised previews, column layout."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from rich.cells import cell_len

from ctxtui.core.models import Message, ToolCall
from ctxtui.core.rows import (
    bar_cells,
    cap_text,
    clip,
    layout_columns,
    literal_block,
    preview,
    pruned_tag,
    row_cells,
    split_cells,
    tool_label,
    visible,
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


def test_zero_tokens_is_blank() -> None:
    assert bar_cells(0, 100, 5) == " " * 5


@given(st.integers(0, 10**7), st.integers(1, 10**7), st.integers(0, 40))
def test_bar_is_always_exactly_its_width(tokens: int, biggest: int, width: int) -> None:
    tokens = min(tokens, biggest)
    assert cell_len(bar_cells(tokens, biggest, width)) == width


def test_visible_shows_controls_instead_of_acting_on_them() -> None:
    assert visible("a\nb\tc\x1b[31mred\x00\x7f\r") == "a⏎b⇥c␛[31mred␀␡␍"


def test_visible_neutralises_bidi_and_c1_controls() -> None:
    assert visible("x\u202ey\x85") == "x�y�"


def test_visible_leaves_markup_alone() -> None:
    assert visible("[bold]hi[/]") == "[bold]hi[/]"


def test_literal_block_keeps_line_breaks() -> None:
    assert literal_block("a\n\x1b[0mb") == "a\n␛[0mb"


def test_cap_text_counts_the_bytes_left_off() -> None:
    assert cap_text("abcdé", 3) == ("abc", 3)  # "d" + two bytes of "é"
    assert cap_text("short", 10) == ("short", 0)


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


def test_tool_label_counts_extra_calls() -> None:
    calls = tuple(ToolCall(id=str(i), name=f"t{i}") for i in range(3))
    assert tool_label(Message(role="assistant", tool_calls=calls)) == "t0 +2"
    assert tool_label(Message(role="tool", tool_name="grep")) == "grep"


def test_layout_fills_the_width_exactly() -> None:
    for width in (60, 80, 120, 200):
        layout = layout_columns(width, rows=100_000, biggest=123_456, longest_tool=9)
        msg = Message(role="tool", tool_name="read_file", content="x" * 500)
        cells = row_cells(layout, 99_999, msg, 123_456, 123_456, tag=pruned_tag(120_000))
        assert cell_len(cells.text) == width, width


def test_tag_is_kept_whole_and_the_preview_gives_way() -> None:
    layout = layout_columns(80, rows=10, biggest=1_000, longest_tool=0)
    cells = row_cells(layout, 3, Message(role="tool", content="y" * 200), 1_000, 1_000, "pruned")
    assert cells.tag == " pruned"
    assert cells.preview.endswith("…")


def test_narrow_layout_abbreviates_roles_and_hides_tools() -> None:
    layout = layout_columns(60, rows=10, biggest=1_000, longest_tool=12)
    assert layout.tool == 0
    assert row_cells(layout, 1, Message(role="assistant"), 5, 10).role == "asst"


def test_split_cells_sums_to_width_and_shows_small_parts() -> None:
    cells = split_cells([200, 0, 100_000, 50_000], 40)
    assert sum(cells) == 40
    assert cells[0] == 1
    assert cells[1] == 0


@given(st.lists(st.integers(0, 10**6), min_size=1, max_size=8), st.integers(8, 200))
def test_split_cells_always_sums_to_width(values: list[int], width: int) -> None:
    cells = split_cells(values, width)
    if sum(values) > 0:
        assert sum(cells) == width
    assert all(c >= 0 for c in cells)


def test_a_summary_message_is_tagged() -> None:
    from ctxtui.core.engine import Engine
    from ctxtui.core.models import Session
    from ctxtui.core.policy import preset
    from ctxtui.core.rows import row_tag

    session = Session(messages=(Message(role="user", content="s", is_summary=True),))
    plan = Engine(session).plan(preset("plan"))
    assert row_tag(plan, 0, session.messages[0]) == "summary"
