"""The main gauge's fourth line: the API's count of the last request beside ctxtui's."""

from __future__ import annotations

from ctxtui.samples import samples_dir
from ctxtui.tui.widgets.gauge import BudgetGauge
from tests.tui.main_fixtures import app_for, demo_session
from tests.tui.test_snapshots_main import settle


def _lines(gauge: BudgetGauge) -> list[str]:
    return str(gauge.render()).splitlines()


async def test_gauge_shows_the_reported_prompt_and_why_it_differs() -> None:
    """A Claude Code transcript (no system prompt or tools in it) counted with cl100k."""
    path = samples_dir() / "claude_code_compacted.jsonl"
    app = app_for(path, tokenizer="tiktoken:cl100k_base")
    async with app.run_test(size=(200, 40)) as pilot:
        await settle(pilot)
        gauge = pilot.app.screen.query_one(BudgetGauge)
        lines = _lines(gauge)
        assert len(lines) == 4
        gap = pilot.app.screen.state.reported
        assert gap is not None and gap.reported == 18_050
        # numbered from the transcript's first request, as replay does (the history is read)
        assert gap.request + 1 == 12 and not gap.since_compaction
        # the longest of the core's lines that fits: its fit is implausible, and it says so
        assert gap.lines()[1] == (
            f"API reported 18,050 at request 12 · counted {gap.estimated:,} · "
            f"{gap.gap:+,}: system/tools not in transcript; cl100k ≠ Claude; fit implausible"
            " · over this window: the agent's was larger"  # the test's 16,384 window
        )
        # and the last request's dollars and cache hit ratio end the gauge's line
        assert lines[3] == gap.lines()[1] + " · $0.0077 · cache hit 98%"
    async with app_for(path, tokenizer="tiktoken:cl100k_base").run_test(size=(80, 30)) as pilot:
        await settle(pilot)
        line = _lines(pilot.app.screen.query_one(BudgetGauge))[3]
        # The fewest words, and what still does not fit cut with an ellipsis, not wrapped.
        assert line.startswith("API 18,050 · counted ")
        assert ": system/tools not in transcript; cl100k" in line
        assert len(line) <= 80 - 2
    async with app_for(path, tokenizer="tiktoken:cl100k_base").run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        lines = _lines(pilot.app.screen.query_one(BudgetGauge))
        # Short: no line of its own (the list keeps its 14 rows); the figure joins the first.
        assert len(lines) == 3
        # over the test's 16,384 window: said, in place of the gap
        assert lines[0].endswith("· API 18,050 > window")


async def test_gauge_has_no_reported_line_without_usage() -> None:
    session = demo_session()
    bare = session.model_copy(
        update={"messages": tuple(m.model_copy(update={"usage": None}) for m in session.messages)}
    )
    async with app_for(bare).run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert len(_lines(pilot.app.screen.query_one(BudgetGauge))) == 3
