"""Pilot tests for the modal screens and the command palette provider, on a stand-in host app."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from screen_fixtures import OVERFLOW, PROMPT, HostApp, compaction_result
from textual.command import CommandPalette
from textual.widgets import (
    Button,
    Input,
    Label,
    Markdown,
    OptionList,
    Static,
    TabbedContent,
    TextArea,
)

from ctxtui.core.engine import Engine
from ctxtui.core.policies.policy import preset
from ctxtui.core.policies.reasons import CompactReason
from ctxtui.importers import load_session
from ctxtui.tui.commands import CtxtuiCommands, palette_commands
from ctxtui.tui.screens.compaction import (
    PROMPT_PREVIEW_CHARS,
    CompactionPreviewScreen,
    figure_rows,
)
from ctxtui.tui.screens.error import ErrorScreen
from ctxtui.tui.screens.export import ExportScreen
from ctxtui.tui.screens.help import HelpScreen, key_rows
from ctxtui.tui.screens.open import OpenSessionScreen
from ctxtui.tui.screens.reason import ReasonScreen

SIZE = (100, 32)


def _text(app: HostApp, selector: str) -> str:
    return str(app.screen.query_one(selector, Static).render())


# -- error -----------------------------------------------------------------------------------


@pytest.mark.parametrize("key", ["enter", "escape"])
async def test_error_screen_shows_message_literally_and_dismisses(key: str) -> None:
    message = "bad[1].jsonl:3: expected a JSON object, found [bold]text[/bold]"
    app = HostApp(lambda: ErrorScreen(message))
    async with app.run_test(size=SIZE) as pilot:
        assert isinstance(app.screen, ErrorScreen)
        assert _text(app, "#message") == message
        assert _text(app, "#title") == "Could not open session"
        await pilot.press(key)
        assert not isinstance(app.screen, ErrorScreen)
        assert app.results == [None]
        assert app.is_running  # the app survives a bad file


# -- reason ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("presses", "expected"),
    [
        ((), CompactReason.PROACTIVE),
        (("down",), CompactReason.RETRY),
        (("down", "down"), CompactReason.OVERFLOW),
    ],
)
async def test_reason_screen_returns_the_chosen_reason(
    presses: tuple[str, ...], expected: CompactReason
) -> None:
    app = HostApp(ReasonScreen)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*presses, "enter")
        assert app.results == [expected]


async def test_reason_screen_names_picoclaw_wire_values_and_cancels() -> None:
    app = HostApp(ReasonScreen)
    async with app.run_test(size=SIZE) as pilot:
        options = app.screen.query_one("#reasons", OptionList)
        rendered = " ".join(str(options.get_option_at_index(i).prompt) for i in range(3))
        assert "In PicoClaw: the proactive budget check" in rendered
        assert "In PicoClaw: the retry after the LLM refuses the request" in rendered
        await pilot.press("escape")
        assert app.results == [None]


# -- compaction preview ----------------------------------------------------------------------


async def test_compaction_preview_has_summary_prompt_and_figures_tabs() -> None:
    app = HostApp(lambda: CompactionPreviewScreen(compaction_result()))
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        tabs = screen.query_one(TabbedContent)
        assert [str(t.label) for t in tabs.query("ContentTab")] == [
            "Summary",
            "LLM prompt",
            "Figures",
            "Lost",
        ]
        assert "# Summary of Previous Conversation" in screen.query_one(Markdown).source
        tabs.active = "prompt-tab"
        await pilot.pause()
        assert screen.query_one("#prompt", TextArea).text == PROMPT  # literally, brackets kept
        tabs.active = "figures-tab"
        await pilot.pause()
        assert isinstance(screen, CompactionPreviewScreen)
        figures = screen.figures_text
        assert "40,960 → 12,288" in figures
        assert "6 (#1–#6, 28,990 tok)" in figures
        assert "3 messages (#2–#4) stay verbatim" in figures
        assert "proactive (in PicoClaw: the proactive budget check)" in figures
        assert not screen.query("#overflow")


async def test_compaction_figures_number_the_tail_as_the_list_does() -> None:
    """Before apply the list shows the tail as #7–#9 of 10 messages; the figures say so, and
    give the numbers they will have after apply (#2–#4) as well."""
    app = HostApp(lambda: CompactionPreviewScreen(compaction_result(), messages_before=10))
    async with app.run_test(size=SIZE) as pilot:
        app.screen.query_one(TabbedContent).active = "figures-tab"
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, CompactionPreviewScreen)
        assert "3 messages (#7–#9) stay verbatim, numbered #2–#4 after apply" in (
            screen.figures_text
        )


