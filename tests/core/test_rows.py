"""Row formatting: exact bar cells, sanitised previews, column layout."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from rich.cells import cell_len

from ctxtui.core.models import Message, ToolCall
from ctxtui.core.plan import FreshTail, TailReason
from ctxtui.core.rows import (
    bar_cells,
    boundary_rule,
    cap_text,
    clip,
    clip_tool,
    find_spans,
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


def test_clip_tool_keeps_the_count_of_further_calls() -> None:
    assert clip_tool("run_shell +1", 11) == "run_she… +1"
    assert clip_tool("run_shell +1", 12) == "run_shell +1"
    assert clip_tool("apply_patch", 11) == "apply_patch"
    assert clip_tool("a_very_long_tool_name", 11) == "a_very_lon…"
    assert clip_tool("x +12", 3) == "x …"  # no room for the count: cut plainly


def test_row_cells_show_a_second_call_in_a_narrow_tool_column() -> None:
    calls = (ToolCall(id="1", name="run_shell"), ToolCall(id="2", name="run_shell"))
    layout = layout_columns(80, rows=10, biggest=100, longest_tool=12)
    cells = row_cells(layout, 1, Message(role="assistant", tool_calls=calls), 10, 100)
    assert cells.tool.endswith(" +1")


def test_find_spans_is_case_insensitive_and_does_not_overlap() -> None:
    assert find_spans("Pytest, then PYTEST again", "pytest") == ((0, 6), (13, 19))
    assert find_spans("aaaa", "aa") == ((0, 2), (2, 4))
    assert find_spans("anything", "") == ()
    assert find_spans("İstanbul", "stan") == ()  # lower() changes the length: no safe offsets


def test_row_cells_locate_the_query_in_the_shown_preview() -> None:
    layout = layout_columns(80, rows=10, biggest=100, longest_tool=0)
    msg = Message(role="user", content="run the tests\nthen [bold]Tests[/] again")
    cells = row_cells(layout, 0, msg, 10, 100, query="tests")
    assert [cells.preview[a:b] for a, b in cells.matches] == ["tests", "Tests"]
    assert row_cells(layout, 0, msg, 10, 100).matches == ()


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
