"""Running the fleet: which sessions, which of them the index already knows, and the jobs for
the rest on a ``concurrent.futures.Executor``.

No scheduler of our own: jobs go to the executor given (a process pool over every core, a
Dask cluster through ``distributed``'s executor, or none: in this thread), results are taken
as they complete, stored in the index at once, and handed to ``on_result``. Stopping
(``should_stop``, or Ctrl+C in the caller's thread) cancels what has not started and keeps
everything that finished.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, Future, wait
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ctxtui.core.fleet import Row
from ctxtui.fleet.index import FleetIndex, Identity, identity
from ctxtui.fleet.job import Outcome, Simulated, Spec, Target, apply, session_row

SESSION_SUFFIXES = (".jsonl", ".json", ".jsonl.zst", ".jsonl.gz", ".json.gz", ".db")
"""What a directory given to ``fleet`` is searched for."""
DASK_CONNECT_SECONDS = 10
"""How long ``--dask`` waits for its scheduler before saying it cannot be reached."""
WAIT_SLICE = 0.2
"""Seconds between two looks at ``should_stop`` while jobs run."""


# -- which sessions -----------------------------------------------------------------------


def _listed(found: Any, parent: str | None = None) -> Target:
    """A target from a ``stores`` listing entry, with what the listing read of it."""
    started = found.started.isoformat() if found.started is not None else None
    return Target(found.open_target, found.agent, found.project, found.model, started, parent)


def store_targets(env: Any = None) -> list[Target]:
    """Every session ``ctxtui sessions`` lists, newest first, each sub-agent after its parent."""
    from ctxtui.stores import find_sessions

    out: list[Target] = []

    def add(found: Any, parent: str | None) -> None:
        out.append(_listed(found, parent))
        for child in found.children:
            add(child, found.open_target)

    for found in find_sessions(env):
        add(found, None)
    return out


def _is_session_file(path: Path) -> bool:
    name = path.name
    return name.endswith(SESSION_SUFFIXES) and not name.endswith(".meta.json")


def _walk(directory: Path) -> Iterator[Path]:
    """Session files under ``directory``, sorted, hidden entries and links to dirs skipped.

    OpenCode's JSON storage is sessions, not files: each ``message/ses_*`` directory is one
    (as ``ctxtui sessions`` lists them); its ``session/`` and ``part/`` files are pieces of
    those and no rows of their own.
    """
    if (directory / "message").is_dir() and (directory / "part").is_dir():
        directory = directory / "message"
    try:
        entries = sorted(os.scandir(directory), key=lambda e: e.name)
    except OSError:
        return
    for entry in entries:
        if entry.name.startswith("."):
            continue
        path = Path(entry.path)
        try:
            if entry.is_dir(follow_symlinks=False):
                if _looks_like_one_session(path):
                    yield path
                else:
                    yield from _walk(path)
            elif entry.is_file() and _is_session_file(path):
                yield path
        except OSError:
            continue


def _parent_of(path: Path) -> str | None:
    """A Claude Code sub-agent file (``<session>/subagents/agent-*.jsonl``)'s parent session."""
    if path.parent.name != "subagents" or not path.name.startswith("agent-"):
        return None
    session = path.parent.parent
    parent = session.with_name(session.name + ".jsonl")
    return str(parent) if parent.is_file() else None


def path_targets(paths: Sequence[str], index: FleetIndex | None = None) -> list[Target]:
    """The sessions in the files and directories given, in the order given.

    A file (or ``PATH#ID``) is one session; a directory is searched for session files, each
    session of an OpenCode database and each sub-agent written inline in a Claude Code
    transcript a row of its own, as ``ctxtui sessions`` lists them (``index`` keeps what the
    search of a transcript found, for as long as the file stays the same). Raises
    ``FileNotFoundError`` naming a path that does not exist.
    """
    out: list[Target] = []
    seen: set[str] = set()
    for given in paths:
        base, session_id = Path(given), None
        if "#" in given:  # PATH#ID: the importers' rule (imported only then: they are heavy)
            from ctxtui.importers import split_session_id

            base, session_id = split_session_id(given)
        if not base.exists():
            raise FileNotFoundError(given)
        whole_dir = session_id is None and base.is_dir() and not _looks_like_one_session(base)
        if not whole_dir:
            found = [Target(given)]
        else:
            found = [t for file in _walk(base) for t in _file_targets(file, index)]
        for target in found:
            if target.path not in seen:
                seen.add(target.path)
                out.append(target)
    return out


