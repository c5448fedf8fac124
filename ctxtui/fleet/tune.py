"""``tune``'s jobs: one session read and counted once, then replayed under every candidate.

``tune_session`` is pure and picklable both ways, as ``job.session_row`` is, so the fleet's
executors run it (a process pool, or a Dask cluster); it never raises for what a file holds.
The counts come from the count cache on disk (``system/count_cache``), so a session counted
before (by ``fleet``, ``report`` or an earlier ``tune``) is not counted again.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, Future, wait
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ctxtui.core.tuning.document import Outcome, Searched, search_for, tune_document
from ctxtui.core.tuning.score import Score
from ctxtui.core.tuning.space import Settings, configured_point
from ctxtui.fleet.job import Target, _describe

if TYPE_CHECKING:
    from ctxtui.core.engine import Engine
    from ctxtui.core.policies.policy import Policy
    from ctxtui.core.pricing.cost import SessionCost
    from ctxtui.core.session.models import Session
    from ctxtui.core.simulation.replay import Replay
    from ctxtui.core.tuning.configured import AgentConfig
    from ctxtui.fleet.run import ExecutorFactory


@dataclass(frozen=True, slots=True)
class TuneSpec:
    """What every session is replayed under: the agent, its preset, the candidates."""

    agent: str
    preset: str
    candidates: tuple[Settings, ...]
    format: str | None = None


@dataclass(frozen=True, slots=True)
class AgentSearch:
    """One agent's search: its settings as read, the point they make, what is searched."""

    config: AgentConfig | None
    current: Settings | None
    searched: Searched

    def spec(self, format_name: str | None) -> TuneSpec:
        """What every session is replayed under."""
        searched = self.searched
        return TuneSpec(searched.agent, searched.preset, searched.candidates, format_name)

    def document(self, run: TuneRun) -> dict[str, Any]:
        """The ``ctxtui.tune/1`` document of ``run``, beside the agent's configured values."""
        from ctxtui.core.policies.policy import preset
        from ctxtui.core.tuning.configured import Configured, configured_values

        values: tuple[Configured, ...] = ()
        if self.config is not None:
            values = configured_values(self.config, preset(self.searched.preset))
        return tune_document(self.searched, run.results(), values, self.current, run.interrupted)


def agent_search(
    agent: str,
    read: Callable[[str], AgentConfig],
    choose: Callable[[str, Settings | None], Searched] = search_for,
) -> AgentSearch:
    """``agent``'s settings (``read``; none for ``plan``) and the search around them
    (``choose``: the grid with the configured point added)."""
    config = read(agent) if agent != "plan" else None
    current = configured_point(agent, config)
    return AgentSearch(config, current, choose(agent, current))


def engine_for(history: Session) -> Engine:
    """One engine per session: its counts are made once (or read from the cache on disk)
    and every candidate's replay reuses them."""
    from ctxtui.core.engine import Engine
    from ctxtui.system.count_cache import default_cache

    return Engine(history, default_cache())


def replay_under(
    engine: Engine, policy: Policy, should_stop: Callable[[], bool] | None = None
) -> Replay:
    """Count, plan and replay the engine's session under ``policy``: the one path from a
    policy to its replay that ``tune`` takes (``Engine.run`` once there is one). Raises
    ``ReplayStoppedError`` when ``should_stop`` says so."""
    from ctxtui.core.simulation.live_context import Counted
    from ctxtui.core.simulation.replay import ReplayStoppedError, replay

    history = engine.session
    counts = engine.counts(policy, should_stop=should_stop)
    if counts is None:
        raise ReplayStoppedError(0)  # no request replayed
    plan = engine.plan(policy, counts)
    counted = Counted(history, policy, counts, engine.tokenizer(policy))
    return replay(counted, plan, should_stop=should_stop)


def _scale(walked: Replay) -> float:
    """API tokens per replay token, from the session's calibration (characters only): the
    same for every candidate, so fitted once per session."""
    from ctxtui.core.pricing.cache_model import token_scale
    from ctxtui.core.tokens.calibration import calibrate

    fit = calibrate(walked.session, walked.points, {}).fit
    return token_scale(walked.session, walked.counts, fit)


