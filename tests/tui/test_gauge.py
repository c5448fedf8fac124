"""The budget gauge (``widgets/gauge.py``): its segments and words, the API's own count of the
last request beside ctxtui's, and that request's dollars."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from rich.cells import cell_len
from textual.widgets import Static

from ctxtui.cli.main import main
from ctxtui.core.pricing.cost import session_cost
from ctxtui.core.pricing.cost_words import dollars, last_priced
from ctxtui.importers import load_session
from ctxtui.samples import samples_dir
from ctxtui.tui.screens.timeline import TimelineScreen
from ctxtui.tui.widgets.gauge import SEGMENTS, BudgetGauge
from tests.tui.main_fixtures import (
    RESERVE,
    STORY,
    WINDOW,
    app_for,
    demo_session,
    settle,
)


def _lines(gauge: BudgetGauge) -> list[str]:
    return str(gauge.render()).splitlines()


WIDE = (400, 50)
"""Wide enough for the longest line on every shell."""


def _cli(command: str, path: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    # the app's tests start on plan (app_for); the CLI would take the agent's preset
    knobs = ["--preset", "plan", "--context-window", str(WINDOW), "--max-tokens", str(RESERVE)]
    assert main([command, str(path), "--json", *knobs]) == 0
    doc: dict[str, Any] = json.loads(capsys.readouterr().out)
    return doc


SWATCHES = {char for _, char in SEGMENTS}


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
        # and the last request's dollars and cache hit ratio end the gauge's line, said to
        # be that request's: the longest of the core's lines that leaves them room
        tail = " · last request $0.0077 · cache hit 98%"
        assert lines[3].endswith(tail) and lines[3].removesuffix(tail) in gap.lines()
    async with app_for(path, tokenizer="tiktoken:cl100k_base").run_test(size=(80, 30)) as pilot:
        await settle(pilot)
        line = _lines(pilot.app.screen.query_one(BudgetGauge))[3]
        # The fewest words, and what still does not fit cut with an ellipsis, not wrapped.
        assert line.startswith("API 18,050 · counted ")
        assert ": system/tools not i" in line
        assert line.endswith(" · last request $0.0077")  # the request's dollars stay, labelled
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


async def test_gauge_api_line_ends_with_the_last_requests_cost_and_hit_ratio() -> None:
    session = load_session(STORY)
    last = last_priced(session_cost(session))
    assert last is not None and last.cost is not None and last.hit_ratio is not None
    async with app_for(STORY).run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        line = str(pilot.app.screen.query_one(BudgetGauge).render()).splitlines()[3]
        assert line.startswith("API 18,048")
        # the dollars are said to be that one request's (the session's total is the bar's)
        assert line.endswith(
            f" · last request {dollars(last.cost)} · cache hit {last.hit_ratio:.0%}"
        )


async def test_gauge_keeps_the_requests_dollars_when_narrow() -> None:
    """At 80-90 columns the gauge lost its dollars; they stay, without the cache figure."""
    for size in ((90, 40), (80, 24)):
        app = app_for(STORY, context_window=200_000, max_tokens=32_000)
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            lines = str(pilot.app.screen.query_one(BudgetGauge).render()).splitlines()
            assert any("last request $" in line for line in lines), (size, lines)
            assert all(len(line) <= size[0] for line in lines)


async def test_gauge_words_shrink_before_its_figures_do() -> None:
    """The headline is the prompt sent; past the trigger the gauge says so; the words shrink
    with the width, the figures never do (at 60 columns it used to end "near the")."""
    for width, line in (
        (
            120,
            "prompt 4,017 tok sent · 6,065 / 16,384 with the output reserve  37.0%  "
            "near the compaction trigger",
        ),
        (80, "prompt 4,017 · 6,065 / 16,384 with reserve  37.0%  near the compaction trigger"),
        (70, "prompt 4,017 · 6,065 / 16,384  37.0%  near the compaction trigger"),
        (60, "prompt 4,017 · 6,065 / 16,384  37.0%  near trigger"),
    ):
        app = app_for(demo_session(), compact_trigger_ratio=0.3)
        async with app.run_test(size=(width, 40)) as pilot:
            await settle(pilot)
            first = str(app.screen.query_one(BudgetGauge).render()).splitlines()[0]
            assert first.strip() == line, width


async def test_a_gauge_swatch_never_ends_a_line() -> None:
    """At 60 columns the legend wrapped between `░` and `free`; entries now wrap whole.

    The legend is drawn at every width from 30 to 120 columns on the app's own gauge (one
    resize per width cost a frame of the whole screen each), then once through a real resize.
    """
    app = app_for(demo_session())
    async with app.run_test(size=(120, 24)) as pilot:
        await settle(pilot)
        gauge = app.screen.query_one(BudgetGauge)
        plan = app.screen.plan  # type: ignore[attr-defined]
        wrapped = 0
        for width in range(30, 121, 3):
            legend = str(gauge._legend(plan, width)).splitlines()
            wrapped += len(legend) > 1
            for line in legend:
                assert line[:1] in SWATCHES and line[-1:] not in SWATCHES, (width, line)
                assert cell_len(line) <= width, (width, line)
        assert wrapped, "some width made the legend wrap"
        await pilot.resize_terminal(60, 24)
        await pilot.pause()
        await pilot.pause()
        legend = str(gauge.render()).splitlines()[2:]
        assert len(legend) > 1, "60 columns wrap the legend"
        for line in legend:
            assert line[:1] in SWATCHES and line[-1:] not in SWATCHES, line
            assert cell_len(line) <= gauge.content_region.width, line


@pytest.mark.parametrize(
    ("name", "number", "plausible"),
    [
        ("claude_code_replay.jsonl", 260, True),  # read from its last compaction: history too
        ("claude_code_compacted.jsonl", 12, False),  # 1.6 chars/token: said, not split
        ("codex_rollout.jsonl", 9, True),
        ("demo.json", 14, True),  # over its window: said why
    ],
)
async def test_every_shell_gives_the_same_gap(
    name: str, number: int, plausible: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    path = samples_dir() / name
    report = _cli("report", path, capsys)
    replay = _cli("replay", path, capsys)
    gap = report["gap"]
    assert gap == replay["gap"]
    assert gap["request"] + 1 == number
    assert report["reported"]["request"] == gap["request"]
    assert report["calibration"]["plausible"] is plausible is replay["calibration"]["plausible"]
    assert (gap["lacks_tokens"] is not None) is plausible
    if plausible:
        assert gap["lacks_tokens"] + gap["estimator_error_tokens"] == gap["gap_tokens"]
    else:
        assert report["calibration"]["reason"] in gap["sentence"]
    # replay's row of that request is the same request, with the same reported figure
    row = replay["requests"][gap["request"]]
    assert row["reported_tokens"] == gap["reported_tokens"]

    async with app_for(path).run_test(size=WIDE) as pilot:
        await settle(pilot)
        shown = pilot.app.screen.state.reported
        assert shown is not None and shown.as_json() == gap
        gauge_line = str(pilot.app.screen.query_one(BudgetGauge).render()).splitlines()[3]
        # the gap's sentence, then only the last request's dollars where the table prices it
        assert re.fullmatch(
            re.escape(gap["sentence"]) + r"( · last request \$[0-9.]+ · cache hit \d+%)?",
            gauge_line,
        ), gauge_line
        await pilot.press("l")
        screen = pilot.app.screen
        assert isinstance(screen, TimelineScreen)
        for _ in range(40):
            await settle(pilot)
            if screen.replay is not None and screen.gap is not None:
                break
        assert screen.gap is not None and screen.gap.as_json() == gap
        assert str(screen.query_one("#timeline-gap", Static).render()) == gap["sentence"]
        # the timeline's request numbers are replay's: its last request is the same figure
        assert screen.replay is not None
        assert screen.replay.requests[gap["request"]].reported_tokens == gap["reported_tokens"]