def test_compaction_figures_group_every_message_number_alike() -> None:
    """The replaced span is written like the tail beside it (``#1,000``), not ``#1000``."""
    rows = dict(figure_rows(compaction_result(replaced=(1_000, 2_499), messages_replaced=1_500)))
    assert rows["Messages replaced"] == "1,500 (#1,000–#2,499, 28,990 tok)"


@pytest.mark.parametrize(("key", "expected"), [("a", "apply"), ("x", "export"), ("escape", None)])
async def test_compaction_preview_keys_dismiss_with_choice(key: str, expected: str | None) -> None:
    app = HostApp(lambda: CompactionPreviewScreen(compaction_result()))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(key)
        assert app.results == [expected]


async def test_compaction_preview_caps_a_huge_prompt_and_says_so() -> None:
    """100,000 messages make a 219 MB prompt; the tab shows its start and what is left out,
    instead of freezing the app while a TextArea takes it all in."""
    prompt = "[user] " + "x" * 5_000_000
    app = HostApp(lambda: CompactionPreviewScreen(compaction_result(prompt=prompt)))
    async with app.run_test(size=SIZE):
        text = app.screen.query_one("#prompt", TextArea).text
        assert text.startswith("[user] xxx")
        assert len(text) < PROMPT_PREVIEW_CHARS + 200
        more = len(prompt) - PROMPT_PREVIEW_CHARS
        assert text.endswith(
            f"… {more:,} more bytes not shown here; "
            "`ctxtui compact SESSION --preview` prints the whole prompt"
        )


async def test_compaction_preview_keys_work_from_the_prompt_tab() -> None:
    app = HostApp(lambda: CompactionPreviewScreen(compaction_result()))
    async with app.run_test(size=SIZE) as pilot:
        app.screen.query_one(TabbedContent).active = "prompt-tab"
        app.screen.query_one("#prompt", TextArea).focus()
        await pilot.press("a")
        assert app.results == ["apply"]


async def test_compaction_preview_apply_button() -> None:
    app = HostApp(lambda: CompactionPreviewScreen(compaction_result()))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.click("#apply")
        assert app.results == ["apply"]


async def test_compaction_preview_shows_overflow_fields_not_a_crash() -> None:
    result = compaction_result(overflow=OVERFLOW)
    app = HostApp(lambda: CompactionPreviewScreen(result))
    async with app.run_test(size=SIZE):
        text = _text(app, "#overflow")
        for field in ("gpt-4.1", "32,768", "41,200", "the fresh tail does not fit beside"):
            assert field in text


async def test_compaction_preview_with_nothing_to_replace_cannot_apply() -> None:
    result = compaction_result(
        summary=None,
        summary_text="",
        prompt="",
        replaced=None,
        messages_replaced=0,
        tokens_after=40_960,
        overflow=OVERFLOW,
        note="nothing to compact: every message is in the fresh tail",
    )
    app = HostApp(lambda: CompactionPreviewScreen(result))
    async with app.run_test(size=SIZE) as pilot:
        assert app.screen.query_one("#apply", Button).disabled
        assert "nothing to compact" in _text(app, "#summary")
        await pilot.press("a", "x")
        assert app.results == []
        await pilot.press("escape")
        assert app.results == [None]


