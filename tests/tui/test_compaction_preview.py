"""The compaction preview (``c``): its summary, prompt and figures tabs, its keys, and what it
says when there is nothing to replace or the request cannot fit."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from screen_fixtures import OVERFLOW, PROMPT, SIZE, HostApp, _text, compaction_result
from textual.pilot import Pilot
from textual.widgets import (
    Button,
    Label,
    Markdown,
    TabbedContent,
    TextArea,
)

from ctxtui.core.compacting.notes import llm_calls_sentence
from ctxtui.core.engine import Engine
from ctxtui.core.policies.policy import preset
from ctxtui.core.policies.reasons import CompactReason
from ctxtui.importers import load_session
from ctxtui.tui.compaction_text import PROMPT_PREVIEW_CHARS, figure_rows, prompt_preview
from ctxtui.tui.screens.compaction import CompactionPreviewScreen, PreviewContext
from tests.tui.main_fixtures import SnapCompare, figures


def _show_tab(tab_id: str) -> Callable[[Pilot[Any]], Any]:
    async def run_before(pilot: Pilot[Any]) -> None:
        pilot.app.screen.query_one(TabbedContent).active = tab_id
        await pilot.pause()

    return run_before


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
        shown = figures(screen)
        assert "40,960 → 12,288" in shown
        assert "6 (#1–#6, 28,990 tok)" in shown
        assert "3 messages (#2–#4) stay verbatim" in shown
        assert "proactive (in PicoClaw: the proactive budget check)" in shown
        assert not screen.query("#overflow")


async def test_compaction_figures_number_the_tail_as_the_list_does() -> None:
    """Before apply the list shows the tail as #7–#9 of 10 messages; the figures say so, and
    give the numbers they will have after apply (#2–#4) as well."""
    app = HostApp(
        lambda: CompactionPreviewScreen(
            compaction_result(), context=PreviewContext(messages_before=10)
        )
    )
    async with app.run_test(size=SIZE) as pilot:
        app.screen.query_one(TabbedContent).active = "figures-tab"
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, CompactionPreviewScreen)
        assert "3 messages (#7–#9) stay verbatim, numbered #2–#4 after apply" in (figures(screen))


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


@pytest.mark.parametrize("size", [(60, 20), (80, 24), (120, 40), (200, 60)])
@pytest.mark.parametrize("choose_reason", [True, False])
async def test_every_button_shows_whole_in_the_frame(
    size: tuple[int, int], *, choose_reason: bool
) -> None:
    """At 80×24 the row ran off the frame at ``Reason: proa``, Cancel out of sight: where the
    frame is too narrow for one line, the row takes two; one where the frame is wide enough."""
    context = PreviewContext(choose_reason=choose_reason)
    app = HostApp(lambda: CompactionPreviewScreen(compaction_result(), context=context))
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        frame = app.screen.query_one("#dialog").content_region
        buttons = list(app.screen.query(Button))
        assert len(buttons) == (5 if choose_reason else 4)
        for button in buttons:
            assert frame.contains_region(button.region), (button.id, button.region, frame)
        lines = {button.region.y for button in buttons}
        assert len(lines) == (1 if size[0] >= 120 else 2)


async def test_the_button_row_wraps_and_unwraps_as_the_terminal_is_resized() -> None:
    context = PreviewContext(choose_reason=True)
    app = HostApp(lambda: CompactionPreviewScreen(compaction_result(), context=context))
    async with app.run_test(size=(120, 40)) as pilot:
        row = app.screen.query_one("#buttons")
        for size, wrapped in (((120, 40), False), ((80, 24), True), ((120, 40), False)):
            await pilot.resize_terminal(*size)
            await pilot.pause()
            assert row.has_class("-wrapped") is wrapped, size


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
        assert retry in figures(screen)
        await pilot.press("escape")
        assert app.results == [None]


async def test_the_title_gives_the_prompt_the_gauge_gives_and_the_figures_the_reserve() -> None:
    """The title's figures are the prompt (the gauge's headline), not the request, whose output
    reserve dwarfs this prompt (36,737 tok against 4,737); the Figures tab gives the request
    with its reserve named, and what is saved as a share of the prompt."""
    sample = Path(__file__).parents[2] / "sample_sessions" / "claude_code_replay.jsonl"
    engine = Engine(load_session(sample))
    policy = preset("claude-code")
    totals = engine.plan(policy).totals
    assert totals.output_reserve > totals.tokens  # the two would be told apart at a glance
    result = engine.compact(policy, CompactReason.PROACTIVE)
    after = result.tokens_after - totals.output_reserve  # the compacted session's prompt
    app = HostApp(lambda: CompactionPreviewScreen(result))
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, CompactionPreviewScreen)
        title = str(screen.query_one("#title", Label).render())
        assert f"· prompt {totals.tokens:,} → {after:,} tok" in title
        assert f"{totals.requested:,}" not in title
        screen.query_one(TabbedContent).active = "figures-tab"
        await pilot.pause()
        rows = dict(line.split("  ", 1) for line in figures(screen).splitlines())
    assert rows["Prompt tokens"] == f"{totals.tokens:,} → {after:,}"
    assert rows["Request tokens"] == (
        f"{totals.requested:,} → {result.tokens_after:,} "
        f"= prompt + reserve {totals.output_reserve:,}"
    )
    share = result.tokens_saved / totals.tokens
    assert rows["Saved"] == f"{result.tokens_saved:,} tok ({share:.1%} of the prompt)"


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


