"""What a row says, as plain data: literal text, labels, tags, match spans, gauge cells."""

from __future__ import annotations

import subprocess
import sys

from hypothesis import given
from hypothesis import strategies as st

from ctxtui.core.literal import literal_block, visible
from ctxtui.core.planning.rows import cap_text, find_spans, split_cells, tool_label
from ctxtui.core.session.models import Message, ToolCall


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


def test_tool_label_counts_extra_calls() -> None:
    calls = tuple(ToolCall(id=str(i), name=f"t{i}") for i in range(3))
    assert tool_label(Message(role="assistant", tool_calls=calls)) == "t0 +2"
    assert tool_label(Message(role="tool", tool_name="grep")) == "grep"


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


def test_find_spans_is_case_insensitive_and_does_not_overlap() -> None:
    assert find_spans("Pytest, then PYTEST again", "pytest") == ((0, 6), (13, 19))
    assert find_spans("aaaa", "aa") == ((0, 2), (2, 4))
    assert find_spans("anything", "") == ()
    assert find_spans("İstanbul", "stan") == ()  # lower() changes the length: no safe offsets


def test_a_tool_name_holding_a_newline_is_labelled_on_one_line() -> None:
    result = Message(role="tool", tool_name="read\nfile\x1b[2J")
    assert tool_label(result) == "read⏎file␛[2J"
    calls = (ToolCall(id="1", name="run\r\nshell"), ToolCall(id="2", name="x"))
    assert tool_label(Message(role="assistant", tool_calls=calls)) == "run␍⏎shell +1"


def test_the_row_content_needs_no_terminal_library() -> None:
    """The core decides what a row says; fitting it to cells (rich) is the shell's job."""
    code = "import sys, ctxtui.core.planning.rows; print('rich' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