def _score(walked: Replay, recorded: SessionCost, scale: float) -> Score:
    from ctxtui.core.pricing.cache_model import what_if
    from ctxtui.core.pricing.cost import usd
    from ctxtui.core.simulation.replay import EventKind
    from ctxtui.core.simulation.retention_audits import simulated_audits

    priced = what_if(walked, recorded, scale)
    known = any(r is not None and r.cost is not None for r in priced.requests)
    audits = simulated_audits(walked) if walked.compactions else ()
    window = walked.policy.context_window
    return Score(
        cost_usd=usd(priced.total) if known else None,
        compactions=len(walked.compactions),
        overflows=sum(1 for r in walked.requests if r.has(EventKind.OVERFLOW)),
        lost_needed=sum(a.needed_and_lost for a in audits),
        needed=sum(a.needed_after[1] for a in audits),
        peak=walked.peak_tokens / window if walked.requests and window else 0.0,
    )


def tune_session(
    target: Target,
    spec: TuneSpec,
    *,
    should_stop: Callable[[], bool] | None = None,
    on_candidate: Callable[[int, int], None] | None = None,
) -> Outcome:
    """``target`` read once and replayed under each of ``spec``'s candidates, saying how
    many are done (``on_candidate``); ``ReplayStoppedError`` when ``should_stop`` says so
    (the app's view, closed or quit while it runs, must not hold the app's exit)."""
    from ctxtui.core.policies.policy import policy_for_session
    from ctxtui.core.pricing.cost import session_cost
    from ctxtui.core.simulation.replay import ReplayStoppedError
    from ctxtui.core.tuning.space import candidate_policy
    from ctxtui.importers import load_session
    from ctxtui.system.heap import keep_out_of_collections

    try:
        history = load_session(target.path, format=spec.format, full_history=True)
        keep_out_of_collections(len(history))
        base = policy_for_session(spec.preset, history)
        recorded = session_cost(history)
    except Exception as err:  # a fleet survives any one file
        return Outcome(target.path, error=_describe(err))
    marks = tuple(
        (c.pre_tokens, c.trigger) for c in history.meta.recorded_compactions if c.pre_tokens
    )
    scores: list[Score | None] = []
    scale: float | None = None
    engine = engine_for(history)
    quiet: list[tuple[dict[str, Any], int, Score]] = []  # walks that never compacted
    for k, settings in enumerate(spec.candidates):
        if on_candidate is not None:
            on_candidate(k, len(spec.candidates))
        if should_stop is not None and should_stop():
            raise ReplayStoppedError(0)  # none of this candidate's requests
        try:
            policy = candidate_policy(spec.agent, settings, base)
            same = _same_walk(quiet, policy)
            if same is not None:
                scores.append(same)
                continue
            walked = replay_under(engine, policy, should_stop)
            scale = _scale(walked) if scale is None else scale
            score = _score(walked, recorded, scale)
        except ReplayStoppedError:
            raise
        except Exception:  # a candidate this session refuses scores nothing here
            scores.append(None)
            continue
        if not walked.compactions and policy.trigger is not None:
            quiet.append((_untriggered(policy), policy.trigger, score))
        scores.append(score)
    return Outcome(target.path, tuple(scores), None, marks)


TRIGGER_KNOBS = ("trigger_buffer", "trigger_input_reserve_cap", "compact_trigger_ratio")
"""The knobs that only move where the trigger is (a candidate's trigger setting)."""


def _untriggered(policy: Policy) -> dict[str, Any]:
    values = policy.as_dict()
    for name in (*TRIGGER_KNOBS, "preset"):
        values.pop(name)
    return values


def _same_walk(quiet: Sequence[tuple[dict[str, Any], int, Score]], policy: Policy) -> Score | None:
    """The score of an earlier walk this policy's would repeat: one that never compacted under
    the same knobs but a trigger no higher. A trigger that never fired does not fire higher
    either, so the walk (the same requests, counts and prompts) is the same one."""
    trigger = policy.trigger
    if trigger is None or not quiet:
        return None
    rest = _untriggered(policy)
    return next((score for r, t, score in quiet if t <= trigger and r == rest), None)


# -- the run ------------------------------------------------------------------------------


