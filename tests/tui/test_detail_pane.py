"""The detail pane (``widgets/detail.py``): what it says about the selected message, its
counts from its own worker, its focus and scrolling, and where it hides on small terminals."""

from __future__ import annotations

import threading

import pytest
from textual.color import Color
from textual.widgets import Static

from ctxtui.core.planning.plan import Zone
from ctxtui.core.pricing.cost_words import cost_view, dollars
from ctxtui.core.session.models import Message, PartKind
from ctxtui.tui.widgets.detail import DetailPane
from ctxtui.tui.widgets.message_list import MessageList
from ctxtui.tui.widgets.session_bar import SessionBar
from tests.tui.main_fixtures import (
    STORY,
    SnapCompare,
    app_for,
    demo_session,
    footer_actions,
    press,
    select,
    settle,
    then,
)

LONG_OUTPUT = 2  # the demo's first tool output: 40 numbered lines, taller than the pane


def border_colour(pane: DetailPane, *, wide: bool) -> Color:
    edge = pane.styles.border_left if wide else pane.styles.border_top
    return edge[1]


def test_the_detail_pane_names_an_images_pixels_and_tokens() -> None:
    from ctxtui.core.session.models import ContentPart
    from ctxtui.tui.widgets.detail import DetailInfo, describe

    image = ContentPart(
        kind=PartKind.IMAGE, media_type="image/png", byte_size=4_000, width=1000, height=1000,
        token_estimate=1334,
    )  # fmt: skip
    message = Message(role="user", content="look", parts=(image,))
    info = DetailInfo(index=0, message=message, zone=Zone.KEPT, tokens=1340, effective=1340)
    assert "<image image/png 4,000 bytes, 1,000×1,000 px, 1,334 tok by its provider's rule>" in (
        describe(info).plain
    )


def test_detail_caps_a_megabyte_message_and_says_how_much_is_left() -> None:
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


async def test_detail_pane_says_what_a_message_cost_while_in_context() -> None:
    app = app_for(STORY)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = pilot.app.screen
        plan = screen.state.plan  # type: ignore[attr-defined]
        view = cost_view(screen.state.session, plan.message_tokens)  # type: ignore[attr-defined]
        screen.query_one(MessageList).select(3)
        await settle(pilot)
        body = str(screen.query_one(DetailPane).query_one("#detail-body").render())
        n = view.carry.requests[3]
        assert n > 1
        assert f"carry: re-sent in {n} requests, {dollars(view.carry.cost[3])}" in body


async def test_moving_the_cursor_does_not_flash_counting_in_the_detail_pane() -> None:
    """Once tiktoken is loaded, a short message is counted at once: the pane used to say
    "counting under every tokenizer…" for a frame on every cursor move. The pane is read
    straight after the screen shows the message, before any worker could have answered."""
    from ctxtui.tui.widgets.detail import DetailPane

    app = app_for(demo_session())
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        main = app.main
        body = app.screen.query_one(DetailPane).query_one("#detail-body")
        for index in (3, 4, 7):
            main.show_detail(index)
            text = str(body.render())
            assert text.startswith(f"#{index} ")
            assert "counting under every tokenizer" not in text
            assert "tiktoken:cl100k_base" in text


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


async def test_tab_focuses_the_detail_pane_and_its_keys_scroll_it() -> None:
    for size, wide in (((120, 40), True), ((80, 24), False)):
        app = app_for(demo_session())
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            messages = app.screen.query_one(MessageList)
            pane = app.screen.query_one(DetailPane)
            messages.select(LONG_OUTPUT)
            await settle(pilot)
            unfocused = border_colour(pane, wide=wide)
            assert app.screen.query_one("#session-bar").has_class("-list-focused")
            list_mark = app.screen.query_one(SessionBar).styles.border_bottom[1]

            await pilot.press("tab")
            await pilot.pause()
            assert app.screen.focused is pane, size
            assert not app.screen.query_one("#session-bar").has_class("-list-focused")
            assert border_colour(pane, wide=wide) != unfocused, "the focused pane is marked"
            assert app.screen.query_one(SessionBar).styles.border_bottom[1] != list_mark
            assert pane.max_scroll_y > 0, "the output is taller than the pane"

            await pilot.press("pagedown")
            await pilot.pause()
            assert pane.scroll_y > 0
            await pilot.press("end")
            await pilot.pause()
            assert pane.scroll_y == pane.max_scroll_y
            await pilot.press("up")
            await pilot.pause()
            assert pane.scroll_y == pane.max_scroll_y - 1
            assert messages.cursor == LONG_OUTPUT, "the keys scrolled the pane, not the list"

            await pilot.press("shift+tab")
            await pilot.pause()
            assert app.screen.focused is messages
            assert border_colour(pane, wide=wide) == unfocused


async def test_at_60x20_d_shows_and_hides_the_detail_pane() -> None:
    """Under 70 columns the pane used to vanish for good; `d` brings it back below the list."""
    app = app_for(demo_session())
    async with app.run_test(size=(60, 20)) as pilot:
        await settle(pilot)
        pane = app.screen.query_one(DetailPane)
        messages = app.screen.query_one(MessageList)
        assert not pane.display
        assert {"help", "quit", "toggle_detail"} <= footer_actions(app)
        messages.select(3)
        await pilot.press("d")
        await settle(pilot)
        assert pane.display
        assert messages.region.bottom <= pane.region.y and pane.region.bottom <= 19
        body = str(pane.query_one("#detail-body", Static).render())
        assert body.startswith("#3 ") and "counting" not in body
        await pilot.press("d")
        await pilot.pause()
        assert not pane.display
        await pilot.resize_terminal(120, 40)  # the choice holds across a resize
        await pilot.pause()
        assert not pane.display
        await pilot.press("d")
        await pilot.pause()
        assert pane.display


def test_small_80x24_detail_focused(snap_compare: SnapCompare) -> None:
    """80×24 after selecting #2 and Tab: 14 list rows (#0–#13) above a short detail pane whose
    top rule is accent-coloured (it has the focus), scrolled one page down into the output
    by PgDn; the footer keeps `? Help` and `q Quit` whole."""
    app = app_for(demo_session())
    steps = then(select(2), press("tab", "pagedown"))
    assert snap_compare(app, terminal_size=(80, 24), run_before=steps)


def test_small_60x20_detail_toggled(snap_compare: SnapCompare) -> None:
    """60×20 after `d` on #3: the detail pane, hidden at this width, shows #3 below the list
    (half the body); the gauge legend wraps whole entries (no swatch ends a line); the
    footer keeps `? Help`, `q Quit` and `d Detail`."""
    app = app_for(demo_session())
    steps = then(select(3), press("d"))
    assert snap_compare(app, terminal_size=(60, 20), run_before=steps)
