"""The action registry: every row has its handler, and bindings, palette, footer and remapping
are all read from it (no second list to fall out of step)."""

from __future__ import annotations

from textual.app import App

from ctxtui.core.policies.presets import PRESETS
from ctxtui.tui.actions import (
    ACTIONS,
    BY_ID,
    Scope,
    bindings,
    footer_order,
    needs_session,
    palette_entries,
    remap,
)
from ctxtui.tui.app import CtxtuiApp
from ctxtui.tui.screens.main import MainScreen
from ctxtui.tui.widgets.footer import KEEP_ORDER


def test_every_action_has_a_handler_on_its_scope() -> None:
    for row in ACTIONS:
        node = CtxtuiApp if row.scope is Scope.APP else MainScreen
        assert callable(getattr(node, f"action_{row.id}", None)), row.id


APP_OWN = {name for name in vars(CtxtuiApp) if name.startswith("action_")}
"""The actions the app defines itself: the views (the rest are Textual's)."""


def test_the_app_defines_no_forwarders() -> None:
    """Main-screen actions live on the main screen only; the app does not pass them on."""
    app_actions = {f"action_{row.id}" for row in ACTIONS if row.scope is Scope.APP}
    assert APP_OWN and not APP_OWN - app_actions


def test_ids_are_unique_and_keys_do_not_clash_within_a_scope() -> None:
    assert len(BY_ID) == len(ACTIONS)
    for scope in Scope:
        keys = [b.key for b in bindings(scope)]  # type: ignore[union-attr]
        assert len(keys) == len(set(keys)), scope


def test_bindings_carry_the_registry_words() -> None:
    compact = next(b for b in bindings(Scope.MAIN) if b.id == "compact")  # type: ignore[union-attr]
    assert (compact.key, compact.action, compact.description) == ("c", "compact", "Compact")
    assert compact.tooltip == BY_ID["compact"].description
    hidden = {b.id for b in bindings(Scope.MAIN) if not b.show}  # type: ignore[union-attr]
    assert hidden == {"search_next"}


def test_footer_order_is_the_rank_order() -> None:
    assert footer_order() == KEEP_ORDER
    assert footer_order() == (
        "close_panels",
        "help",  # ? and q stay at 80×24 (issue 13 item 11)
        "quit",
        "compact",
        "search",
        "toggle_detail",  # the only way to the detail pane under 70 columns
        "compare",  # the views share one footer entry, `v T l F Views`, kept at 80×24
        "tools",
        "timeline",
        "fleet",
        "toggle_settings",
        "jump_tail",
        "open",
        "export",
        "undo",
        "audit",
    )


def test_session_actions_are_the_registry_ones() -> None:
    assert {a.id for a in ACTIONS if needs_session(a.id)} == {
        "compact",
        "export",
        "search",
        "search_next",
        "jump_tail",
        "audit",
    }
    assert not needs_session("undo") and not needs_session("not_an_action")


def test_palette_has_each_plain_action_and_one_entry_per_preset() -> None:
    entries = {e.title: e for e in palette_entries()}
    assert entries["Undo compaction"].action == "undo"
    assert entries["Switch theme"].scope is Scope.APP
    for name in PRESETS:
        entry = entries[f"Preset: {name}"]
        assert entry.action == f"preset({name!r})"
        assert entry.help == f"Re-plan with the {name} preset's knobs"
    assert "Next match" not in entries and "Close" not in entries
    assert callable(getattr(App, "action_change_theme", None))


def test_remap_passes_known_ids_and_names_the_unknown() -> None:
    keymap, notices = remap({"compact": "k", "export.cancel": "ctrl+c", "compakt": "j"})
    assert keymap == {"compact": "k", "export.cancel": "ctrl+c"}
    assert len(notices) == 1 and "'compakt'" in notices[0] and "compact" in notices[0]
    assert remap({}) == ({}, [])


def test_every_view_row_has_its_screen() -> None:
    """Each action the app defines pushes a screen class: it opens a view, nothing else."""
    from types import SimpleNamespace

    from textual.screen import Screen

    for name in APP_OWN:
        pushed: list[type] = []
        getattr(CtxtuiApp, name)(SimpleNamespace(push_view=pushed.append))
        assert len(pushed) == 1 and issubclass(pushed[0], Screen), name