@dataclass(slots=True)
class TuneRun:
    """What a run gave: each target's scores, in the targets' order, as they finished."""

    targets: Sequence[Target]
    done: dict[int, Outcome] = field(default_factory=dict)
    interrupted: bool = False
    signal: int | None = None
    """The signal that stopped a pooled run (SIGINT, SIGTERM, SIGHUP), for the exit code."""

    def results(self) -> list[Outcome]:
        return [self.done[i] for i in sorted(self.done)]


def progress_words(done: int, total: int, candidates: int, elapsed: float) -> str:
    """``tune: 12 / 100 sessions · 10 candidates · 3.1/s · 28 s left`` (as ``fleet``'s)."""
    parts = [f"tune: {done:,} / {total:,} sessions", f"{candidates:,} candidates"]
    rate = done / elapsed if elapsed > 0 else 0.0
    if rate > 0:
        parts.append(f"{rate:,.1f}/s")
        if done < total:
            parts.append(f"{(total - done) / rate:,.0f} s left")
    return " · ".join(parts)


def warm(spec: TuneSpec) -> None:
    """Import what every job needs, and load the preset's exact tokenizer, in this process
    before a pool starts: forked workers inherit them instead of each paying for them (the
    price tables and an encoding take about a second each)."""
    import ctxtui.core.pricing.cache_model
    import ctxtui.core.pricing.prices
    import ctxtui.core.simulation.retention_audits
    import ctxtui.importers  # noqa: F401
    from ctxtui.core.policies.policy import preset
    from ctxtui.core.tokens.tokenizers import resolve

    with contextlib.suppress(Exception):  # a tokenizer that cannot load is the jobs' to say
        resolve(preset(spec.preset).tokenizer)


def run_tune(
    targets: Sequence[Target],
    spec: TuneSpec,
    *,
    executor: ExecutorFactory | None = None,
    on_progress: Callable[[str], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> TuneRun:
    """Every target's scores, on ``executor``'s workers once there are two targets or more
    (else in this thread, ``should_stop`` asked between and within its candidates). Ctrl+C,
    or ``should_stop``, ends the run with what finished kept and ``interrupted`` set, as
    ``fleet``'s run does."""
    from ctxtui.core.simulation.replay import ReplayStoppedError
    from ctxtui.fleet.run import _Interrupt, _stop_workers

    run = TuneRun(targets)
    started = time.monotonic()
    asked = _Interrupt()

    def stop() -> bool:
        return asked.pressed or (should_stop is not None and should_stop())

    def finish(i: int, result: Outcome) -> None:
        run.done[i] = result
        if on_progress is not None:
            elapsed = time.monotonic() - started
            on_progress(progress_words(len(run.done), len(targets), len(spec.candidates), elapsed))

    try:
        if executor is None or len(targets) < 2:
            for i, target in enumerate(targets):
                if stop():
                    run.interrupted = True
                    break
                try:
                    scored = tune_session(target, spec, should_stop=stop)
                except ReplayStoppedError:
                    run.interrupted = True
                    break
                finish(i, scored)
            return run
        warm(spec)
        with executor(len(targets)) as pool, asked.as_stop():
            _run_on(pool, spec, finish, stop, run)
            if run.interrupted:
                _stop_workers(pool)
    except KeyboardInterrupt:
        run.interrupted = True
    run.signal = asked.signum
    return run


def _run_on(
    pool: Executor,
    spec: TuneSpec,
    finish: Callable[[int, Outcome], None],
    stop: Callable[[], bool],
    run: TuneRun,
) -> None:
    """``run``'s targets scored on ``pool``'s workers, each passed to ``finish`` as it ends."""
    from ctxtui.fleet.run import WAIT_SLICE

    targets = run.targets
    pending: dict[Future[Outcome], int] = {
        pool.submit(tune_session, target, spec): i for i, target in enumerate(targets)
    }
    try:
        while pending:
            done, _ = wait(list(pending), timeout=WAIT_SLICE, return_when=FIRST_COMPLETED)
            for future in done:
                i = pending.pop(future)
                try:
                    result = future.result()
                except Exception as err:  # the worker itself died
                    result = Outcome(targets[i].path, error=f"the job failed: {err}"[:200])
                finish(i, result)
            if stop():
                run.interrupted = True
                return
    finally:
        if not run.interrupted:
            for future in pending:
                future.cancel()