# -- export ----------------------------------------------------------------------------------


async def test_export_new_path_is_returned_at_once(tmp_path: Path) -> None:
    target = tmp_path / "out.json"
    app = HostApp(lambda: ExportScreen(target, tmp_path / "source.jsonl"))
    async with app.run_test(size=SIZE) as pilot:
        assert app.screen.query_one("#path", Input).value == str(target)
        await pilot.press("enter")
        assert app.results == [target]


async def test_export_refuses_the_source_outright(tmp_path: Path) -> None:
    """The core never writes over the source, so the dialog must not offer to: a second
    Enter used to 'confirm' an overwrite that could only end in an error."""
    source = tmp_path / "session.jsonl"
    source.write_text("{}\n")
    app = HostApp(lambda: ExportScreen(source, source))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("enter")
        problem = str(app.screen.query_one("#problem", Static).render())
        assert "source file" in problem and "never writes over" in problem
        assert str(app.screen.query_one("#confirm", Button).label) == "Export"
        await pilot.press("enter")
        assert app.results == []  # still refused
        await pilot.press("escape")
        assert app.results == [None]


async def test_export_title_says_what_is_exported(tmp_path: Path) -> None:
    app = HostApp(lambda: ExportScreen(tmp_path / "a.json", None, title="Export compacted session"))
    async with app.run_test(size=SIZE):
        assert _text(app, "#title") == "Export compacted session (ctxtui JSON)"


