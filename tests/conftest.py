"""Test-wide settings: no animations, no network, deterministic hypothesis."""

from __future__ import annotations

import asyncio
import gc
import inspect
import os
import signal

# For the processes the tests start (the CLI, the bench's children).
os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")

import pytest
import textual._wait
import textual.constants
from hypothesis import settings

# Textual reads the variable when first imported, and pytest-textual-snapshot imports it
# before this file runs: without ``make test`` (which sets it), bare ``pytest`` ran the apps
# with full animations. Apps read this constant when they are made.
textual.constants.TEXTUAL_ANIMATIONS = "none"  # type: ignore[misc]

# A pilot's key press and pause wait until the process looks idle: Textual sleeps in slices
# of 20 ms and calls the process idle once a slice passes with under a twentieth of it spent
# on the CPU. Every press waited at least two slices, and the app tests spent 96 of their
# 160 worker-seconds in those waits. Slices of 5 ms keep the same test (the same one-twentieth
# share of a slice) and cut tests/tui from 81 s to 60 s. Shorter slices gained little more and
# let a resize be read before the screen had laid it out (docs/PERFORMANCE.md).
IDLE_SLICE = 0.005
textual._wait.SLEEP_GRANULARITY = IDLE_SLICE
textual._wait.SLEEP_IDLE = IDLE_SLICE / 20

# The cyclic collector's young generation is collected every 700 allocations by default. An
# app test's widgets, strips and messages live for the whole test, so they survive those
# collections into the old generation, and each full collection then walks the runner's own
# heap too (every collected test item, hypothesis, Textual), which the app does not carry. A
# young generation of 20,000 lets them die young; the collector still runs, so garbage cycles
# are still freed, and the processes the tests start keep Python's defaults.
gc.set_threshold(20_000, 10, 10)

# A shell starts a background job with SIGINT and SIGQUIT ignored, and children inherit an
# ignored signal: the tests that interrupt a real ctxtui process then saw it run to the end.
# The runner takes a terminal's dispositions back, whatever started it.
signal.signal(signal.SIGINT, signal.default_int_handler)
signal.signal(signal.SIGQUIT, signal.SIG_DFL)

settings.register_profile("ci", deadline=None, print_blob=True, derandomize=True)
settings.load_profile("ci")


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> bool | None:
    """Run ``async def`` tests (Textual pilot tests) with ``asyncio.run``.

    Textual's ``App.run_test()`` only needs an event loop; a plugin would be one more pinned
    dependency for that alone.
    """
    if not inspect.iscoroutinefunction(pyfuncitem.obj):
        return None
    names = pyfuncitem._fixtureinfo.argnames
    asyncio.run(pyfuncitem.obj(**{name: pyfuncitem.funcargs[name] for name in names}))
    return True
