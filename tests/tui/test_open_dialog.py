"""The open dialog (`o`, `ctxtui --pick`): the agents' sessions and the samples, filtered by
typing, opened with Enter; discovered in a worker from fake stores under a temporary HOME."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from screen_fixtures import SIZE, HostApp
from textual.widgets import (
    Input,
    Static,
)

from ctxtui.samples import samples_dir
from ctxtui.tui.app import make_app
from ctxtui.tui.pick_rows import matching, pick_rows, sample_sessions
from ctxtui.tui.screens.error import ErrorScreen
from ctxtui.tui.screens.main import MainScreen
from ctxtui.tui.screens.open import OpenSessionScreen
from ctxtui.tui.settings import deterministic_settings
from ctxtui.tui.start import Start
from ctxtui.tui.widgets.session_table import SessionTable
from tests.test_stores import _claude, _codex, _jsonl, _opencode_db
from tests.tui.main_fixtures import SnapCompare, settle


def _agents(screen: OpenSessionScreen) -> list[str]:
    return [row.cells[0] for row in screen.shown]


def _app(**kw: object):  # type: ignore[no-untyped-def]
    return make_app(None, Start(pick=True), settings=deterministic_settings(), **kw)  # type: ignore[arg-type]


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Fake stores of all four agents, one sub-agent and one corrupt file, under a fake HOME."""
    home = tmp_path / "home"
    for name in ("HOME", "CLAUDE_CONFIG_DIR", "CODEX_HOME", "XDG_DATA_HOME", "PICOCLAW_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    claude = home / ".claude"
    parent = _claude(claude, "-home-me-proj", "s1", "2026-11-01T09:00:00Z", "claude-sonnet-4-5")
    sub = _claude(parent.parent / "s1" / "subagents", ".", "x", "2026-11-01T09:01:00Z", "haiku")
    sub.rename(parent.parent / "s1" / "subagents" / "agent-x.jsonl")
    _claude(claude, "-home-me-shop", "s2", "2026-10-28T16:30:00Z", "claude-opus-4-1")
    _codex(home / ".codex", "2026-11-02T10:00:00Z")
    _opencode_db(home / ".local" / "share" / "opencode" / "opencode.db")
    pico = home / ".picoclaw" / "workspace" / "sessions"
    _jsonl(pico / "chat.jsonl", [{"role": "user", "content": "hi"}])
    (pico / "chat.meta.json").write_text(
        json.dumps({"key": "k", "created_at": "2026-10-30T08:00:00Z", "scope": {"channel": "tg"}})
    )
    bad = home / ".codex" / "sessions" / "2026" / "11" / "02" / "rollout-bad.jsonl.zst"
    bad.write_bytes(b"\x28\xb5\x2f\xfd" + b"\xff" * 64)
    for path in home.rglob("*"):
        os.utime(path, (STAMP, STAMP))
    yield home
    monkeypatch.undo()
    time.tzset()


STAMP = 1_793_000_000  # a fixed mtime for files whose head names no start


def test_open_sessions_120x40(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, snap_compare: SnapCompare
) -> None:
    """`ctxtui --pick` at 120×40: the dialog over an empty main screen, the filter focused; rows
    newest first: codex /srv/app, opencode /w/b · second, claude-code /home/me/proj with its
    `└ sub-agent agent-x` under it, the corrupt Codex file (`unreadable: …`), picoclaw tg,
    the other Claude session and OpenCode /w/a, then the bundled samples; the count line and
    the highlighted row's path under the home directory as `~/.codex/…`. The samples are two
    stand-ins (`demo.json`, `chat.jsonl`), so editing a real sample moves nothing here."""
    samples = tmp_path / "samples"
    samples.mkdir()
    (samples / "demo.json").write_text("{}" * 600)
    (samples / "chat.jsonl").write_text("{}\n" * 30)
    (samples / "chat.meta.json").write_text("{}")
    monkeypatch.setattr("ctxtui.samples.samples_dir", lambda: samples)
    assert snap_compare(_app(), terminal_size=(120, 40), run_before=settle)


async def test_typing_filters_and_enter_opens_the_chosen_session(home: Path) -> None:
    app = _app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, OpenSessionScreen)
        assert app.screen.query_one("#filter", Input).has_focus
        agents = _agents(screen)
        assert agents[:3] == ["codex", "opencode", "claude-code"]
        assert {"picoclaw", "└ sub-agent", "sample"} <= set(agents)
        bad = [row for row in screen.shown if row.found.error]
        assert [row.found.path.name for row in bad] == ["rollout-bad.jsonl.zst"]
        assert bad[0].cells[1].startswith("unreadable: ")

        await pilot.press(*"shop")
        assert [row.found.project for row in screen.shown] == ["/home/me/proj"]
        assert len(screen.query_one(SessionTable).rows) == 1
        assert "1 of" in str(screen.query_one("#found", Static).render())
        await pilot.press("enter")
        await settle(pilot)
        main = app.screen
        assert isinstance(main, MainScreen)
        assert main.state.path == home / ".claude" / "projects" / "-home-me-shop" / "s2.jsonl"
        assert main.session is not None and main.session.messages[-1].content == "hello"


