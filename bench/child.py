"""What the benchmark runs in a fresh interpreter, so memory and start-up are the process's own.

``python -m bench.child MODE [FILE]``: ``imports`` (the interpreter plus the modules an open
needs, the RSS baseline), ``json FILE`` (CPython ``json.load``), ``open FILE`` (file →
Session → estimator counts → first Plan), ``firstpaint`` (the demo app's first screen).
Each prints the seconds its work took.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path


def _imports() -> None:
    import ctxtui.core.engine
    import ctxtui.core.policies.policy
    import ctxtui.importers  # noqa: F401


def open_session(path: Path) -> object:
    """What the app needs to be interactive: the session, its estimator counts and a plan."""
    from ctxtui.core.engine import Engine
    from ctxtui.core.policies.policy import policy_for_session
    from ctxtui.importers import load_session
    from ctxtui.system.count_cache import default_cache

    session = load_session(path)
    return Engine(session, default_cache()).plan(policy_for_session("plan", session))


async def _first_paint() -> tuple[float, float]:
    from ctxtui.tui.app import make_app
    from ctxtui.tui.settings import deterministic_settings

    start = time.perf_counter()
    app = make_app(None, settings=deterministic_settings())
    async with app.run_test(size=(120, 40)) as pilot:
        screen_at = time.perf_counter() - start
        for _ in range(500):
            if getattr(app.main, "plan", None) is not None:
                break
            await pilot.pause(0.01)
        await pilot.pause()
        plan_at = time.perf_counter() - start
    return screen_at, plan_at


def main(argv: list[str]) -> None:
    mode = argv[0]
    start = time.perf_counter()
    if mode == "imports":
        _imports()
    elif mode == "json":
        with Path(argv[1]).open(encoding="utf-8") as f:
            json.load(f)
    elif mode == "open":
        _imports()
        start = time.perf_counter()
        open_session(Path(argv[1]))
    elif mode == "firstpaint":
        import asyncio

        screen_at, plan_at = asyncio.run(_first_paint())
        print(f"{screen_at} {plan_at}")
        return
    else:
        raise SystemExit(f"unknown mode {mode!r}")
    print(time.perf_counter() - start)


if __name__ == "__main__":
    main(sys.argv[1:])
