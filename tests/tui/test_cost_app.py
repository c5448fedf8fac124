"""Dollars in the app: the gauge's API line says what the last request cost and how much of
it the cache held; the detail pane what a message cost while it stayed in the context."""

from __future__ import annotations

from ctxtui.core.pricing.cost import session_cost
from ctxtui.core.pricing.cost_words import cost_view, dollars, last_priced
from ctxtui.importers import load_session
from ctxtui.samples import samples_dir
from ctxtui.tui.widgets.detail import DetailPane
from ctxtui.tui.widgets.gauge import BudgetGauge
from ctxtui.tui.widgets.message_list import MessageList
from tests.tui.main_fixtures import app_for
from tests.tui.test_snapshots_main import settle

STORY = samples_dir() / "claude_code_cache_story.jsonl"


async def test_gauge_api_line_ends_with_the_last_requests_cost_and_hit_ratio() -> None:
    session = load_session(STORY)
    last = last_priced(session_cost(session))
    assert last is not None and last.cost is not None and last.hit_ratio is not None
    async with app_for(STORY).run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        line = str(pilot.app.screen.query_one(BudgetGauge).render()).splitlines()[3]
        assert line.startswith("API 18,048")
        assert line.endswith(f" · {dollars(last.cost)} · cache hit {last.hit_ratio:.0%}")


async def test_gauge_leaves_dollars_out_when_narrow() -> None:
    async with app_for(STORY).run_test(size=(90, 40)) as pilot:
        await settle(pilot)
        line = str(pilot.app.screen.query_one(BudgetGauge).render()).splitlines()[3]
        assert "$" not in line and "cache hit" not in line


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


async def test_compare_prices_each_presets_replay() -> None:
    from textual.widgets import Static

    from ctxtui.core.compare import replay_entry
    from ctxtui.core.engine import Engine
    from ctxtui.tui.screens.compare import DEFAULT_PRESETS, CompareScreen

    async with app_for(STORY).run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("v")
        await settle(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, CompareScreen)
        line = str(screen.query_one("#compare-cost", Static).render()).replace("\n", " ")
        engine = Engine(screen.state.session)
        overrides = {k: v for k, v in screen.state.overrides.items() if k in ("context_window",)}
        entry = replay_entry(engine, "codex", {**overrides, "max_tokens": 4096})
        assert line.startswith(
            f"replayed in dollars: recorded {dollars(entry['recorded_cost_usd'])}"
        )
        for n, name in enumerate(DEFAULT_PRESETS):
            assert f"{n + 1} {name} $" in line