def _file_targets(file: Path, index: FleetIndex | None) -> list[Target]:
    """The sessions in one file found in a directory: an OpenCode database holds many, each
    a row of its own (``PATH#ID``, as ``ctxtui sessions`` lists them); a Claude Code
    transcript is itself and then each sub-agent an older CLI wrote into it (``PATH#ID``,
    its ``parent`` the transcript); any other file is one.
    """
    if file.suffix == ".db":
        from ctxtui.stores import _opencode_db_sessions

        listed = [f for f in _opencode_db_sessions(file) if f.error is None and f.session_id]
        if listed:
            return [_listed(f) for f in listed]
    own = Target(str(file), parent=_parent_of(file))
    if file.name.endswith(".jsonl"):
        children = [
            Target(f"{file}#{chain}", agent="claude-code", parent=str(file))
            for chain in _inline_chains(file, index)
        ]
        return [own, *children]
    return [own]


def _inline_chains(file: Path, index: FleetIndex | None) -> list[str]:
    """The ids of the sub-agents written inline in ``file`` (a search of its bytes that finds
    nothing in other formats), from the index while the file is unchanged."""
    ident = identity(str(file)) if index is not None and index.usable else None
    if ident is not None and index is not None:
        known = index.chains(str(file), ident)
        if known is not None:
            return known
    from ctxtui.importers._claude_sidechains import inline_chains

    try:
        found = list(inline_chains(file))
    except Exception:  # the file's own row says what is wrong with it
        found = []
    if ident is not None and index is not None:
        index.store_chains(str(file), ident, found)
    return found


def _looks_like_one_session(directory: Path) -> bool:
    """OpenCode's ``storage/message/ses_*`` directories are one session each."""
    return directory.name.startswith("ses_") and any(directory.glob("msg_*.json"))


# -- executors ----------------------------------------------------------------------------


def _ignore_interrupt() -> None:
    """In a pool's worker: Ctrl+C is the parent's to handle (it cancels and keeps results)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@contextlib.contextmanager
def executor_for(
    *, dask: str | None = None, workers: int | None = None, start_method: str | None = None
) -> Iterator[Executor]:
    """A process pool over ``workers`` cores (default every core), or a Dask cluster's
    executor when ``dask`` names its scheduler (needs the ``dask`` extra)."""
    if dask is not None:
        from distributed import Client

        client = Client(  # type: ignore[no-untyped-call]
            dask, set_as_default=False, timeout=DASK_CONNECT_SECONDS
        )
        with client:
            executor = client.get_executor()  # type: ignore[no-untyped-call]
            try:
                yield executor
            finally:
                executor.shutdown(wait=False)
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    context = multiprocessing.get_context(start_method) if start_method else None
    pool = ProcessPoolExecutor(
        max_workers=workers or os.cpu_count() or 1,
        mp_context=context,
        initializer=_ignore_interrupt,
    )
    try:
        yield pool
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    # Every job has ended: the workers are joined here. Left to the exit, their join waits
    # in an exit handler that ``cli.entry``'s ``os._exit`` skips, and the process hung.
    pool.shutdown(wait=True)


# -- the run ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Finished:
    """One session's result: its figures and, per preset, its simulation."""

    target: Target
    base: Row
    simulated: dict[str, Simulated]
    cached: bool

    def row(self, preset: str | None) -> Row:
        """The ``sessions[]`` row under ``preset`` (``None``: no simulated columns)."""
        return apply(self.base, self.simulated.get(preset) if preset else None)


