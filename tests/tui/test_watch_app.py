"""`ctxtui --watch FILE`: records appended while the app runs appear; the list keeps its place
unless the cursor was on the last message; a half-written last line waits for its end."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from ctxtui.tui.app import CtxtuiApp, make_app
from ctxtui.tui.screens.main import MainScreen
from ctxtui.tui.settings import deterministic_settings
from ctxtui.tui.widgets.gauge import BudgetGauge
from ctxtui.tui.widgets.message_list import MessageList
from ctxtui.tui.widgets.session_bar import SessionBar


def _line(role: str, text: str) -> str:
    return json.dumps({"role": role, "content": text}) + "\n"


def _chat(path: Path, turns: int) -> Path:
    path.write_text(
        "".join(
            _line("user", f"question {i}") + _line("assistant", f"answer {i}") for i in range(turns)
        ),
        encoding="utf-8",
    )
    return path


def _append(path: Path, text: str) -> None:
    with path.open("a", encoding="utf-8") as fh:
        fh.write(text)


async def _until(pilot: Pilot[Any], done: Callable[[], bool], what: str) -> None:
    """Wait for ``done`` (the watch worker never completes, so waiting for workers would hang)."""
    for _ in range(200):
        if done():
            return
        await pilot.pause(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def _main(app: CtxtuiApp) -> MainScreen:
    return app.main


def _rows(app: CtxtuiApp) -> int:
    plan, session = _main(app).plan, _main(app).session
    if plan is None or session is None or len(plan.message_tokens) != len(session):
        return -1  # the new session is not planned yet
    return _main(app).query_one(MessageList).message_count


async def test_appended_records_appear_and_the_list_keeps_its_place(tmp_path: Path) -> None:
    path = _chat(tmp_path / "live.jsonl", 3)
    app = make_app(path, watch=True, settings=deterministic_settings())
    async with app.run_test(size=(120, 40)) as pilot:
        await _until(pilot, lambda: _rows(app) == 6, "the first read")
        gauge_before = str(_main(app).query_one(BudgetGauge).render())
        messages = _main(app).query_one(MessageList)
        messages.select(2)
        _append(path, _line("user", "question 3 " + "x" * 4000) + _line("assistant", "answer 3"))
        await _until(pilot, lambda: _rows(app) == 8, "the appended records")
        assert messages.cursor == 2, "not at the end: the cursor stays where it was"
        assert "watching the file for new records" in str(_main(app).query_one(SessionBar).render())
        assert str(_main(app).query_one(BudgetGauge).render()) != gauge_before

        await pilot.press("end")
        assert messages.cursor == 7
        _append(path, _line("user", "question 4") + _line("assistant", "answer 4"))
        await _until(pilot, lambda: _rows(app) == 10, "the next records")
        assert messages.cursor == 9, "at the end: the cursor follows the new messages"
        session = _main(app).session
        assert session is not None and session.messages[-1].content == "answer 4"


async def test_a_half_written_last_line_waits_for_its_end(tmp_path: Path) -> None:
    path = _chat(tmp_path / "live.jsonl", 1)
    app = make_app(path, watch=True, settings=deterministic_settings())
    async with app.run_test(size=(120, 40)) as pilot:
        await _until(pilot, lambda: _rows(app) == 2, "the first read")
        whole = _line("user", "question 1")
        half = _line("assistant", "answer 1")
        _append(path, whole + half[:12])
        await _until(pilot, lambda: _rows(app) == 3, "the whole record")
        assert isinstance(app.screen, MainScreen), "a cut-off line is no error"
        _append(path, half[12:])
        await _until(pilot, lambda: _rows(app) == 4, "the finished line")
        session = _main(app).session
        assert session is not None and session.messages[-1].content == "answer 1"


async def test_opening_another_file_stops_watching(tmp_path: Path) -> None:
    path = _chat(tmp_path / "live.jsonl", 1)
    other = _chat(tmp_path / "other.jsonl", 3)
    app = make_app(path, watch=True, settings=deterministic_settings())
    async with app.run_test(size=(120, 40)) as pilot:
        await _until(pilot, lambda: _rows(app) == 2, "the first read")
        _main(app).load(other)
        await _until(pilot, lambda: _rows(app) == 6, "the other file")
        _append(path, _line("user", "question 1"))
        await pilot.pause(1)  # four polls' time: the old file must not come back
        assert _rows(app) == 6 and _main(app).state.path == other
        assert "watching" not in str(_main(app).query_one(SessionBar).render())


async def test_a_recorded_compaction_that_shrinks_the_list_says_so(tmp_path: Path) -> None:
    """Claude Code appends a compact boundary: the list shrinks to what follows it, and a
    notice says the agent compacted; the session bar lists the import's notes."""
    from ctxtui.samples import samples_dir

    lines = (samples_dir() / "claude_code_compacted.jsonl").read_text().splitlines(True)
    boundary = next(i for i, line in enumerate(lines) if "compact_boundary" in line)
    path = tmp_path / "live.jsonl"
    path.write_text("".join(lines[:boundary]))
    app = make_app(path, watch=True, settings=deterministic_settings())
    async with app.run_test(size=(120, 40)) as pilot:
        await _until(pilot, lambda: _rows(app) > 0, "the first read")
        before = _rows(app)
        _append(path, "".join(lines[boundary:]))
        await _until(pilot, lambda: 0 < _rows(app) < before, "the compacted read")
        notes = [n.message for n in app._notifications]
        assert any(
            note.startswith(f"the agent compacted (manual) at line {boundary + 1}")
            and f"from {before:,} →" in note
            for note in notes
        ), notes
        await _until(
            pilot,
            lambda: "compact boundary at line" in str(_main(app).query_one(SessionBar).render()),
            "the boundary's note in the session bar",
        )


async def test_a_file_swapped_for_a_fifo_is_said_and_q_still_quits(tmp_path: Path) -> None:
    path = _chat(tmp_path / "live.jsonl", 1)
    app = make_app(path, watch=True, settings=deterministic_settings())
    async with app.run_test(size=(120, 40)) as pilot:
        await _until(pilot, lambda: _rows(app) == 2, "the first read")
        path.unlink()
        os.mkfifo(path)
        notices = app._notifications  # what the user sees as toasts

        def said() -> bool:
            return any("now a FIFO" in str(n.message) for n in notices)

        await _until(pilot, said, "the notice that the file is now a FIFO")
        assert _rows(app) == 2, "the last good read stays on screen"
        await pilot.press("q")
        await _until(pilot, lambda: not app.is_running, "q to quit")
