"""The reason dialog says what each reason changes under the session's preset, in plain words.

Picking ``retry`` instead of ``proactive`` changes nothing in most presets; a picker that does
not say so looks broken. No defect number (``X15``) is UI text: the tests scan every string
the package could show, and the screens as rendered.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import pytest
from screen_fixtures import SIZE, HostApp
from textual.pilot import Pilot
from textual.widgets import OptionList, Static

import ctxtui
from ctxtui.core.policies.policy import preset
from ctxtui.core.policies.reason_effects import reason_effect
from ctxtui.core.policies.reasons import CompactReason
from ctxtui.tui.screens.compaction import CompactionPreviewScreen
from ctxtui.tui.screens.reason import ReasonScreen
from tests.tui.main_fixtures import SnapCompare, app_for, demo_session, press, settle, then

DEFECT = re.compile(r"\bX\d+\b")

PACKAGE = Path(ctxtui.__file__).parent


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of the string constants that are docstrings (module, class, function, and the
    attribute docstrings under an assignment): the reader of the code's, never the UI's."""
    return {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
    }


def ui_strings_with_defect_numbers(root: Path) -> list[str]:
    """Every string literal under ``root`` that is not a docstring and names a defect."""
    found = []
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docs = _docstrings(tree)
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and id(node) not in docs
                and DEFECT.search(node.value)
            ):
                found.append(f"{path.relative_to(root)}:{node.lineno}: {node.value[:60]}")
    return found


def test_no_defect_number_in_any_string_the_app_can_show() -> None:
    assert ui_strings_with_defect_numbers(PACKAGE) == []


def test_the_scan_finds_a_defect_number_outside_docstrings(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(
        '"""Fixes X15."""\n\nLABEL = "none (defect X15)"\n"""Also X3 here."""\n'
        'def f():\n    """X9."""\n    return f"see X{1}2"\n'
    )
    assert ui_strings_with_defect_numbers(tmp_path) == ["m.py:3: none (defect X15)"]


async def _open_reasons(pilot: Pilot[Any]) -> ReasonScreen:
    """The dialog, asked before the preview (picoclaw past its turn limit) or from it (``r``)."""
    await settle(pilot)
    await pilot.press("c")
    await settle(pilot)
    if isinstance(pilot.app.screen, CompactionPreviewScreen):
        await pilot.press("r")
        await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, ReasonScreen)
    return screen


def test_reason_dialog_picoclaw_120x40(snap_compare: SnapCompare) -> None:
    """Under the picoclaw preset, the demo past PicoClaw's after-turn limit: the title names
    the preset; each reason says "changes the compaction" beside its name, with when it fires
    and PicoClaw's name (overflow: "In PicoClaw: no such reason", no defect number); under the
    list, in full for the highlighted proactive: "Changes the compaction: the history is past
    PicoClaw's after-turn limit, so the picoclaw preset summarises the messages before the
    fresh tail ..."."""
    app = app_for(demo_session(), preset="picoclaw")
    assert snap_compare(app, terminal_size=(120, 40), run_before=then(press("c")))


@pytest.mark.parametrize("name", ["plan", "picoclaw", "opencode"])
async def test_each_reason_says_its_effect_in_the_sessions_preset(name: str) -> None:
    app = app_for(demo_session(), preset=name)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _open_reasons(pilot)
        policy = app.screen_stack[0].policy  # type: ignore[attr-defined]
        post_turn = app.screen_stack[0].plan.compaction.post_turn  # type: ignore[attr-defined]
        assert policy.preset == name
        reasons = screen.query_one(OptionList)
        for reason in (CompactReason.PROACTIVE, CompactReason.RETRY, CompactReason.OVERFLOW):
            option = reasons.get_option(reason.value)
            assert ("only labels the event" in str(option.prompt)) is not post_turn
            reasons.highlighted = reasons.get_option_index(reason.value)
            await pilot.pause()
            shown = str(screen.query_one("#effect", Static).render())
            assert shown == f"{reason.value}: {reason_effect(policy, reason, post_turn)}"
            assert f"the {name} preset" in shown
            assert not DEFECT.search(str(option.prompt) + shown)


def test_a_reason_that_changes_the_compaction_is_not_tagged_as_a_label() -> None:
    from ctxtui.core.policies.reason_effects import ReasonChoice
    from ctxtui.tui.screens.reason import effect_tag

    changes = ReasonChoice(CompactReason.RETRY, "", "Changes the compaction: ...", "")
    labels = ReasonChoice(
        CompactReason.RETRY, "", reason_effect(preset("plan"), changes.reason), ""
    )
    assert effect_tag(changes) == "changes the compaction"
    assert effect_tag(labels) == "only labels the event"


