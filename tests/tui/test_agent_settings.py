"""The app opens a session with its agent's configured values, as ``ctxtui policy`` does, and
the session bar says where they came from and what trigger the agent was seen to use."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from textual.widgets import Input

from ctxtui.core.policies.policy import policy_for_session
from ctxtui.core.session.models import Session
from ctxtui.tui.app import make_app
from ctxtui.tui.jobs import read_configured
from ctxtui.tui.screens.main import MainScreen
from ctxtui.tui.settings import _Pinned
from ctxtui.tui.start import Start
from ctxtui.tui.widgets.session_bar import SessionBar
from tests.tui.main_fixtures import (
    SnapCompare,
    demo_session,
    open_timeline,
    replay_sample,
    settle,
    then,
)

ORIGIN = "~/.claude/settings.json env.CLAUDE_AUTOCOMPACT_PCT_OVERRIDE"
HALF = 90_000
"""50 % of the effective window: (200,000 − min(32,000, 20,000)) × 0.5 (the override's rule,
``core.tuning.configured``), below the default threshold, so not capped."""


def _settings(**values: Any) -> _Pinned:
    return _Pinned(theme="textual-dark", tokenizer="plan", cursor_blink=False, **values)


def _override(home: Path, pct: str) -> None:
    (home / ".claude").mkdir()
    settings = {"env": {"CLAUDE_AUTOCOMPACT_PCT_OVERRIDE": pct}}
    (home / ".claude/settings.json").write_text(json.dumps(settings))


def _main(app: Any) -> MainScreen:
    screen = app.screen_stack[0]
    assert isinstance(screen, MainScreen)
    return screen


def _bar(app: Any) -> str:
    return str(_main(app).query_one(SessionBar).render())


async def test_the_session_opens_with_the_agents_configured_trigger(empty_home: Path) -> None:
    _override(empty_home, "50")
    app = make_app(replay_sample(), settings=_settings())
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        state = _main(app).state
        assert state.preset_words == "claude-code, from the transcript"
        assert state.policy.trigger == HALF
        assert [(c.knob, c.origin) for c in state.configured] == [("trigger_buffer", ORIGIN)]
        await pilot.press("s")
        await settle(pilot)
        panel = _main(app).query_one("#knob-trigger_buffer", Input)
        assert panel.value == str(state.policy.trigger_buffer)
        bar = " ".join(_bar(app).split())
        assert f"trigger_buffer from {ORIGIN}" in bar
        # The band (28,199–28,452 in the sample) sits below the configured 90,000.
        assert "agent compacted at 28,199–28,452 (3 auto): the agent compacted below" in bar


async def test_without_settings_the_preset_stands(empty_home: Path) -> None:
    app = make_app(replay_sample(), settings=_settings())
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        state = _main(app).state
        assert state.session is not None
        assert state.configured == ()
        assert state.policy.trigger == policy_for_session("claude-code", state.session).trigger
        assert "settings.json" not in _bar(app)


async def test_the_users_preset_and_knobs_win(empty_home: Path) -> None:
    _override(empty_home, "50")
    pinned = make_app(replay_sample(), Start(preset="plan"), settings=_settings())
    async with pinned.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert _main(pinned).state.configured == ()
        assert "settings.json" not in _bar(pinned)
    knob = make_app(
        replay_sample(), Start(overrides={"trigger_buffer": 50_000}), settings=_settings()
    )
    async with knob.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        state = _main(knob).state
        assert state.policy.trigger_buffer == 50_000
        assert state.configured == ()


def test_the_load_worker_reads_only_an_agents_settings(empty_home: Path) -> None:
    _override(empty_home, "50")
    from ctxtui.importers import load_session

    config = read_configured(load_session(replay_sample()))
    assert config is not None and config.agent == "claude-code"
    assert config.get("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE") is not None
    in_memory: Session = demo_session()
    assert read_configured(in_memory) is None


async def test_the_timeline_legend_names_the_band(empty_home: Path) -> None:
    app = make_app(replay_sample(), settings=_settings())
    async with app.run_test(size=(120, 40)) as pilot:
        timeline = await open_timeline(pilot)
        legend = str(timeline.query_one("#timeline-legend").render())
        assert "agent compacted at 28,199–28,452 (3 auto)" in " ".join(legend.split())


def test_configured_and_observed_on_the_bar_120x40(
    snap_compare: SnapCompare, empty_home: Path
) -> None:
    """After "preset claude-code, from the transcript · tokenizer …": "trigger_buffer from
    ~/.claude/settings.json env.CLAUDE_AUTOCOMPACT_PCT_OVERRIDE", the gauge's trigger at
    90,000, and "agent compacted at 28,199–28,452 (3 auto): the agent compacted below the
    override (its window or reserve differ)"."""
    _override(empty_home, "50")
    app = make_app(replay_sample(), settings=_settings())
    assert snap_compare(app, terminal_size=(120, 40), run_before=then())


def test_configured_and_observed_on_the_bar_80x24(
    snap_compare: SnapCompare, empty_home: Path
) -> None:
    """At 80×24 the band takes the row of the recorded dollars ("recorded $3.53 · agent
    compacted at 28,199–28,452 (3 auto)"); the configured value's origin and the verdict join
    the notes' row after the recorded compactions, cut to the width."""
    _override(empty_home, "50")
    app = make_app(replay_sample(), settings=_settings())
    assert snap_compare(app, terminal_size=(80, 24), run_before=then())
