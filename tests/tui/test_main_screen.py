"""The main screen in the real app: loading and opening files, following a watched file,
compacting, undoing and exporting, the keys that act on the session, and its snapshots.

Snapshot tests' docstrings say what the reader should see in the SVG; file names on screen
are names only (the sessions carry a fake ``/somewhere/private/`` path that must never show).
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input, Label

from ctxtui.core.session.models import Message, Session, SessionMeta
from ctxtui.importers import load_session
from ctxtui.tui.app import CtxtuiApp, make_app
from ctxtui.tui.command_palette import NOTHING_TO_UNDO
from ctxtui.tui.screens.compaction import CompactionPreviewScreen
from ctxtui.tui.screens.error import ErrorScreen
from ctxtui.tui.screens.export import ExportScreen
from ctxtui.tui.screens.main import MainScreen
from ctxtui.tui.screens.open import OpenSessionScreen
from ctxtui.tui.settings import deterministic_settings
from ctxtui.tui.start import Start
from ctxtui.tui.widgets.busy import BusyRow
from ctxtui.tui.widgets.detail import DetailPane
from ctxtui.tui.widgets.gauge import BudgetGauge
from ctxtui.tui.widgets.message_list import MessageList
from ctxtui.tui.widgets.session_bar import SessionBar
from ctxtui.tui.widgets.settings_panel import SettingsPanel
from tests.tui.main_fixtures import (
    CLAUDE_NAME,
    PAST,
    SnapCompare,
    _footer,
    app_for,
    apply_compaction,
    cjk_session,
    clear_toasts,
    demo_session,
    footer_actions,
    footer_keys,
    press,
    record_toasts,
    settle,
    then,
    until,
    write_native,
)


def bar_text(app: CtxtuiApp) -> str:
    return str(app.main.query_one(SessionBar).render())


def _append(path: Path, text: str) -> None:
    with path.open("a", encoding="utf-8") as fh:
        fh.write(text)


def _chat(path: Path, turns: int) -> Path:
    path.write_text(
        "".join(
            _line("user", f"question {i}") + _line("assistant", f"answer {i}") for i in range(turns)
        ),
        encoding="utf-8",
    )
    return path


def _line(role: str, text: str) -> str:
    return json.dumps({"role": role, "content": text}) + "\n"


def _rows(app: CtxtuiApp) -> int:
    plan, session = app.main.plan, app.main.session
    if plan is None or session is None or len(plan.message_tokens) != len(session):
        return -1  # the new session is not planned yet
    return app.main.query_one(MessageList).message_count


async def test_app_starts_and_shows_the_plan() -> None:
    session = demo_session()
    app = app_for(session)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        main = app.main
        assert main.plan is not None
        messages = app.screen.query_one(MessageList)
        assert messages.message_count == len(session)
        assert messages.row_count == len(session) + 1  # the boundary rule is a row
        assert main.plan.pruned, "the demo is built so old tool outputs are pruned"


async def test_t_jumps_to_the_tail_boundary() -> None:
    app = app_for(demo_session(turns=20))
    async with app.run_test(size=(100, 24)) as pilot:
        await settle(pilot)
        main = app.main
        messages = app.screen.query_one(MessageList)
        assert main.plan is not None
        start = main.plan.tail.start
        assert start > 20, "the boundary must start off screen for the test to mean anything"
        await pilot.press("t")
        await pilot.pause()
        assert messages.cursor == start
        boundary = messages.boundary_row
        assert boundary is not None
        top = messages.scroll_offset.y
        assert top <= boundary < top + messages.size.height


async def test_bad_file_shows_the_error_screen_and_the_app_keeps_running(
    tmp_path: Path,
) -> None:
    bad = tmp_path / "broken.jsonl"
    bad.write_text("{not json at all\n", encoding="utf-8")
    app = app_for(bad)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        from ctxtui.tui.screens.error import ErrorScreen

        assert isinstance(app.screen, ErrorScreen)
        assert "broken.jsonl" in app.screen.message
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, MainScreen)
        assert app.is_running


async def test_open_a_bad_file_keeps_the_current_session(tmp_path: Path) -> None:
    bad = tmp_path / "nope.json"
    bad.write_text("[]", encoding="utf-8")
    app = app_for(demo_session())
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        main = app.main
        session = main.session
        main.load(bad)
        await settle(pilot)
        from ctxtui.tui.screens.error import ErrorScreen

        assert isinstance(app.screen, ErrorScreen)
        await pilot.press("escape")
        assert main.session is session


async def test_options_refused_for_a_session_still_leave_its_own_window() -> None:
    """A reserve too big for *this* session's window is refused, and the plan falls back to
    the preset fitted to the session (its 8,000-token window), not the preset's 131,072."""
    from ctxtui.core.session.models import SessionMeta
    from ctxtui.tui.screens.error import ErrorScreen

    session = demo_session().model_copy(
        update={
            "meta": SessionMeta(source_path="small.jsonl", format="native", context_window=8_000)
        }
    )
    app = make_app(
        session, Start(overrides={"max_tokens": 10_000}), settings=deterministic_settings()
    )
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, ErrorScreen)
        assert app.screen.error_title == "Ignored the policy options"
        main = app.main
        assert main.policy.context_window == 8_000
        assert main.plan is not None and main.plan.totals.window == 8_000


