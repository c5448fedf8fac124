"""Pilot tests of whole flows in the real app: export, open, search, panels, footer, loading.

Each drives ``make_app`` as the CLI builds it, with keys a user would press, and checks what
the user would see or find on disk afterwards.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest
from textual.widgets import Input, Label, Select
from textual.widgets._footer import FooterKey

from ctxtui.core.session.models import Session
from ctxtui.importers import load_session
from ctxtui.system.export import native_bytes
from ctxtui.tui.app import CtxtuiApp
from ctxtui.tui.screens.compaction import CompactionPreviewScreen
from ctxtui.tui.screens.error import ErrorScreen
from ctxtui.tui.screens.export import ExportScreen
from ctxtui.tui.screens.help import HelpScreen, key_rows
from ctxtui.tui.screens.main import MainScreen
from ctxtui.tui.screens.open import OpenSessionScreen
from ctxtui.tui.widgets.busy import BusyRow
from ctxtui.tui.widgets.gauge import BudgetGauge
from ctxtui.tui.widgets.message_list import MessageList
from ctxtui.tui.widgets.session_bar import SessionBar
from ctxtui.tui.widgets.settings_panel import SettingsPanel
from ctxtui.tui.widgets.theme_style import component_style
from tests.tui.main_fixtures import app_for, apply_compaction, cjk_session, demo_session, settle

PAST = 1_600_000_000  # a fixed mtime, so "unchanged" cannot pass by luck of the clock


def write_native(path: Path, session: Session) -> Path:
    """``session`` as a native file on disk, with a fixed old mtime."""
    path.write_bytes(native_bytes(session))
    os.utime(path, (PAST, PAST))
    return path


def main_of(app: CtxtuiApp) -> MainScreen:
    return app.main


def bar_text(app: CtxtuiApp) -> str:
    return str(app.main.query_one(SessionBar).render())


# -- export ----------------------------------------------------------------------------------


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
        loaded = main_of(app).session
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
        original = main_of(app).session
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
        assert main_of(app).session is original, "exporting does not apply"
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


# -- open ------------------------------------------------------------------------------------


async def test_o_opens_a_second_good_file_in_place_of_the_first(tmp_path: Path) -> None:
    """`o`, type a path, Enter: the new session replaces the old one (list, session bar,
    cursor back at the top) and the old session's undo history goes with it."""
    first = write_native(tmp_path / "first.json", demo_session(turns=20))
    second = write_native(tmp_path / "second.json", cjk_session())
    app = app_for(first)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        main = main_of(app)
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
        main_of(app).load(path)
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


# -- search ----------------------------------------------------------------------------------


def match_cells(widget: MessageList, row: int) -> list[str]:
    """The texts drawn in the search-match style on ``row`` of the list."""
    bg = component_style(widget, "message-list--search-match").bgcolor
    return [s.text for s in widget.render_line(row) if s.style and s.style.bgcolor == bg]


async def test_search_marks_the_match_in_every_row_that_shows_it() -> None:
    session = demo_session()
    app = app_for(session)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        messages = app.screen.query_one(MessageList)
        await pilot.press("slash", *"Pytest", "enter")
        await settle(pilot)
        assert messages.search_query == "Pytest"
        # Message 5 is "Running run_shell on pytest -q." (row 5: the rule is further down).
        assert session.messages[5].content == "Running run_shell on pytest -q."
        assert match_cells(messages, 5) == ["pytest"]
        assert match_cells(messages, 4) == []
        await pilot.press("escape")  # the list has the focus: Escape closes the search bar
        await pilot.pause()
        assert not app.screen.query_one("#search-row").display
        assert messages.search_query == ""
        assert match_cells(messages, 5) == []


async def test_search_runs_in_a_worker_and_n_wraps_round(monkeypatch: pytest.MonkeyPatch) -> None:
    import ctxtui.tui.widgets.search as search_module

    threads: list[bool] = []
    real = search_module.find_matches

    def spy(session: Session, query: str) -> list[int]:
        threads.append(threading.current_thread() is threading.main_thread())
        return real(session, query)

    monkeypatch.setattr(search_module, "find_matches", spy)
    session = demo_session()
    expected = [i for i, m in enumerate(session.messages) if "pytest" in m.content.lower()]
    app = app_for(session)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        messages = app.screen.query_one(MessageList)
        status = app.screen.query_one("#search-status", Label)
        await pilot.press("n")  # nothing searched yet: n opens the search bar
        assert app.screen.query_one("#search", Input).has_focus
        await pilot.press(*"pytest", "enter")
        await settle(pilot)
        assert threads == [False], "searched once, off the UI thread"
        await pilot.press("end")
        await pilot.press("n")
        assert messages.cursor == expected[0]
        assert str(status.render()) == f"1 of {len(expected)} (from the top)"
        assert threads == [False], "n reuses the matches"


