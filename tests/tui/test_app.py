"""Pilot tests: the main screen shows the plan and every interaction moves it as it should."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Input, Label, Select

from ctxtui.tui.app import CtxtuiApp, make_app
from ctxtui.tui.screens.main import MainScreen
from ctxtui.tui.settings import deterministic_settings
from ctxtui.tui.widgets.message_list import MessageList
from tests.tui.main_fixtures import PickScreen, app_for, cjk_session, demo_session, settle


def main_of(app: CtxtuiApp) -> MainScreen:
    return app.main


async def test_app_starts_and_shows_the_plan() -> None:
    session = demo_session()
    app = app_for(session)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        main = main_of(app)
        assert main.plan is not None
        messages = app.screen.query_one(MessageList)
        assert messages.message_count == len(session)
        assert messages.row_count == len(session) + 1  # the boundary rule is a row
        assert main.plan.pruned, "the demo is built so old tool outputs are pruned"


async def test_cursor_moves_with_keys_and_stays_in_range() -> None:
    session = demo_session()
    app = app_for(session)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        messages = app.screen.query_one(MessageList)
        await pilot.press("down", "down", "down")
        assert messages.cursor == 3
        await pilot.press("up")
        assert messages.cursor == 2
        await pilot.press("end")
        assert messages.cursor == len(session) - 1
        await pilot.press("down")
        assert messages.cursor == len(session) - 1  # clamped, not past the end
        await pilot.press("home", "up")
        assert messages.cursor == 0
        await pilot.press("pagedown")
        assert messages.cursor > 5


async def test_click_selects_the_row_under_the_mouse() -> None:
    app = app_for(demo_session())
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        messages = app.screen.query_one(MessageList)
        await pilot.click(MessageList, offset=(5, 2))
        assert messages.cursor == 2


async def test_knob_change_moves_the_boundary_and_the_pruned_set() -> None:
    app = app_for(demo_session())
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        main = main_of(app)
        before = main.plan
        assert before is not None
        await pilot.press("s")
        knob = app.screen.query_one("#knob-tail_max_tokens", Input)
        knob.value = "2000"
        await settle(pilot)
        after = main.plan
        assert after is not None and after is not before
        assert after.policy.tail_max_tokens == 2_000
        assert after.tail.start > before.tail.start, "a smaller tail starts later"
        assert set(after.pruned) > set(before.pruned), "outputs leaving the tail get pruned"
        mode = app.screen.query_one("#knob-prune_mode", Select)
        mode.value = "off"
        await settle(pilot)
        assert main.plan is not None
        assert not main.plan.pruned


async def test_invalid_knob_input_is_marked_and_not_applied() -> None:
    app = app_for(demo_session())
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        main = main_of(app)
        plan = main.plan
        await pilot.press("s")
        window = app.screen.query_one("#knob-context_window", Input)
        window.value = "12"  # below the knob's minimum of 256
        await settle(pilot)
        assert window.has_class("-invalid")
        assert main.plan is plan
        assert main.policy.context_window == plan.policy.context_window if plan else False
        tail_min = app.screen.query_one("#knob-tail_min_tokens", Input)
        tail_min.value = "999999"  # valid alone, but above tail_max_tokens
        await settle(pilot)
        assert tail_min.has_class("-invalid")
        assert main.plan is plan


async def test_search_finds_and_jumps_to_matches() -> None:
    session = demo_session()
    app = app_for(session)
    expected = [i for i, m in enumerate(session.messages) if "pytest" in m.content.lower()]
    assert len(expected) >= 2
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        messages = app.screen.query_one(MessageList)
        await pilot.press("slash")
        await pilot.press(*"pytest", "enter")
        await settle(pilot)
        assert messages.cursor == expected[0]
        status = app.screen.query_one("#search-status", Label)
        assert str(status.render()) == f"1 of {len(expected)}"
        await pilot.press("n")
        assert messages.cursor == expected[1]
        assert str(status.render()) == f"2 of {len(expected)}"


async def test_t_jumps_to_the_tail_boundary() -> None:
    app = app_for(demo_session(turns=20))
    async with app.run_test(size=(100, 24)) as pilot:
        await settle(pilot)
        main = main_of(app)
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
        main = main_of(app)
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
    app = make_app(session, overrides={"max_tokens": 10_000}, settings=deterministic_settings())
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, ErrorScreen)
        assert app.screen.error_title == "Ignored the policy options"
        main = main_of(app)
        assert main.policy.context_window == 8_000
        assert main.plan is not None and main.plan.totals.window == 8_000


async def test_compaction_apply_then_undo_restores_the_session() -> None:
    session = demo_session(turns=20)
    app = app_for(session)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        main = main_of(app)
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


async def test_missing_demo_shows_the_error_screen(monkeypatch: object) -> None:
    app = make_app(None, settings=deterministic_settings())
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        from ctxtui.tui.screens.error import ErrorScreen

        if app.main.session is None:  # no demo in this install: say so, keep running
            assert isinstance(app.screen, ErrorScreen)
        else:
            assert isinstance(app.screen, MainScreen)


async def test_tokenizer_change_counts_in_a_worker_then_replans() -> None:
    app = app_for(demo_session())
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        main = main_of(app)
        old = main.plan
        assert old is not None and old.tokenizer.used == "plan"
        await app.run_action("tokenizer('tiktoken:cl100k_base')", main)
        await settle(pilot)
        assert main.plan is not None and main.plan is not old
        assert main.plan.tokenizer.requested == "tiktoken:cl100k_base"
        assert not app.screen.query_one("#progress-row").display, "progress hides when done"


async def test_palette_actions_reach_the_main_screen() -> None:
    """Palette entries run on the main screen even over a dialog: no forwarder on the app."""
    from ctxtui.tui.commands import CtxtuiCommands
    from ctxtui.tui.screens.help import HelpScreen

    app = app_for(demo_session(turns=20))
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        main = main_of(app)
        hits = {hit.text: hit async for hit in CtxtuiCommands(app.screen).discover()}
        await hits["Jump to fresh tail"].command()
        assert main.plan is not None
        assert app.screen.query_one(MessageList).cursor == main.plan.tail.start
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        await hits["Preset: picoclaw"].command()
        await settle(pilot)
        assert main.plan is not None and main.plan.policy.preset == "picoclaw"


def test_detail_caps_a_megabyte_message_and_says_how_much_is_left() -> None:
    from ctxtui.core.planning.plan import Zone
    from ctxtui.core.session.models import Message
    from ctxtui.tui.widgets.detail import MAX_CHARS, DetailInfo, describe

    content = "[bold]x\x1b[0m" + "y" * 1_000_000
    info = DetailInfo(
        index=0,
        message=Message(role="tool", content=content),
        zone=Zone.KEPT,
        tokens=250_000,
        effective=250_000,
    )
    text = describe(info).plain
    assert "[bold]x␛[0m" in text
    assert f"… {len(content) - MAX_CHARS:,} more bytes" in text
    assert len(text) < MAX_CHARS + 1_000


async def test_an_unknown_key_id_in_the_settings_is_named_and_the_rest_applies() -> None:
    settings = deterministic_settings(keys={"compakt": "k", "export": "x"})
    app = make_app(demo_session(), settings=settings)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        from textual.widgets import Static

        from ctxtui.tui.screens.error import ErrorScreen

        assert isinstance(app.screen, ErrorScreen), "ignored settings are listed in a dialog"
        assert "'compakt'" in str(app.screen.query_one("#message", Static).render())
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("x")
        await pilot.pause()
        from ctxtui.tui.screens.export import ExportScreen

        assert isinstance(app.screen, ExportScreen), "the known id was remapped"


async def test_a_view_is_one_row_and_one_module(tmp_path: Path) -> None:
    """A row naming a screen class is all a view needs: the app opens it with the main
    screen's state, and a path it dismisses with is opened like any session file."""
    from ctxtui.system.export import native_bytes

    picked = tmp_path / "picked.json"
    picked.write_bytes(native_bytes(cjk_session()))
    PickScreen.target = picked
    app = app_for(demo_session())
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        app.push_view(PickScreen)
        await settle(pilot)
        assert app.main.session is not None and len(app.main.session) == 5
        assert app.main.state.path == picked
