"""The footer offers the views (compare, tools, timeline, fleet) as one ``v T l F Views`` entry, and
keeps whole keys and whole groups at every width."""

from __future__ import annotations

from textual.widgets._footer import FooterKey, FooterLabel

from ctxtui.tui.actions import VIEWS
from ctxtui.tui.widgets.footer import FittingFooter
from tests.tui.main_fixtures import (
    app_for,
    demo_session,
    footer_keys,
    settle,
)

VIEW_ACTIONS = {"compare", "tools", "timeline", "fleet"}


def footer_line(footer: FittingFooter) -> str:
    """The footer's text as drawn (one line)."""
    return "".join(s.text for s in footer.app.screen._compositor.render_strips()[-1])


async def test_the_views_are_in_the_footer_at_120_columns() -> None:
    """A newcomer saw no sign of `v`, `T` or `l`: nothing in the footer named a view."""
    app = app_for(demo_session())
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        footer = app.screen.query_one(FittingFooter)
        keys = {k.action: k for k in footer.query(FooterKey)}
        assert set(keys) >= VIEW_ACTIONS
        assert "undo" in keys, "the views took no other key's place"
        assert [str(label.content) for label in footer.query(FooterLabel)] == [VIEWS]
        assert "v T l F Views" in footer_line(footer)
        assert "a Audit" in footer_line(footer)


async def test_whole_keys_and_whole_groups_at_every_width() -> None:
    app = app_for(demo_session())
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        for width in (200, 120, 100, 95, 90, 80, 70, 60, 50, 40):
            await pilot.resize_terminal(width, 30)
            await pilot.pause()
            await pilot.pause()
            footer = app.screen.query_one(FittingFooter)
            keys = list(footer.query(FooterKey))
            actions = {k.action for k in keys}
            assert {"help", "quit", "command_palette"} <= actions, (width, actions)
            shown = VIEW_ACTIONS & actions
            assert shown in (set(), VIEW_ACTIONS), (width, shown)
            assert bool(footer.query(FooterLabel)) == bool(shown), width
            palette = next(k for k in keys if k.action == "command_palette")
            others = [*(k for k in keys if k is not palette), *footer.query(FooterLabel)]
            for widget in others:
                assert widget.region.right < palette.region.x, (width, widget)
            if width >= 120:
                assert shown == VIEW_ACTIONS, width


async def test_footer_keeps_whole_keys_at_every_width() -> None:
    """At 80 columns Textual's footer cut `^p palette` and dropped `? Help` off the edge; the
    footer now leaves out whole keys, least important first, and never overlaps the palette;
    `?` and `q` are the last to go."""
    for (width, height), must, gone in (
        ((120, 40), {"compact", "help", "quit", "command_palette"}, set()),
        ((80, 24), {"compact", "search", "help", "quit", "command_palette", "undo", "open"}, set()),
        ((60, 20), {"compact", "search", "help", "quit", "command_palette"}, {"open"}),
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


async def test_at_80_columns_the_minor_keys_stay_as_keys_alone() -> None:
    """At 80×24 the footer lost `o e u t` whole; they now give up their words instead."""
    app = app_for(demo_session())
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        keys = {k.action: k for k in footer_keys(app)}
        for action in ("open", "export", "undo", "jump_tail"):
            assert action in keys, action
            assert keys[action].description == "", action
        assert keys["compact"].description == "Compact"
        assert keys["help"].description == "Help"