# -- panels and keys -------------------------------------------------------------------------


async def test_escape_leaves_the_settings_panel_and_drops_refused_input() -> None:
    """In a knob's input `s` types an `s`; Escape must close the panel, and what was refused
    must not be left in the input to be mistaken for the plan's value."""
    app = app_for(demo_session())
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        main = main_of(app)
        await pilot.press("s")
        panel = app.screen.query_one(SettingsPanel)
        window = app.screen.query_one("#knob-context_window", Input)
        window.focus()
        window.value = "12"
        await settle(pilot)
        assert panel.error_text("context_window") == (
            "must be a whole number from 256 to 100,000,000; the plan keeps 16384"
        )
        await pilot.press("escape")
        await pilot.pause()
        assert not panel.display
        assert app.screen.query_one(MessageList).has_focus
        assert window.value == "16384" and not window.has_class("-invalid")
        assert panel.error_text("context_window") == ""
        assert main.policy.context_window == 16_384


async def test_a_relation_error_is_shown_under_the_knob_in_its_own_words() -> None:
    app = app_for(demo_session())
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("s")
        app.screen.query_one("#knob-tail_min_tokens", Input).value = "9000"
        await settle(pilot)
        panel = app.screen.query_one(SettingsPanel)
        assert panel.error_text("tail_min_tokens") == (
            "tail min tokens (9,000) must not exceed tail max tokens (8,000); the plan keeps 2000"
        )


async def test_preset_and_tokenizer_selects_replan() -> None:
    """The settings panel's own selectors (not only the palette) switch preset and tokenizer;
    going back to a counted tokenizer re-plans at once and stops the count still running."""
    app = app_for(demo_session())
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        main = main_of(app)
        await pilot.press("s")
        app.screen.query_one("#preset", Select).value = "picoclaw"
        await settle(pilot)
        assert main.plan is not None and main.plan.policy.preset == "picoclaw"
        tokenizer = app.screen.query_one("#tokenizer", Select)
        tokenizer.value = "tiktoken:cl100k_base"
        await pilot.pause()
        tokenizer.value = "picoclaw"  # counted already: no wait, and the count is dropped
        await pilot.pause()
        assert not app.screen.query_one(BusyRow).display
        assert main.plan.tokenizer.used == "picoclaw"
        await settle(pilot)
        assert main.plan.tokenizer.used == "picoclaw"


def footer_keys(app: CtxtuiApp) -> list[FooterKey]:
    return list(app.screen.query(FooterKey))


async def test_footer_keeps_whole_keys_at_every_width() -> None:
    """At 80 columns Textual's footer cut `^p palette` and dropped `? Help` off the edge; the
    footer now leaves out whole keys, least important first, and never overlaps the palette;
    `?` and `q` are the last to go."""
    for (width, height), must, gone in (
        ((120, 40), {"compact", "help", "quit", "command_palette"}, set()),
        ((80, 24), {"compact", "search", "help", "quit", "command_palette"}, {"undo"}),
        ((60, 20), {"compact", "search", "help", "quit", "command_palette"}, {"undo", "open"}),
    ):
        app = app_for(demo_session())
        async with app.run_test(size=(width, height)) as pilot:
            await settle(pilot)
            keys = footer_keys(app)
            actions = {k.action for k in keys}
            assert must <= actions, (width, actions)
            assert not gone & actions, (width, actions)
            palette = next(k for k in keys if k.action == "command_palette")
            for key in keys:
                assert key.region.right <= width, (width, key.action)
                if key is not palette:
                    assert key.region.right < palette.region.x, (width, key.action)


async def test_footer_offers_escape_only_while_a_panel_is_open() -> None:
    app = app_for(demo_session())
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert "close_panels" not in {k.action for k in footer_keys(app)}
        await pilot.press("slash")
        await pilot.press("escape")  # from the search input
        await pilot.press("s")
        await pilot.pause()
        assert "close_panels" in {k.action for k in footer_keys(app)}
        await pilot.press("escape")
        await pilot.pause()
        assert "close_panels" not in {k.action for k in footer_keys(app)}


