"""Snapshots of the modal screens: what a user sees when asked, warned or shown a preview."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from screen_fixtures import OVERFLOW, HostApp, compaction_result
from textual.pilot import Pilot
from textual.widgets import TabbedContent

from ctxtui.tui.screens.compaction import CompactionPreviewScreen
from ctxtui.tui.screens.error import ErrorScreen
from ctxtui.tui.screens.help import HelpScreen
from ctxtui.tui.screens.reason import ReasonScreen

SnapCompare = Callable[..., bool]


def _show_tab(tab_id: str) -> Callable[[Pilot[Any]], Any]:
    async def run_before(pilot: Pilot[Any]) -> None:
        pilot.app.screen.query_one(TabbedContent).active = tab_id
        await pilot.pause()

    return run_before


def test_compaction_preview_summary_tab(snap_compare: SnapCompare) -> None:
    """The preview opens on its Summary tab.

    The reader should see the title "Compaction preview · 6 messages · 40,960 → 12,288
    tokens", three tabs (Summary, LLM prompt, Figures) with Summary active, the structured
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
    Messages replaced "6 (#1–#6, 28,990 tok)", Summary adds "318 tok", Request tokens
    "40,960 → 12,288", Saved "28,672 tok (70.0%)", LLM calls "1 leaf-summary call for the
    whole replaced range" and Fresh tail "3 messages (#2–#4) stay verbatim".
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


def test_error_screen(snap_compare: SnapCompare) -> None:
    """A bad file opens an error dialog over the app, which keeps running behind it.

    The reader should see a red-bordered dialog titled "Could not open session" with the
    importer's one-line message "sessions/broken.jsonl:3: expected a JSON object, found
    [1, 2]" shown literally (brackets intact) and an OK button; the host app and its footer
    are dimmed behind it.
    """
    message = "sessions/broken.jsonl:3: expected a JSON object, found [1, 2]"
    app = HostApp(lambda: ErrorScreen(message))
    assert snap_compare(app, terminal_size=(80, 24))


def test_help_screen_with_remapped_key(snap_compare: SnapCompare) -> None:
    """Help lists the keys in force, including a remapped one, then the legend.

    The reader should see "Keys" with "k  Compact" (remapped from c through the keymap),
    "u  Undo", "t  Jump to tail", "?  Help" and the palette key, then the legend explaining
    the zones (tail, kept, dropped), what a row's figure and bar mean, the pruned and
    truncated marks, the detail pane's counts, and each gauge segment and colour.
    """
    app = HostApp(HelpScreen, keymap={"compact": "k"})
    assert snap_compare(app, terminal_size=(100, 40))


def test_reason_screen(snap_compare: SnapCompare) -> None:
    """Asking why to compact: three reasons, each with when it fires and PicoClaw's name.

    The reader should see "Why compact? (preset plan)" and the options proactive
    (highlighted; "In PicoClaw: the proactive budget check"), retry ("In PicoClaw: the retry
    after the LLM refuses the request") and overflow ("In PicoClaw: no such reason"), each
    tagged "only labels the event"; under the list what proactive changes in full ("Only
    labels the event: the plan preset replaces ..."), and the hint "Enter confirms · Escape
    cancels".
    """
    app = HostApp(ReasonScreen)
    assert snap_compare(app, terminal_size=(80, 24))


def test_reason_screen_60x20(snap_compare: SnapCompare) -> None:
    """The reason dialog on a 60×20 terminal still fits.

    The reader should see the whole dialog with its border, "Why compact? (preset plan)" at
    the top, the reasons in a list that scrolls (proactive highlighted, the others below the
    fold), the effect of proactive under it, and the hint "Enter confirms · Escape cancels"
    at the bottom, not cut off.
    """
    app = HostApp(ReasonScreen)
    assert snap_compare(app, terminal_size=(60, 20))