@dataclass(frozen=True, slots=True)
class Progress:
    done: int
    total: int
    read: int  # of ``done``, how many were read (the rest came from the index)
    elapsed: float

    @property
    def rate(self) -> float:
        return self.done / self.elapsed if self.elapsed > 0 else 0.0

    @property
    def left(self) -> float | None:
        """Seconds left at the rate so far, once there is one."""
        return (self.total - self.done) / self.rate if self.rate > 0 else None

    def words(self) -> str:
        """``fleet: 312 / 1,000 sessions · 85 read · 41.0/s · 17 s left`` (both shells)."""
        parts = [f"fleet: {self.done:,} / {self.total:,} sessions", f"{self.read:,} read"]
        if self.rate > 0:
            parts.append(f"{self.rate:,.1f}/s")
        left = self.left
        if left is not None and self.done < self.total:
            parts.append(f"{left:,.0f} s left")
        return " · ".join(parts)


@dataclass(slots=True)
class FleetRun:
    """What a run gave: one ``Finished`` per target done, in the targets' order."""

    targets: Sequence[Target]
    finished: dict[int, Finished] = field(default_factory=dict)
    read: int = 0
    interrupted: bool = False

    @property
    def complete(self) -> bool:
        return len(self.finished) == len(self.targets)

    def rows(self, preset: str | None) -> list[Row]:
        return [self.finished[i].row(preset) for i in sorted(self.finished)]


Todo = tuple[int, tuple[str, ...], dict[str, Simulated]]
"""A job to run: the target's position, the presets to replay, the simulations stored."""


class _Driver:
    """One run's bookkeeping: what the index holds, the jobs for the rest, their results."""

    def __init__(
        self,
        targets: Sequence[Target],
        spec: Spec,
        index: FleetIndex | None,
        on_result: Callable[[int, Finished], None] | None,
        on_progress: Callable[[Progress], None] | None,
        should_stop: Callable[[], bool] | None,
    ) -> None:
        self.targets, self.spec, self.index = targets, spec, index
        self.on_result, self.on_progress = on_result, on_progress
        self.should_stop = should_stop or (lambda: False)
        self.run = FleetRun(targets)
        self.fingerprints = {p: spec.fingerprint(p) for p in spec.presets}
        self.reader = spec.base_fingerprint()
        self.idents: dict[int, Identity | None] = {}
        self.started = time.monotonic()

    def progress(self) -> None:
        if self.on_progress is not None:
            run = self.run
            elapsed = time.monotonic() - self.started
            self.on_progress(Progress(len(run.finished), len(self.targets), run.read, elapsed))

    def finish(self, i: int, done: Finished) -> None:
        self.run.finished[i] = done
        if self.on_result is not None:
            self.on_result(i, done)

    def lookup(self) -> list[Todo]:
        """Finish every target the index holds whole; the jobs for the others."""
        index, spec = self.index, self.spec
        todo: list[Todo] = []
        for i, target in enumerate(self.targets):
            ident = identity(target.path) if index is not None and index.usable else None
            self.idents[i] = ident
            base: Row | None = None
            stored: dict[str, Simulated] = {}
            if ident is not None and index is not None:
                prints = self.fingerprints.values()
                base, stored = index.lookup(target.path, ident, self.reader, prints)
            have = {p: stored[fp] for p, fp in self.fingerprints.items() if fp in stored}
            missing = tuple(p for p in spec.presets if p not in have) if spec.simulate else ()
            if base is not None and not missing:
                self.finish(i, Finished(target, _known(base, target), have, cached=True))
            else:
                todo.append((i, missing if base is not None else spec.presets, have))
        self.progress()
        return todo

    def store(self, i: int, outcome: Outcome, have: dict[str, Simulated], keep: bool) -> None:
        """Keep a job's result (in the index unless the job itself failed) and finish it."""
        target, ident, index = self.targets[i], self.idents[i], self.index
        if index is not None and ident is not None and keep:
            fps = self.fingerprints
            sims = [(fps[p], p, s) for p, s in outcome.simulated.items()]
            index.store(target.path, ident, self.reader, outcome.base, sims)
        self.run.read += 1
        simulated = {**have, **outcome.simulated}
        self.finish(i, Finished(target, outcome.base, simulated, cached=False))
        self.progress()

    def run_here(self, todo: Sequence[Todo]) -> None:
        for i, presets, have in todo:
            if self.should_stop():
                self.run.interrupted = True
                return
            self.store(i, session_row(self.targets[i], self.spec, presets), have, True)

    def run_on(self, executor: Executor, todo: Sequence[Todo]) -> None:
        pending: dict[Future[Outcome], tuple[int, dict[str, Simulated]]] = {}
        try:
            for i, presets, have in todo:
                job = executor.submit(session_row, self.targets[i], self.spec, presets)
                pending[job] = (i, have)
            while pending:
                done, _ = wait(list(pending), timeout=WAIT_SLICE, return_when=FIRST_COMPLETED)
                for future in done:
                    i, have = pending.pop(future)
                    try:
                        outcome, keep = future.result(), True
                    except Exception as err:  # the worker itself died (out of memory, killed)
                        outcome, keep = Outcome(_failed(self.targets[i], err), {}), False
                    self.store(i, outcome, have, keep)
                if self.should_stop():
                    self.run.interrupted = True
                    return
        finally:
            if not self.run.interrupted:  # when stopped, the pool's own shutdown cancels
                for future in pending:
                    future.cancel()