async def test_arrows_choose_a_row_while_the_filter_has_the_keys(home: Path) -> None:
    """A parent's sub-agents stay with it under the filter; ↓ picks the sub-agent, which opens
    as a session of its own."""
    app = _app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, OpenSessionScreen)
        await pilot.press(*"sonnet")
        assert _agents(screen) == ["claude-code", "└ sub-agent"]
        await pilot.press("down", "enter")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)
        assert app.screen.state.path is not None
        assert app.screen.state.path.name == "agent-x.jsonl"


async def test_an_opencode_database_session_opens_by_its_id(home: Path) -> None:
    """The row names one session of the database; the fake database has no message parts, so
    the importer's refusal (about that database) is what the user sees."""
    app = _app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, OpenSessionScreen)
        await pilot.press(*"second")
        (row,) = screen.shown
        assert str(row.target) == f"{home}/.local/share/opencode/opencode.db#ses_B"
        assert str(screen.query_one("#target", Static).render()).endswith("opencode.db#ses_B")
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, ErrorScreen)
        assert "opencode.db: cannot read the OpenCode database" in str(
            app.screen.query_one("#message", Static).render()
        )


async def test_a_corrupt_entry_says_why_instead_of_opening(home: Path) -> None:
    app = _app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press(*"rollout-bad", "enter")
        screen = app.screen
        assert isinstance(screen, OpenSessionScreen)
        problem = str(screen.query_one("#problem", Static).render())
        assert problem.startswith("Cannot open this one: ")


async def test_the_path_input_still_opens_any_file(home: Path, tmp_path: Path) -> None:
    other = _jsonl(tmp_path / "elsewhere" / "chat.jsonl", [{"role": "user", "content": "hi"}])
    app = _app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("tab")
        assert app.screen.query_one("#path", Input).has_focus
        app.screen.query_one("#path", Input).value = str(other)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)
        assert app.screen.state.path == other


async def test_escape_leaves_an_empty_main_screen_and_plain_ctxtui_opens_the_demo(
    home: Path,
) -> None:
    app = _app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, MainScreen) and app.screen.session is None
    demo = make_app(None, settings=deterministic_settings())
    async with demo.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert isinstance(demo.screen, MainScreen)
        assert demo.screen.state.path is not None and demo.screen.state.path.name == "demo.json"


def test_samples_are_listed_by_name_without_their_sidecars() -> None:
    names = [f.path.name for f in sample_sessions(samples_dir())]
    assert names == sorted(names) and "demo.json" in names
    assert not [n for n in names if n.endswith(".meta.json") or n.endswith(".md")]
    rows = pick_rows([], sample_sessions(samples_dir()))
    assert [r.found.path.name for r in matching(rows, "DEMO")] == ["demo.json"]
    assert matching(rows, "demo nothing-like-this") == []


async def test_a_failing_search_still_lists_the_samples(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken() -> list[object]:
        raise RuntimeError("boom")

    monkeypatch.setattr("ctxtui.stores.listing.list_sessions", broken)
    app = _app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, OpenSessionScreen)
        assert set(_agents(screen)) == {"sample"}
        problem = str(screen.query_one("#problem", Static).render())
        assert problem == (
            "Could not search the agents' stores: internal error (RuntimeError: boom); this is "
            "a bug in ctxtui: run again with CTXTUI_DEBUG=1 for the traceback"
        )


async def test_fifos_in_the_stores_are_skipped_and_said_and_q_quits(home: Path) -> None:
    """A FIFO named like a session in three stores: the list fills (it used to stay at
    "looking in the agents' stores" for ever), says how many were skipped, and q quits."""
    os.mkfifo(home / ".claude" / "projects" / "-home-me-proj" / "fifo.jsonl")
    os.mkfifo(home / ".codex" / "sessions" / "2026" / "11" / "02" / "rollout-fifo.jsonl")
    os.mkfifo(home / ".picoclaw" / "workspace" / "sessions" / "fifo.jsonl")
    hostile = home / ".claude" / "projects" / "p\x1b]0;title\x07\nx"
    _claude(home / ".claude", hostile.name, "s9", "2026-11-03T09:00:00Z", "m\x1b[31m")
    app = _app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, OpenSessionScreen)
        found = str(screen.query_one("#found", Static).render())
        assert found.startswith("9 sessions in the agents' stores")  # a sub-agent included
        assert found.endswith("· 3 unreadable skipped")
        (row,) = [r for r in screen.shown if r.found.model and r.found.model.startswith("m")]
        assert row.cells[2] == "m␛[31m"
        assert all(c.isprintable() for r in screen.shown for c in r.cells)
        screen.query_one("#filter", Input).value = "s9"
        await settle(pilot)
        assert "␛]0;title␇⏎x" in str(screen.query_one("#target", Static).render())
        await pilot.press("escape")
        await pilot.press("q")
        await settle(pilot)
    assert not app.is_running


