"""One gap, one sentence: the gauge, `report`, `replay` and the timeline agree (issue 24, 7-8).

For the same session and policy, each shell shows the API's count of the last reported
request beside ctxtui's, numbered from the transcript's first request, with the gap split
into what the transcript lacks and the estimator's error (or why it is not split), in the
words ``core.simulation.reported.ReportedGap.lines`` gives. A wide terminal shows the longest of
them.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Static

from ctxtui.cli import main
from ctxtui.samples import samples_dir
from ctxtui.tui.screens.timeline import TimelineScreen
from ctxtui.tui.widgets.gauge import BudgetGauge
from tests.tui.main_fixtures import RESERVE, WINDOW, app_for, settle

WIDE = (400, 50)
"""Wide enough for the longest line on every shell."""


def _cli(command: str, path: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    knobs = ["--context-window", str(WINDOW), "--max-tokens", str(RESERVE)]
    assert main([command, str(path), "--json", *knobs]) == 0
    doc: dict[str, Any] = json.loads(capsys.readouterr().out)
    return doc


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
            re.escape(gap["sentence"]) + r"( · \$[0-9.]+ · cache hit \d+%)?", gauge_line
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