async def test_compaction_apply_then_undo_restores_the_session() -> None:
    session = demo_session(turns=20)
    app = app_for(session)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        main = app.main
        await pilot.press("c")  # the plan preset: the reason only labels, so no dialog
        await settle(pilot)
        from ctxtui.tui.screens.compaction import CompactionPreviewScreen

        assert isinstance(app.screen, CompactionPreviewScreen)
        await pilot.press("a")
        await settle(pilot)
        assert main.session is not session
        assert main.session is not None and len(main.session) < len(session)
        await pilot.press("u")
        await settle(pilot)
        assert main.session is session


async def test_tokenizer_change_counts_in_a_worker_then_replans() -> None:
    app = app_for(demo_session())
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        main = app.main
        old = main.plan
        assert old is not None and old.tokenizer.used == "plan"
        await app.run_action("tokenizer('tiktoken:cl100k_base')", main)
        await settle(pilot)
        assert main.plan is not None and main.plan is not old
        assert main.plan.tokenizer.requested == "tiktoken:cl100k_base"
        assert not app.screen.query_one("#progress-row").display, "progress hides when done"


async def test_export_writes_a_native_session_and_leaves_the_source_untouched(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`e` then Enter on the default path: the file reads back as the same messages, and the
    source's bytes and mtime are as before. The session is opened by a *relative* path, as
    `ctxtui sessions/x.json` does, which used to make the default `sessions/sessions/...`."""
    folder = tmp_path / "sessions"
    folder.mkdir()
    source = write_native(folder / "work.json", demo_session())
    before = source.read_bytes()
    monkeypatch.chdir(tmp_path)
    app = app_for(Path("sessions/work.json"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        loaded = app.main.session
        assert loaded is not None
        await pilot.press("e")
        await pilot.pause()
        assert isinstance(app.screen, ExportScreen)
        assert app.screen.query_one("#path", Input).value == str(folder / "work.ctxtui.json")
        assert str(app.screen.query_one("#title", Label).render()).startswith("Export session")
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen), "written without an error dialog"
    target = folder / "work.ctxtui.json"
    back = load_session(target)
    assert back.meta.format == "native"
    assert [(m.role, m.content) for m in back.messages] == [
        (m.role, m.content) for m in loaded.messages
    ]
    assert back.system_prompt == loaded.system_prompt
    assert source.read_bytes() == before
    assert source.stat().st_mtime == PAST


async def test_export_from_the_preview_writes_the_compacted_session(tmp_path: Path) -> None:
    """`c` (the preview at once: proactive), `x`: the dialog says *compacted*, and the file
    holds the summary message in place of the older history."""
    source = write_native(tmp_path / "long.json", demo_session(turns=20))
    app = app_for(source)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        original = app.main.session
        assert original is not None
        await pilot.press("c")
        await settle(pilot)
        assert isinstance(app.screen, CompactionPreviewScreen)
        await pilot.press("x")
        await pilot.pause()
        assert isinstance(app.screen, ExportScreen)
        title = str(app.screen.query_one("#title", Label).render())
        assert title.startswith("Export compacted session")
        await pilot.press("enter")
        await settle(pilot)
        assert app.main.session is original, "exporting does not apply"
    back = load_session(tmp_path / "long.ctxtui.json")
    assert len(back.messages) < len(original.messages)
    assert sum(m.is_summary for m in back.messages) == 1
    assert source.stat().st_mtime == PAST


async def test_export_writes_off_the_ui_thread_and_reports_a_refusal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Writing 100,000 messages takes seconds, so it runs in a worker with the busy row up;
    what the core refuses (here a device, even after 'overwrite' is confirmed) is shown."""
    import ctxtui.system.export as export

    threads: list[bool] = []
    real = export.write_session

    def spy(
        session: Session, path: Path, *, protected: frozenset[Path], force: bool = False
    ) -> Path:
        threads.append(threading.current_thread() is threading.main_thread())
        return real(session, path, protected=protected, force=force)

    monkeypatch.setattr(export, "write_session", spy)
    monkeypatch.chdir(tmp_path)
    app = app_for(demo_session())
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("e")
        await pilot.pause()
        app.screen.query_one("#path", Input).value = "/dev/null"
        await pilot.press("enter", "enter")  # exists: asked, then confirmed
        await settle(pilot)
        assert isinstance(app.screen, ErrorScreen)
        assert app.screen.error_title == "Could not export"
        assert "special file" in app.screen.message
        assert not app.main.query_one(BusyRow).display
    assert threads == [False]


async def test_o_opens_a_second_good_file_in_place_of_the_first(tmp_path: Path) -> None:
    """`o`, type a path, Enter: the new session replaces the old one (list, session bar,
    cursor back at the top) and the old session's undo history goes with it."""
    first = write_native(tmp_path / "first.json", demo_session(turns=20))
    second = write_native(tmp_path / "second.json", cjk_session())
    app = app_for(first)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        main = app.main
        await pilot.press("c")
        await settle(pilot)
        await pilot.press("a")  # applied: there is something to undo now
        await settle(pilot)
        await pilot.press("end")
        await pilot.press("o")
        await pilot.pause()
        assert isinstance(app.screen, OpenSessionScreen)
        await pilot.press("tab", *second.name, "enter")
        await pilot.pause()
        assert isinstance(app.screen, MainScreen)
        await settle(pilot)
        assert main.session is not None
        assert [m.content for m in main.session.messages] == [
            m.content for m in load_session(second).messages
        ]
        assert bar_text(app).startswith("second.json · native · 5 messages")
        assert app.screen.query_one(MessageList).cursor == 0
        await pilot.press("u")
        await pilot.pause()
        assert main.session.messages[0].content.startswith("请帮我"), "undo history went too"


async def test_loading_names_the_file_and_its_size(tmp_path: Path) -> None:
    """While a file is read the busy row says which file and how big, not just a bar."""
    path = write_native(tmp_path / "big.json", demo_session(turns=20))
    app = app_for(demo_session())
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.main.load(path)
        busy = app.screen.query_one(BusyRow)
        size = path.stat().st_size
        assert busy.text == f"loading big.json ({size / 1000:,.1f} kB)…"
        await settle(pilot)
        assert not busy.display


async def test_a_failed_first_load_says_no_session_is_open(tmp_path: Path) -> None:
    """After the error is dismissed the screen must not keep saying 'loading…'."""
    bad = tmp_path / "notes.json"
    bad.write_text("[1, 2, 3]", encoding="utf-8")
    app = app_for(bad)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, ErrorScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert "no session open" in str(app.screen.query_one(BudgetGauge).render())
        assert "press o to open a session file" in bar_text(app)
        assert not app.screen.query_one(BusyRow).display


async def test_keys_keep_working_while_a_session_loads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The load is held open until the test lets it finish: meanwhile the current session
    stays on screen, the busy row says what is loading, and the keys still move and open."""
    import ctxtui.importers as importers

    gate = threading.Event()
    real = importers.load_session

    def held(path: Path, format: str | None = None, **kwargs: Any) -> Session:
        assert gate.wait(60), "the test never released the load"
        return real(path, format, **kwargs)

    monkeypatch.setattr(importers, "load_session", held)
    path = write_native(tmp_path / "next.json", cjk_session())
    app = app_for(demo_session())
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        main = app.main
        before = main.session
        main.load(path)
        await pilot.press("down", "down")
        assert app.screen.query_one(MessageList).cursor == 2
        await pilot.press("s")
        assert app.screen.query_one(SettingsPanel).display
        await pilot.press("escape")
        assert app.screen.query_one(BusyRow).text.startswith("loading next.json")
        assert main.session is before
        gate.set()
        await settle(pilot)
        assert main.session is not before and len(main.session or ()) == 5
        assert not app.screen.query_one(BusyRow).display


async def test_keys_with_nothing_to_act_on_are_dimmed() -> None:
    """Undo is dimmed until a compaction is applied; before any session is open, compact,
    export, search and tail are dimmed too (they used to do nothing, silently)."""

    def dimmed(app: CtxtuiApp) -> set[str]:
        return {k.action for k in footer_keys(app) if k.has_class("-disabled")}

    app = app_for(demo_session(turns=20))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert dimmed(app) == {"undo"}
        await apply_compaction(pilot)
        assert dimmed(app) == set()
        await pilot.press("u")
        await settle(pilot)
        assert dimmed(app) == {"undo"}


async def test_before_any_session_the_session_keys_are_dimmed(tmp_path: Path) -> None:
    bad = tmp_path / "notes.json"
    bad.write_text("[1, 2, 3]", encoding="utf-8")
    app = app_for(bad)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("escape")  # the error dialog
        await pilot.pause()
        dimmed = {k.action for k in footer_keys(app) if k.has_class("-disabled")}
        assert {"compact", "undo", "export", "search", "jump_tail"} <= dimmed
        assert "open" not in dimmed


async def test_undo_says_what_it_undid_and_when_there_is_nothing_to_undo() -> None:
    """`u` used to restore the session without a word, and with nothing applied (the key is
    dimmed) pressing it did nothing at all."""
    session = demo_session(turns=20)
    app = app_for(session)
    seen: list[str] = []
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await record_toasts(seen)(pilot)
        await pilot.press("u")
        await pilot.pause()
        assert seen == [NOTHING_TO_UNDO]

        await apply_compaction(pilot)
        compacted = len(app.screen.session)  # type: ignore[attr-defined]
        seen.clear()
        await pilot.press("u")
        await settle(pilot)
        assert len(app.screen.session) == len(session)  # type: ignore[attr-defined]
        assert seen == [
            f"Undid the compaction: back to {len(session)} messages "
            f"(the compacted session had {compacted})."
        ]

        seen.clear()
        await pilot.press("u")
        await pilot.pause()
        assert seen == [NOTHING_TO_UNDO]


async def test_appended_records_appear_and_the_list_keeps_its_place(tmp_path: Path) -> None:
    path = _chat(tmp_path / "live.jsonl", 3)
    app = make_app(path, Start(watch=True), settings=deterministic_settings())
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: _rows(app) == 6, "the first read")
        gauge_before = str(app.main.query_one(BudgetGauge).render())
        messages = app.main.query_one(MessageList)
        messages.select(2)
        _append(path, _line("user", "question 3 " + "x" * 4000) + _line("assistant", "answer 3"))
        await until(pilot, lambda: _rows(app) == 8, "the appended records")
        assert messages.cursor == 2, "not at the end: the cursor stays where it was"
        assert "watching the file for new records" in str(app.main.query_one(SessionBar).render())
        assert str(app.main.query_one(BudgetGauge).render()) != gauge_before

        await pilot.press("end")
        assert messages.cursor == 7
        _append(path, _line("user", "question 4") + _line("assistant", "answer 4"))
        await until(pilot, lambda: _rows(app) == 10, "the next records")
        assert messages.cursor == 9, "at the end: the cursor follows the new messages"
        session = app.main.session
        assert session is not None and session.messages[-1].content == "answer 4"


async def test_a_half_written_last_line_waits_for_its_end(tmp_path: Path) -> None:
    path = _chat(tmp_path / "live.jsonl", 1)
    app = make_app(path, Start(watch=True), settings=deterministic_settings())
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: _rows(app) == 2, "the first read")
        whole = _line("user", "question 1")
        half = _line("assistant", "answer 1")
        _append(path, whole + half[:12])
        await until(pilot, lambda: _rows(app) == 3, "the whole record")
        assert isinstance(app.screen, MainScreen), "a cut-off line is no error"
        _append(path, half[12:])
        await until(pilot, lambda: _rows(app) == 4, "the finished line")
        session = app.main.session
        assert session is not None and session.messages[-1].content == "answer 1"


async def test_opening_another_file_stops_watching(tmp_path: Path) -> None:
    path = _chat(tmp_path / "live.jsonl", 1)
    other = _chat(tmp_path / "other.jsonl", 3)
    app = make_app(path, Start(watch=True), settings=deterministic_settings())
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: _rows(app) == 2, "the first read")
        app.main.load(other)
        await until(pilot, lambda: _rows(app) == 6, "the other file")
        _append(path, _line("user", "question 1"))
        await pilot.pause(1)  # four polls' time: the old file must not come back
        assert _rows(app) == 6 and app.main.state.path == other
        assert "watching" not in str(app.main.query_one(SessionBar).render())


async def test_a_recorded_compaction_that_shrinks_the_list_says_so(tmp_path: Path) -> None:
    """Claude Code appends a compact boundary: the list shrinks to what follows it, and a
    notice says the agent compacted; the session bar lists the import's notes."""
    from ctxtui.samples import samples_dir

    lines = (samples_dir() / "claude_code_compacted.jsonl").read_text().splitlines(True)
    boundary = next(i for i, line in enumerate(lines) if "compact_boundary" in line)
    path = tmp_path / "live.jsonl"
    path.write_text("".join(lines[:boundary]))
    app = make_app(path, Start(watch=True), settings=deterministic_settings())
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: _rows(app) > 0, "the first read")
        before = _rows(app)
        _append(path, "".join(lines[boundary:]))
        await until(pilot, lambda: 0 < _rows(app) < before, "the compacted read")
        notes = [n.message for n in app._notifications]
        assert any(
            note.startswith(f"the agent compacted (manual) at line {boundary + 1}")
            and f"from {before:,} →" in note
            for note in notes
        ), notes
        await until(
            pilot,
            lambda: "compact boundary at line" in str(app.main.query_one(SessionBar).render()),
            "the boundary's note in the session bar",
        )