@pytest.mark.parametrize("name", ["plan", "opencode", "codex", "claude-code"])
async def test_no_dialog_where_the_reason_only_labels_the_event(name: str) -> None:
    """Issue 29 item 4: the preview opens at once with the plan's reason, and offers ``r``."""
    app = app_for(demo_session(turns=20), preset=name)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("c")
        await settle(pilot)
        preview = app.screen
        assert isinstance(preview, CompactionPreviewScreen), type(preview)
        assert preview.choose_reason
        assert str(preview.result.reason.value) in str(
            preview.query_one("#reason").label  # type: ignore[attr-defined]
        )
        await pilot.press("r")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, ReasonScreen)
        reasons = dialog.query_one(OptionList)
        reasons.highlighted = reasons.get_option_index(CompactReason.RETRY.value)
        await pilot.press("enter")
        await settle(pilot)
        again = app.screen
        assert isinstance(again, CompactionPreviewScreen)
        assert again.result.reason is CompactReason.RETRY
        assert again.choose_reason, "the new preview says the reason chosen and offers r"
        label = str(again.query_one("#reason").label)  # type: ignore[attr-defined]
        assert CompactReason.RETRY.value in label


async def test_the_dialog_asks_where_the_reason_changes_the_compaction() -> None:
    app = app_for(demo_session(), preset="picoclaw")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert app.screen_stack[0].plan.compaction.post_turn  # type: ignore[attr-defined]
        await pilot.press("c")
        await settle(pilot)
        assert isinstance(app.screen, ReasonScreen)
        await pilot.press("enter")
        await settle(pilot)
        preview = app.screen
        assert isinstance(preview, CompactionPreviewScreen)
        assert not preview.choose_reason and not preview.query("#reason")


def _plan_reasons() -> ReasonScreen:
    return ReasonScreen(preset("plan"))


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
    app = HostApp(_plan_reasons)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*presses, "enter")
        assert app.results == [expected]


async def test_reason_screen_names_picoclaw_wire_values_and_cancels() -> None:
    app = HostApp(_plan_reasons)
    async with app.run_test(size=SIZE) as pilot:
        options = app.screen.query_one("#reasons", OptionList)
        rendered = " ".join(str(options.get_option_at_index(i).prompt) for i in range(3))
        assert "In PicoClaw: the proactive budget check" in rendered
        assert "In PicoClaw: the retry after the LLM refuses the request" in rendered
        await pilot.press("escape")
        assert app.results == [None]


async def test_reason_screen_fits_a_20_row_terminal() -> None:
    """At 60×20 the three reasons need more rows than there are: the list scrolls, and the
    hint and the dialog's border stay on screen."""
    app = HostApp(_plan_reasons)
    async with app.run_test(size=(60, 20)) as pilot:
        await pilot.pause()
        hint = app.screen.query_one("#hint")
        dialog = app.screen.query_one("#dialog")
        assert hint.region.bottom <= dialog.region.bottom <= 20
        assert hint.region.height == 1
        await pilot.press("down", "down", "enter")
        assert app.results == [CompactReason.OVERFLOW]


def test_reason_screen(snap_compare: SnapCompare) -> None:
    """Asking why to compact: three reasons, each with when it fires and PicoClaw's name.

    The reader should see "Why compact? (preset plan)" and the options proactive
    (highlighted; "In PicoClaw: the proactive budget check"), retry ("In PicoClaw: the retry
    after the LLM refuses the request") and overflow ("In PicoClaw: no such reason"), each
    tagged "only labels the event"; under the list what proactive changes in full ("Only
    labels the event: the plan preset replaces ..."), and the hint "Enter confirms · Escape
    cancels".
    """
    app = HostApp(_plan_reasons)
    assert snap_compare(app, terminal_size=(80, 24))


def test_reason_screen_60x20(snap_compare: SnapCompare) -> None:
    """The reason dialog on a 60×20 terminal still fits.

    The reader should see the whole dialog with its border, "Why compact? (preset plan)" at
    the top, the reasons in a list that scrolls (proactive highlighted, the others below the
    fold), the effect of proactive under it, and the hint "Enter confirms · Escape cancels"
    at the bottom, not cut off.
    """
    app = HostApp(_plan_reasons)
    assert snap_compare(app, terminal_size=(60, 20))
