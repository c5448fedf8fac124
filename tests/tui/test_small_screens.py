"""What a newcomer sees at 80×24 and 60×20 (issue 29 items 1 and 2): the footer keeps the views,
Help and Quit; the session bar holds one line and breaks only between phrases; at least 14
messages show; the timeline's title is fitted, not cut, and its footer keeps ? and q."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from ctxtui.tui.cells import flow, shorten_name
from ctxtui.tui.widgets.message_list import MessageList
from ctxtui.tui.widgets.session_bar import SessionBar
from tests.tui.main_fixtures import app_for, apply_compaction, demo_session
from tests.tui.test_snapshots_main import settle
from tests.tui.test_timeline_view import SMALL_WINDOW, _open, sample

CLAUDE_NAME = "cde583fb-6a3c-4d0f-9a57-2a1c9f0e8b11.jsonl"
"""A Claude Code transcript is named by its session's UUID: 42 cells of name."""


def _footer(app: object) -> str:
    return "".join(s.text for s in app.screen._compositor.render_strips()[-1])  # type: ignore[attr-defined]


async def test_80x24_keeps_the_views_help_quit_and_14_messages() -> None:
    app = app_for(demo_session(name=CLAUDE_NAME))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        footer = _footer(app)
        for words in ("v T l Views", "? Help", "q Quit", "^p palette"):
            assert words in footer, (words, footer)
        bar = app.screen.query_one(SessionBar)
        assert bar.size.height == 1, str(bar.render())
        lines = str(bar.render()).split("\n")
        assert all(line.strip() for line in lines), "no empty row"
        assert lines[0].startswith("cde583fb-") and "….jsonl" in lines[0]
        assert "tokenizer plan" in lines[0]
        messages = app.screen.query_one(MessageList)
        # one row may be the fresh-tail rule; the rest are messages
        assert messages.size.height - 1 >= 14


async def test_the_session_bar_breaks_between_phrases_after_a_compaction() -> None:
    app = app_for(demo_session(name=CLAUDE_NAME))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await apply_compaction(pilot)
        main = app.screen_stack[0]
        bar = main.query_one(SessionBar)
        lines = str(bar.render()).split("\n")
        assert any("compacted (u undoes, 1 deep)" in line for line in lines), lines
        assert CLAUDE_NAME in lines[0], "120 columns hold the whole name"


def test_flow_breaks_only_between_phrases() -> None:
    phrases = [Text("a" * 10), Text("compacted (u undoes, 1 deep)"), Text("b" * 5)]
    lines = flow(phrases, Text(" · "), 30)
    assert [line.plain for line in lines] == [
        "aaaaaaaaaa",
        "compacted (u undoes, 1 deep)",
        "bbbbb",
    ]
    assert [line.plain for line in flow([Text("x" * 25)], Text(" · "), 10)] == [
        "x" * 10,
        "x" * 10,
        "x" * 5,
    ]


def test_a_long_name_keeps_its_head_and_suffix() -> None:
    assert shorten_name(CLAUDE_NAME, 16) == "cde583fb-….jsonl"
    assert shorten_name("short.json", 16) == "short.json"
    assert len(shorten_name(CLAUDE_NAME, 4)) == 16, "never under NAME_CELLS"


async def test_the_timeline_at_80x24_and_60x20() -> None:
    app = app_for(sample(), context_window=SMALL_WINDOW)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _open(pilot)
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
    app = app_for(sample(), context_window=SMALL_WINDOW)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _open(pilot)
        await pilot.resize_terminal(200, 50)
        await pilot.pause()
        await pilot.pause()
        assert screen.chart.size.height >= 20


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