async def test_another_agents_file_moved_in_is_opened_with_its_own_preset(
    tmp_path: Path, empty_home: Path
) -> None:
    """A Codex rollout moved over a watched Claude Code transcript is another session, not
    the same one grown: it opens under the codex preset, and the Claude note goes."""
    from ctxtui.samples import samples_dir
    from ctxtui.tui.settings import _Pinned

    path = tmp_path / "live.jsonl"
    path.write_bytes((samples_dir() / "claude_code_compacted.jsonl").read_bytes())
    unpinned = _Pinned(theme="textual-dark", tokenizer="plan", cursor_blink=False)
    app = make_app(path, Start(watch=True), settings=unpinned)  # each file its agent's preset
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: _rows(app) > 0, "the first read")
        assert app.main.state.preset_name == "claude-code"
        moved = tmp_path / "moved.jsonl"
        moved.write_bytes((samples_dir() / "codex_rollout.jsonl").read_bytes())
        moved.replace(path)
        await until(pilot, lambda: app.main.state.preset_name == "codex", "the codex preset")
        session = app.main.session
        assert session is not None and session.meta.format == "codex"
        assert "compaction lost" not in str(app.main.query_one(SessionBar).render())


async def test_a_transcript_that_never_pauses_still_gets_its_history(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An agent that writes more often than ``HISTORY_QUIET`` still has its history read,
    every ``HISTORY_EVERY`` at most: the figures only the history gives come back."""
    from ctxtui.samples import samples_dir
    from ctxtui.tui import jobs

    monkeypatch.setattr(jobs, "HISTORY_QUIET", 3600.0)  # never quiet long enough
    monkeypatch.setattr(jobs, "HISTORY_EVERY", 0.5)
    lines = (samples_dir() / "claude_code_replay.jsonl").read_text().splitlines(True)
    boundary = next(i for i, line in enumerate(lines) if "compact_boundary" in line)
    path = tmp_path / "live.jsonl"
    path.write_text("".join(lines[: boundary + 5]))
    app = make_app(path, Start(watch=True), settings=deterministic_settings())
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: _rows(app) > 0, "the first read")
        for line in lines[boundary + 5 : boundary + 40]:
            _append(path, line)
            await pilot.pause(0.1)
            if app.main.state.history is not None:
                break
        assert app.main.state.history is not None, "the history was read while it grew"


def _replay_lines() -> tuple[list[str], list[int]]:
    """The Claude Code replay sample's lines and the indices of its compact boundaries."""
    from ctxtui.samples import samples_dir

    lines = (samples_dir() / "claude_code_replay.jsonl").read_text().splitlines(True)
    return lines, [i for i, line in enumerate(lines) if "compact_boundary" in line]


def _bar(app: CtxtuiApp) -> str:
    return str(app.main.query_one(SessionBar).render())


def _no_history_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    """From here on the watch job reads no history: no pause is long enough, no deadline near."""
    from ctxtui.tui import jobs

    monkeypatch.setattr(jobs, "HISTORY_QUIET", 3600.0)
    monkeypatch.setattr(jobs, "HISTORY_EVERY", 3600.0)


async def test_a_first_history_read_past_the_session_is_read_again_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The agent wrote between the first read and its history's: that history is not the
    session's, and is read again after the next poll, not left for the agent's next pause."""
    from ctxtui.importers.watch import SessionWatcher

    lines, boundaries = _replay_lines()
    path = tmp_path / "live.jsonl"
    path.write_text("".join(lines[: boundaries[-1] + 5]))
    _no_history_reads(monkeypatch)
    real = SessionWatcher.history
    wrote: list[int] = []

    def written_meanwhile(watcher: SessionWatcher) -> Session:
        if not wrote:  # the agent writes between the first read and its history's
            wrote.append(1)
            _append(path, "".join(lines[boundaries[-1] + 5 : boundaries[-1] + 9]))
        return real(watcher)

    monkeypatch.setattr(SessionWatcher, "history", written_meanwhile)
    app = make_app(path, Start(watch=True), settings=deterministic_settings())
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: app.main.state.history is not None, "the history")
        history, session = app.main.state.history, app.main.session
        assert history is not None and session is not None
        assert history.messages[-1] == session.messages[-1], "both up to the same record"


async def test_a_new_compaction_gets_its_own_note_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The session bar's "last compaction lost" follows a watched file's new compaction
    without waiting for the agent to pause: the history is read on as the boundary lands."""
    lines, boundaries = _replay_lines()
    path = tmp_path / "live.jsonl"
    path.write_text("".join(lines[: boundaries[1] + 5]))
    app = make_app(path, Start(watch=True), settings=deterministic_settings())
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: "lost 1 of 1 facts" in _bar(app), "the first note")
        _no_history_reads(monkeypatch)
        _append(path, "".join(lines[boundaries[1] + 5 :]))
        await until(pilot, lambda: "lost 14 of 14 facts" in _bar(app), "the new one's note")
        # what follows the compaction is still being written: more of it may be needed
        assert "lost 14 of 14 facts needed after it so far" in _bar(app)