def run_fleet(
    targets: Sequence[Target],
    spec: Spec,
    *,
    executor: Callable[[], AbstractContextManager[Executor]] | None = None,
    index: FleetIndex | None = None,
    on_result: Callable[[int, Finished], None] | None = None,
    on_progress: Callable[[Progress], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> FleetRun:
    """Every target's row: from the index where it is current, else from a job.

    ``executor`` makes the executor the jobs run on, once there are two or more to run (a
    warm index or a single file starts no pool); without one they run in this thread, one
    after the other. Ctrl+C (or ``should_stop``) ends the run with ``interrupted`` set and
    what finished kept.
    """
    asked = _Interrupt()
    stop = (lambda: asked.pressed or should_stop()) if should_stop else (lambda: asked.pressed)
    driver = _Driver(targets, spec, index, on_result, on_progress, stop)
    try:
        todo = driver.lookup()
        if executor is None or len(todo) < 2:
            driver.run_here(todo)
        else:
            with executor() as pool, asked.as_stop():
                driver.run_on(pool, todo)
                if driver.run.interrupted:
                    _stop_workers(pool)
    except KeyboardInterrupt:
        driver.run.interrupted = True
    return driver.run


def _stop_workers(pool: Executor) -> None:
    """End a stopped pool's processes now, without waiting for what they were given.

    Left to the interpreter's exit, a process pool whose pending jobs were cancelled waits
    on its idle workers, long after Ctrl+C. A Dask executor has no processes of ours.
    """
    processes = dict(getattr(pool, "_processes", None) or {})  # shutdown forgets them
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes.values():
        process.terminate()


class _Interrupt:
    """Ctrl+C while jobs run on a pool: a stop asked for, taken between two results.

    A ``KeyboardInterrupt`` raised anywhere in the executor's waiting (inside its locks) can
    leave it unable to shut down; the first Ctrl+C only sets ``pressed`` (the loop looks at
    it five times a second), a second one interrupts at once. Only the main thread receives
    signals, so elsewhere (the app's worker) this does nothing and ``should_stop`` rules.
    """

    def __init__(self) -> None:
        self.pressed = False

    @contextlib.contextmanager
    def as_stop(self) -> Iterator[None]:
        if threading.current_thread() is not threading.main_thread():
            yield
            return

        def handler(signum: int, frame: object) -> None:
            if self.pressed:
                raise KeyboardInterrupt
            self.pressed = True

        previous = signal.signal(signal.SIGINT, handler)
        try:
            yield
        finally:
            signal.signal(signal.SIGINT, previous)


def _failed(target: Target, err: BaseException) -> Row:
    from ctxtui.core.fleet import empty_row

    row = empty_row(target.path, agent=target.agent, project=target.project, parent=target.parent)
    row["error"] = f"the job failed: {type(err).__name__}: {err}"[:200]
    return row


def _known(base: Row, target: Target) -> Row:
    """A stored row with what the listing knows now (a session may have been moved under a
    new parent, or the listing learned its project since)."""
    row = dict(base)
    row["parent"] = target.parent
    for name in ("agent", "project", "model", "started"):
        value = getattr(target, name)
        if value is not None:
            row[name] = value
    return row
