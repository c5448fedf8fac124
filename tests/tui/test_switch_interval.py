"""While the app runs, threads hand the interpreter lock over every millisecond, so keys are
not queued behind a CPU-bound worker (``KEYS_SWITCH_INTERVAL``); the process gets its own
interval back when the app ends."""

from __future__ import annotations

import sys

import pytest

from ctxtui.tui.app import KEYS_SWITCH_INTERVAL
from tests.tui.main_fixtures import app_for, demo_session, settle


async def test_the_app_sets_the_switch_interval_while_it_runs_and_restores_it() -> None:
    before = sys.getswitchinterval()
    assert before != pytest.approx(KEYS_SWITCH_INTERVAL)
    app = app_for(demo_session())
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert sys.getswitchinterval() == pytest.approx(KEYS_SWITCH_INTERVAL)
    assert sys.getswitchinterval() == pytest.approx(before)