def test_compaction_preview_summary_tab(snap_compare: SnapCompare) -> None:
    """The preview opens on its Summary tab.

    The reader should see the title "Compaction preview · 6 messages · prompt 32,768 →
    4,096 tok", three tabs (Summary, LLM prompt, Figures) with Summary active, the structured
    summary rendered as Markdown under "Summary of Previous Conversation" (Goal, Constraints,
    Progress, ... each bullet citing its message as (#N)), and Apply (a) / Export (x) /
    Send to LLM (s) / Cancel (esc) buttons at the bottom.
    """
    app = HostApp(lambda: CompactionPreviewScreen(compaction_result()))
    assert snap_compare(app, terminal_size=(100, 32))


def test_compaction_preview_prompt_tab(snap_compare: SnapCompare) -> None:
    """The LLM prompt tab shows the exact prompt, literally.

    The reader should see the prompt text starting "You summarize a SEGMENT ...", with the
    line "[user] Fix tests/test_pricing.py::test_bulk_discount_rounding [bold]now[/bold]"
    showing its square brackets as typed (not bold), inside a read-only text area.
    """
    app = HostApp(lambda: CompactionPreviewScreen(compaction_result()))
    assert snap_compare(app, terminal_size=(100, 32), run_before=_show_tab("prompt-tab"))


def test_compaction_preview_figures_tab(snap_compare: SnapCompare) -> None:
    """The Figures tab lists before/after in aligned rows.

    The reader should see Reason "proactive (in PicoClaw: the proactive budget check)",
    Messages replaced "6 (#1–#6, 28,990 tok)", Summary adds "318 tok", Prompt tokens
    "32,768 → 4,096", Request tokens "40,960 → 12,288 = prompt + reserve 8,192", Saved
    "28,672 tok (87.5% of the prompt)", LLM calls "1 leaf-summary call for the whole replaced
    range" and Fresh tail "3 messages (#2–#4) stay verbatim".
    """
    app = HostApp(lambda: CompactionPreviewScreen(compaction_result()))
    assert snap_compare(app, terminal_size=(100, 32), run_before=_show_tab("figures-tab"))


def test_compaction_preview_overflow(snap_compare: SnapCompare) -> None:
    """An overflow compaction cannot fix is shown as the error's fields, above the tabs.

    The reader should see a red-bordered box "Context window exceeded even after compaction"
    with model gpt-4.1, window 32,768 tokens, requested 41,200 tokens and reason "the fresh
    tail does not fit beside the system prompt, tool definitions and output reserve", one per
    line; the summary tab is still below it.
    """
    app = HostApp(lambda: CompactionPreviewScreen(compaction_result(overflow=OVERFLOW)))
    assert snap_compare(app, terminal_size=(100, 32))


def test_no_prompt_says_whether_nothing_was_replaced_or_the_style_drops() -> None:
    assert "every message is in the fresh tail" in prompt_preview("", replaced=False)
    assert "drops messages" in prompt_preview("", replaced=True)


def test_a_long_prompt_is_cut_and_says_how_to_see_it_whole() -> None:
    shown = prompt_preview("x" * (PROMPT_PREVIEW_CHARS + 10))
    assert shown.startswith("x" * 100) and "10 more bytes not shown here" in shown
    assert prompt_preview("short") == "short"


def test_the_figures_say_how_many_llm_calls_the_summary_takes() -> None:
    for calls, said in (
        (1, "1 leaf-summary call for the whole"),
        (3, "3 leaf-summary calls, one per"),
    ):
        result = compaction_result(prompt_calls=calls)
        rows = dict(figure_rows(result))
        assert rows["LLM calls"] == llm_calls_sentence(result)
        assert rows["LLM calls"].startswith(said)
    dropped = compaction_result(prompt="")
    assert dict(figure_rows(dropped))["LLM calls"].startswith("none: this compaction style drops")


async def test_the_llm_prompt_tab_shows_escapes_and_never_acts_on_them() -> None:
    """The prompt holds the transcript's text, escape sequences included (a window title,
    a screen clear): the tab shows them as visible glyphs, as the detail pane does, and no
    control character reaches the terminal (a TextArea passes them through)."""
    import unicodedata

    from textual.widgets import TextArea

    from ctxtui.samples import samples_dir
    from ctxtui.tui.app import make_app
    from ctxtui.tui.settings import deterministic_settings
    from ctxtui.tui.start import Start

    path = samples_dir() / "markup_and_ansi.json"
    app = make_app(path, Start(), settings=deterministic_settings())
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.press("c")
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        prompt = app.screen.query_one("#prompt", TextArea).text
        assert "␛]0;window title" in prompt
        controls = {c for c in prompt if unicodedata.category(c) == "Cc"} - {"\n", "\t"}
        assert not controls