async def test_export_asks_before_overwriting(tmp_path: Path) -> None:
    existing = tmp_path / "old.json"
    existing.write_text("{}")
    app = HostApp(lambda: ExportScreen(existing, tmp_path / "source.jsonl"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("enter")
        assert app.results == []
        assert "already exists" in str(app.screen.query_one("#problem", Static).render())
        await pilot.press("enter")
        assert app.results == [existing]


async def test_export_editing_the_path_withdraws_the_confirmation(tmp_path: Path) -> None:
    existing = tmp_path / "old.json"
    existing.write_text("{}")
    app = HostApp(lambda: ExportScreen(existing, None))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("enter")  # armed
        await pilot.press("end", "backspace", "n")  # edited, even if back to the same name
        await pilot.press("enter")
        assert app.results == []  # asked again, not taken as the confirmation
        await pilot.press("enter")
        assert app.results == [existing]


async def test_export_rejects_missing_directory_and_cancels(tmp_path: Path) -> None:
    app = HostApp(lambda: ExportScreen(tmp_path / "nope" / "out.json", None))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("enter")
        assert app.results == []
        assert "No such directory" in str(app.screen.query_one("#problem", Static).render())
        await pilot.press("escape")
        assert app.results == [None]


# -- open ------------------------------------------------------------------------------------


async def test_reason_screen_fits_a_20_row_terminal() -> None:
    """At 60×20 the three reasons need more rows than there are: the list scrolls, and the
    hint and the dialog's border stay on screen."""
    app = HostApp(ReasonScreen)
    async with app.run_test(size=(60, 20)) as pilot:
        await pilot.pause()
        hint = app.screen.query_one("#hint")
        dialog = app.screen.query_one("#dialog")
        assert hint.region.bottom <= dialog.region.bottom <= 20
        assert hint.region.height == 1
        await pilot.press("down", "down", "enter")
        assert app.results == [CompactReason.OVERFLOW]


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


async def test_open_screen_refuses_directories_and_unreadable_files(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    locked = tmp_path / "locked.json"
    locked.write_text("{}")
    locked.chmod(0)
    app = HostApp(lambda: OpenSessionScreen(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("tab")  # from the filter to the path input
        await pilot.press(*"sub", "enter")
        assert "Not a file" in str(app.screen.query_one("#problem", Static).render())
        if not os.access(locked, os.R_OK):  # root can read anything
            app.screen.query_one("#path", Input).value = "locked.json"
            await pilot.press("enter")
            assert "Not readable" in str(app.screen.query_one("#problem", Static).render())
        await pilot.press("escape")
        assert app.results == [None]


# -- help ------------------------------------------------------------------------------------


async def test_help_lists_bindings_with_remapped_keys() -> None:
    app = HostApp(HelpScreen, keymap={"compact": "k"})
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, HelpScreen)
        keys = screen.keys_text
        assert "Compact" in keys
        assert "Jump to tail" in keys
        rows = {row.description: row.keys for row in key_rows(app.screen_stack[0])}
        assert rows["Compact"] == "k"  # the remapped key, not the default "c"
        assert "fresh tail" in _text(app, "#legend")
        await pilot.press("question_mark")
        assert app.results == [None]


async def test_help_closes_on_escape() -> None:
    app = HostApp(HelpScreen)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("escape")
        assert app.results == [None]


# -- command palette -------------------------------------------------------------------------


def test_palette_covers_every_agreed_action() -> None:
    actions = {c.action for c in palette_commands()}
    assert {
        "compact",
        "undo",
        "export",
        "open",
        "search",
        "jump_tail",
        "toggle_settings",
        "help",
        "preset('plan')",
        "preset('picoclaw')",
        "tokenizer('plan')",
        "change_theme",
    } <= actions
    assert all(c.help for c in palette_commands())


@pytest.mark.parametrize(
    ("query", "title"),
    [("compact", "Compact"), ("tokenizer", "Tokenizer: plan"), ("preset pico", "Preset: picoclaw")],
)
async def test_provider_yields_hits(query: str, title: str) -> None:
    app = HostApp()
    async with app.run_test(size=SIZE):
        provider = CtxtuiCommands(app.screen)
        hits = [hit async for hit in provider.search(query)]
        assert title in [hit.text for hit in hits]
        discovered = [hit async for hit in provider.discover()]
        assert len(discovered) == len(palette_commands())


async def test_palette_hit_runs_the_action() -> None:
    app = HostApp()
    app.COMMANDS = {CtxtuiCommands}
    async with app.run_test(size=SIZE) as pilot:
        app.action_command_palette()
        await pilot.pause()
        assert isinstance(app.screen, CommandPalette)
        await pilot.press(*"Tokenizer: picoclaw")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await pilot.pause()
        assert app.actions == ["tokenizer:picoclaw"]


# -- with the real core ----------------------------------------------------------------------


async def test_preview_renders_a_real_compaction_of_the_overflow_sample() -> None:
    """The screen reads the core's real CompactionResult, not just the hand-built one."""
    sample = Path(__file__).parents[2] / "sample_sessions" / "coding_agent_overflow.json"
    session = load_session(sample)
    result = Engine(session).compact(preset("plan"), CompactReason.RETRY)
    app = HostApp(lambda: CompactionPreviewScreen(result))
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, CompactionPreviewScreen)
        screen.query_one(TabbedContent).active = "figures-tab"
        await pilot.pause()
        retry = "retry (in PicoClaw: the retry after the LLM refuses the request)"
        assert retry in screen.figures_text
        await pilot.press("escape")
        assert app.results == [None]


async def test_compaction_preview_says_which_leaf_call_the_prompt_is() -> None:
    """A long history takes several leaf calls; the prompt tab says which one it shows."""
    result = compaction_result(prompt_range=(1, 3), prompt_calls=4)
    app = HostApp(lambda: CompactionPreviewScreen(result))
    async with app.run_test(size=SIZE) as pilot:
        app.screen.query_one(TabbedContent).active = "prompt-tab"
        await pilot.pause()
        caption = app.screen.query_one("#prompt-caption", Label)
        assert "call 1 of 4: messages #1–#3" in str(caption.content)
    plain = HostApp(lambda: CompactionPreviewScreen(compaction_result()))
    async with plain.run_test(size=SIZE):
        assert not plain.screen.query("#prompt-caption")