async def test_the_band_holds_while_the_file_grows_without_a_new_compaction(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The session bar's "(N auto)" comes from the history; appends that bring no new
    compaction leave the history's compactions as they were, so the bar does not fall back
    to the segment's "(1 auto so far)" between two reads of the history."""
    lines, boundaries = _replay_lines()
    path = tmp_path / "live.jsonl"
    path.write_text("".join(lines[: boundaries[-1] + 5]))
    app = make_app(path, Start(watch=True), settings=deterministic_settings())
    async with app.run_test(size=(120, 40)) as pilot:

        def whole_band() -> bool:
            return "auto)" in _bar(app) and "auto so far" not in _bar(app)

        await until(pilot, whole_band, "the history's band")
        whole = _bar(app)
        _no_history_reads(monkeypatch)
        rows = _rows(app)
        _append(path, "".join(lines[boundaries[-1] + 5 : boundaries[-1] + 15]))
        await until(pilot, lambda: _rows(app) not in (-1, rows), "the appended records")
        assert app.main.state.history is None, "the history no longer ends with the session"
        assert "auto so far" not in _bar(app)
        band = next(line for line in whole.splitlines() if "agent compacted at" in line)
        assert band in _bar(app)


async def test_a_watched_files_dollars_stay_said_to_be_before_the_newest_records(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Between two reads of a growing file's history its recorded dollars stay on the bar,
    said to come before the newest records, rather than the row going at each append; the
    next read of the history prices the file as it now is."""
    from ctxtui.tui import jobs
    from ctxtui.tui.widgets.session_bar import BEFORE_NEWEST

    lines, boundaries = _replay_lines()
    path = tmp_path / "live.jsonl"
    path.write_text("".join(lines[: boundaries[-1] + 5]))
    app = make_app(path, Start(watch=True), settings=deterministic_settings())
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: "recorded $" in _bar(app), "the recorded dollars")
        _no_history_reads(monkeypatch)
        rows = _rows(app)
        _append(path, "".join(lines[boundaries[-1] + 5 : boundaries[-1] + 15]))
        await until(pilot, lambda: _rows(app) not in (-1, rows), "the appended records")
        assert "recorded $" in _bar(app) and BEFORE_NEWEST in _bar(app)
        monkeypatch.setattr(jobs, "HISTORY_QUIET", 0.0)
        await until(pilot, lambda: BEFORE_NEWEST not in _bar(app), "the file priced again")
        assert "recorded $" in _bar(app)


async def test_a_file_swapped_for_a_fifo_is_said_and_q_still_quits(tmp_path: Path) -> None:
    path = _chat(tmp_path / "live.jsonl", 1)
    app = make_app(path, Start(watch=True), settings=deterministic_settings())
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: _rows(app) == 2, "the first read")
        path.unlink()
        os.mkfifo(path)
        notices = app._notifications  # what the user sees as toasts

        def said() -> bool:
            return any("now a FIFO" in str(n.message) for n in notices)

        await until(pilot, said, "the notice that the file is now a FIFO")
        assert _rows(app) == 2, "the last good read stays on screen"
        await pilot.press("q")
        await until(pilot, lambda: not app.is_running, "q to quit")


async def test_80x24_shows_14_rows_and_the_footer_keeps_help_and_quit() -> None:
    """At 80×24 only 11 rows showed and the footer had lost `q`."""
    app = app_for(demo_session())
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        pane = app.screen.query_one(DetailPane)
        assert app.screen.query_one(MessageList).size.height >= 14
        assert pane.display and pane.region.bottom <= 23, "the pane fits above the footer"
        assert {"help", "quit"} <= footer_actions(app)


async def test_counting_a_one_message_session_says_1_message(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    said: list[str] = []
    start = BusyRow.start

    def spy(self: BusyRow, text: str, *, total: int | None = None) -> None:
        said.append(text)
        start(self, text, total=total)

    monkeypatch.setattr(BusyRow, "start", spy)
    one = Session(
        messages=(Message(role="user", content="hi"),),
        meta=SessionMeta(source_path="/x/one.jsonl"),
    )
    async with app_for(one).run_test(size=(100, 30)) as pilot:
        await settle(pilot)
    assert "counting 1 message with plan…" in said, said


async def test_80x24_keeps_the_views_help_quit_and_14_messages() -> None:
    app = app_for(demo_session(name=CLAUDE_NAME))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        footer = _footer(app)
        for words in ("v T l F Views", "? Help", "q Quit", "^p palette"):
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


def test_demo_80x24(snap_compare: SnapCompare) -> None:
    """Demo at 80×24: gauge (figures, bar, legend) on top, the session bar naming `demo.jsonl`
    (no directory), 14 rows of the message list with short roles, and a short detail pane
    below the list showing message #0; the footer keeps `? Help` and `q Quit` whole, leaving
    out `u` and `e` first, and `^p palette` intact."""
    assert snap_compare(app_for(demo_session()), terminal_size=(80, 24), run_before=then())


def test_demo_120x40(snap_compare: SnapCompare) -> None:
    """Demo at 120×40: the detail pane sits right of the list; rows show index, role, tool
    name, literal preview, tokens and an eighth-block bar; the fresh-tail rule is on screen
    with its `fresh tail · N / M tok · min 2 turns` label; tail rows are green."""
    assert snap_compare(app_for(demo_session()), terminal_size=(120, 40), run_before=then())


def test_boundary_after_t(snap_compare: SnapCompare) -> None:
    """A 20-turn session after `t`: the fresh-tail rule is the top row of the list and the
    cursor is on the first tail message right below it."""
    app = app_for(demo_session(turns=20))
    assert snap_compare(app, terminal_size=(100, 30), run_before=then(press("t")))


def test_narrow_60x20(snap_compare: SnapCompare) -> None:
    """60×20: the detail pane is hidden (`d` shows it), roles are abbreviated (asst), the
    tool column is gone, the gauge legend wraps whole entries, and the list, gauge and footer
    still fit: the footer keeps c, /, d, ? and q and the palette whole and leaves out the
    rest rather than cutting one in half."""
    assert snap_compare(app_for(demo_session()), terminal_size=(60, 20), run_before=then())


def test_overflow_state(snap_compare: SnapCompare) -> None:
    """A 2,304-token window the demo cannot fit: the gauge figures are red with
    `over by N`, the bar shows the dropped history in red, every row above the rule is red
    (dropped), and the session bar says why it `cannot fit: the fresh tail … does not fit …`."""
    app = app_for(demo_session(), context_window=2_304, max_tokens=1_024)
    assert snap_compare(app, terminal_size=(120, 30), run_before=then())


def test_after_apply(snap_compare: SnapCompare) -> None:
    """A 20-turn session after `c`, Enter (proactive), `a`: the list starts with the summary
    row (#0, tagged `summary`), the fresh-tail rule sits right under it with the tail's
    messages below, the session bar says `compacted (u undoes, 1 deep)`, and the gauge shows
    the smaller request with a green (ok) figure.

    The "Compacted" toast is recorded as posted and cleared before the screenshot: it expires
    after three seconds, so whether it is still on screen would depend on the machine's load."""
    app = app_for(demo_session(turns=20))
    toasts: list[str] = []
    steps = then(record_toasts(toasts), press("c"), press("a"), clear_toasts())
    assert snap_compare(app, terminal_size=(120, 40), run_before=steps)
    assert "Compacted: 26 messages now." in toasts


def test_light_theme(snap_compare: SnapCompare) -> None:
    """The demo in catppuccin-latte: the index column and the gauge's and session bar's
    labels are a readable grey (they were white on the light surface), the cursor row is a
    soft highlight, and the fresh-tail rule is orange on the list's own background."""
    app = make_app(
        demo_session(),
        Start(preset="plan", overrides={"context_window": 16_384, "max_tokens": 2_048}),
        settings=deterministic_settings(theme="catppuccin-latte"),
    )
    assert snap_compare(app, terminal_size=(100, 30), run_before=then())


async def test_a_watched_transcript_numbers_requests_as_a_whole_read_does(
    tmp_path: Path,
) -> None:
    """After an append, and after an append that holds a new compaction, the request the
    gauge compares with the API is numbered from the transcript's first request, as when
    the file is opened whole (a new boundary used to restart the numbering)."""
    from ctxtui.core.tokens.calibration import history_fit

    sample = Path(__file__).resolve().parents[2] / "sample_sessions" / "claude_code_replay.jsonl"
    lines = sample.read_bytes().splitlines(keepends=True)
    boundaries = [i for i, line in enumerate(lines) if b'"compact_boundary"' in line]
    assert len(boundaries) >= 2
    first, second = boundaries[0], boundaries[1]
    path = tmp_path / "live.jsonl"
    path.write_bytes(b"".join(lines[: first + 20]))

    def whole_first_request() -> int | None:
        fit = history_fit(load_session(path, full_history=True), load_session(path))
        return fit.first_request

    app = make_app(path, Start(watch=True), settings=deterministic_settings())
    async with app.run_test(size=(120, 40)) as pilot:
        for end in (second - 5, second + 40):
            expected_rows = len(load_session(path))
            await until(pilot, lambda n=expected_rows: _rows(app) == n, "the read")
            fit = app.main.state.fit
            assert fit is not None and fit.first_request == whole_first_request()
            with path.open("ab") as out:
                out.write(b"".join(lines[len(path.read_bytes().splitlines()) : end]))
        expected_rows = len(load_session(path))
        await until(pilot, lambda: _rows(app) == expected_rows, "the new compaction")
        fit = app.main.state.fit
        assert fit is not None and fit.first_request == whole_first_request()


async def test_a_watched_transcript_has_its_history_figures_again_once_it_pauses(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An append drops what only the full history says (the recorded total, the band of every
    compaction): the history of the grown file is read again once it stops changing, and the
    bar says what a fresh open of the same file says."""
    from ctxtui.tui import jobs
    from ctxtui.tui.state import MainState

    monkeypatch.setattr(jobs, "HISTORY_QUIET", 0.3)
    sample = Path(__file__).resolve().parents[2] / "sample_sessions" / "claude_code_replay.jsonl"
    lines = sample.read_bytes().splitlines(keepends=True)
    last = max(i for i, line in enumerate(lines) if b'"compact_boundary"' in line)
    path = tmp_path / "live.jsonl"
    path.write_bytes(b"".join(lines[: last + 10]))
    app = make_app(path, Start(watch=True), settings=deterministic_settings())
    async with app.run_test(size=(200, 40)) as pilot:
        bar = app.main.query_one(SessionBar)
        await until(pilot, lambda: "recorded $" in str(bar.render()), "the first total")
        _append(path, b"".join(lines[last + 10 : last + 30]).decode())
        grown = len(load_session(path))
        await until(pilot, lambda: _rows(app) == grown, "the appended records")
        await until(pilot, lambda: app.main.state.history is not None, "the history again")
        await until(pilot, lambda: "recorded $" in str(bar.render()), "the total again")
        history = load_session(path, full_history=True)
        fresh, _ = MainState.start(None, {})
        fresh, _ = fresh.opened(load_session(path), path)
        assert fresh.session is not None
        fresh = fresh.with_history(fresh.session, history, None)
        assert app.main.state.observed_words == fresh.observed_words
        assert len(history.meta.recorded_compactions) >= 2
        assert f"({len(history.meta.recorded_compactions)} auto)" in fresh.observed_words[0]


async def test_a_view_open_over_a_watched_file_says_once_that_the_file_grew(
    tmp_path: Path,
) -> None:
    """The timeline replays what it was given: when the watched file grows under it, a
    notice says the view shows the file as it was (once per view, not once per append)."""
    from ctxtui.tui.screens.main import GREW_UNDER_A_VIEW
    from ctxtui.tui.screens.timeline import TimelineScreen

    path = _chat(tmp_path / "live.jsonl", 3)
    app = make_app(path, Start(watch=True), settings=deterministic_settings())
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: _rows(app) == 6, "the first read")
        await pilot.press("l")
        await until(pilot, lambda: isinstance(app.screen, TimelineScreen), "the timeline")

        def told() -> int:
            return sum(GREW_UNDER_A_VIEW in n.message for n in app._notifications)

        for turn in (3, 4):
            _append(path, _line("user", f"question {turn}") + _line("assistant", "answer"))
            rows = 2 * (turn + 1)
            await until(pilot, lambda n=rows: len(app.main.session or ()) == n, "the append")
        assert told() == 1


def test_a_screen_mounted_without_its_widgets_does_nothing() -> None:
    """A stop signal as a served app started (``serve``, then SIGTERM 0.3 s after a browser
    connected) ended the app while its main screen mounted: the screen's widgets were gone,
    and ``on_mount`` printed an internal error (NoMatches: 'MessageList') on serve's stderr."""
    screen = MainScreen(demo_session())
    screen.on_mount()  # not composed: no list to focus, nothing to load