def test_open_sessions_80x24(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, snap_compare: SnapCompare
) -> None:
    """The picker at 80×24 (issue 29 item 1): the heading on one line (`agent project model
    started size`, the project and model narrowed), each row's size whole at the right, the
    inputs one row each, and the list showing every session of the store, not three."""
    samples = tmp_path / "samples"
    samples.mkdir()
    (samples / "demo.json").write_text("{}" * 600)
    monkeypatch.setattr("ctxtui.samples.samples_dir", lambda: samples)
    assert snap_compare(_app(), terminal_size=(80, 24), run_before=settle)


async def test_at_80x24_the_heading_fits_and_a_dozen_rows_show(home: Path) -> None:
    app = _app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, OpenSessionScreen)
        table = screen.query_one(SessionTable)
        heading = str(screen.query_one("#heading", Static).render())
        assert "\n" not in heading.strip() and heading.rstrip().endswith("size")
        assert len(heading.rstrip()) <= table.scrollable_content_region.width
        assert table.size.height >= 10
        line = "".join(s.text for s in table.render_line(0))
        assert line.rstrip().endswith("B"), line  # the size column, whole


async def test_at_80x24_a_refused_path_still_shows_what_was_typed(home: Path) -> None:
    app = _app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("tab", *"nowhere.jsonl", "enter")
        await pilot.pause()
        screen = app.screen
        assert "No such file" in str(screen.query_one("#problem", Static).render())
        path = screen.query_one("#path", Input)
        assert path.content_region.height == 1
        assert "nowhere.jsonl" in "".join(s.text for s in path.render_line(0))


async def test_open_screen_validates_and_returns_path(tmp_path: Path) -> None:
    (tmp_path / "session.jsonl").write_text("{}\n")
    app = HostApp(lambda: OpenSessionScreen(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("tab")  # from the filter to the path input
        await pilot.press(*"missing.json", "enter")
        assert app.results == []
        assert "No such file" in str(app.screen.query_one("#problem", Static).render())
        app.screen.query_one("#path", Input).value = ""
        await pilot.press(*"session.jsonl", "enter")
        assert app.results == [tmp_path / "session.jsonl"]


async def test_open_screen_refuses_fifos_and_unreadable_files(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.jsonl")
    locked = tmp_path / "locked.json"
    locked.write_text("{}")
    locked.chmod(0)
    app = HostApp(lambda: OpenSessionScreen(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("tab")  # from the filter to the path input
        await pilot.press(*"pipe.jsonl", "enter")
        problem = str(app.screen.query_one("#problem", Static).render())
        assert "Not a file or directory" in problem
        if not os.access(locked, os.R_OK):  # root can read anything
            app.screen.query_one("#path", Input).value = "locked.json"
            await pilot.press("enter")
            assert "Not readable" in str(app.screen.query_one("#problem", Static).render())
        await pilot.press("escape")
        assert app.results == [None]


async def test_open_screen_takes_a_directory_as_the_command_line_does(tmp_path: Path) -> None:
    """An OpenCode storage or a PicoClaw sessions folder is a session: the importer says
    whether a directory holds one, as it does for ``ctxtui DIR``."""
    (tmp_path / "storage").mkdir()
    app = HostApp(lambda: OpenSessionScreen(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("tab")
        await pilot.press(*"storage", "enter")
        assert app.results == [tmp_path / "storage"]


def test_names_are_cut_in_their_middle_and_the_model_takes_spare_room() -> None:
    """At 80×24 two samples both read "…eplay.jsonl"; at 120 columns the model was cut
    while the project column had room."""
    from ctxtui.tui.screens.open import HINTS
    from ctxtui.tui.widgets.session_table import MODEL_CELLS, _fit, fitted_columns

    claude = _fit("claude_code_replay.jsonl", 16, keep_end=True)
    codex = _fit("codex_replay.jsonl", 16, keep_end=True)
    assert claude != codex and claude.endswith("play.jsonl") and claude.startswith("claud")
    assert dict(fitted_columns(114))["model"] == MODEL_CELLS
    assert len("claude-sonnet-4-5-20250929") <= MODEL_CELLS
    assert dict(fitted_columns(70))["project"] >= 16
    assert all(len(hint) <= 70 for hint in HINTS[1:]) and "Esc" in HINTS[-1]