async def test_help_over_the_main_screen_lists_ctxtui_keys_first() -> None:
    """Help used to open on Textual's generic keys (scroll left, page right, focus next)."""
    app = app_for(demo_session())
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        rows = key_rows(app.screen_stack[0])
        assert [r.keys for r in rows[:3]] == ["c", "u", "e"]
        assert rows[0].explanation.startswith("Choose a reason")
        descriptions = [r.description for r in rows]
        assert "Scroll Left" not in descriptions and "Page Right" not in descriptions
        assert descriptions.index("Quit") < descriptions.index("Focus Next")


async def test_theme_switch_repaints_the_rows_in_the_new_colours() -> None:
    """On a light theme the muted index column must be dark, not the white that a partial
    style gives for `$text-muted`; the boundary rule carries its own colour."""
    app = app_for(demo_session())
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        messages = app.screen.query_one(MessageList)
        dark_row = list(messages.render_line(1))
        app.theme = "catppuccin-latte"
        await pilot.pause()
        light_row = list(messages.render_line(1))
        assert dark_row != light_row
        index_style = light_row[0].style
        assert index_style is not None and index_style.color is not None
        assert index_style.color.triplet is not None
        assert sum(index_style.color.triplet) < 3 * 160, "a muted dark grey on a light surface"
        boundary = messages.boundary_row
        assert boundary is not None
        rule = list(messages.render_line(boundary - int(messages.scroll_offset.y)))
        assert all(seg.style is not None and seg.style.color is not None for seg in rule)


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


async def test_moving_the_cursor_does_not_flash_counting_in_the_detail_pane() -> None:
    """Once tiktoken is loaded, a short message is counted at once: the pane used to say
    "counting under every tokenizer…" for a frame on every cursor move. The pane is read
    straight after the screen shows the message, before any worker could have answered."""
    from ctxtui.tui.widgets.detail import DetailPane

    app = app_for(demo_session())
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        main = main_of(app)
        body = app.screen.query_one(DetailPane).query_one("#detail-body")
        for index in (3, 4, 7):
            main.show_detail(index)
            text = str(body.render())
            assert text.startswith(f"#{index} ")
            assert "counting under every tokenizer" not in text
            assert "tiktoken:cl100k_base" in text


async def test_keys_keep_working_while_a_session_loads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The load is held open until the test lets it finish: meanwhile the current session
    stays on screen, the busy row says what is loading, and the keys still move and open."""
    import ctxtui.importers as importers

    gate = threading.Event()
    real = importers.load_session

    def held(path: Path, format: str | None = None) -> Session:
        assert gate.wait(60), "the test never released the load"
        return real(path, format)

    monkeypatch.setattr(importers, "load_session", held)
    path = write_native(tmp_path / "next.json", cjk_session())
    app = app_for(demo_session())
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        main = main_of(app)
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


async def test_every_palette_entry_runs_on_the_real_app() -> None:
    """Each entry's action, run as the palette runs it, on the real screen: nothing raises,
    and whatever dialog it opens closes with Escape."""
    from ctxtui.tui.commands import palette_commands, target

    app = app_for(demo_session())
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        for command in palette_commands():
            await app.run_action(command.action, target(app, command.scope))
            await pilot.pause()
            await settle(pilot)
            while app.screen is not app.main:
                await pilot.press("escape")
                await pilot.pause()
            if app.main.query_one(SettingsPanel).display:
                await pilot.press("escape")
            assert app.is_running, command.title
        assert main_of(app).plan is not None


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


async def test_the_detail_pane_never_counts_on_the_ui_thread(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Counts under every tokenizer come from the pane's worker, for the selected message
    first and then its neighbours, so moving the cursor finds them ready."""
    import ctxtui.core.tokens.counting as counting

    threads: list[bool] = []
    real = counting.count_message_everywhere

    def spy(message: object, chars_per_token: float) -> dict[str, int]:
        threads.append(threading.current_thread() is threading.main_thread())
        return real(message, chars_per_token)  # type: ignore[arg-type]

    monkeypatch.setattr(counting, "count_message_everywhere", spy)
    app = app_for(demo_session())
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("down", "down", "down")
        await settle(pilot)
        assert threads and not any(threads), "counted, and never on the UI thread"
        body = str(app.screen.query_one("#detail-body").render())
        assert body.startswith("#3 ") and "tiktoken:cl100k_base" in body
