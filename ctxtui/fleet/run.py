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
import logging
import os
import signal
import socket
import stat
import struct
import sys
import threading
import time
import weakref
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, BrokenExecutor, Executor, Future, wait
from contextlib import AbstractContextManager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

from ctxtui.core.fleet import Row
from ctxtui.fleet.index import FleetIndex, Identity, Kept, identity
from ctxtui.fleet.job import Outcome, Simulated, Spec, Target, apply, session_row
from ctxtui.options import STOP_SIGNALS

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
    from ctxtui.stores.listing import find_sessions

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
        from ctxtui.importers.opencode import database_sessions

        listed = [f for f in database_sessions(file) if f.error is None and f.session_id]
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
    from ctxtui.importers import inline_chains

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


def _worker_start() -> None:
    """In a pool's worker: Ctrl+C is the parent's to handle (it cancels and keeps results);
    SIGTERM and SIGHUP end the worker (a fork copied the parent's handlers, which only ask
    for a stop); and the worker ends with its parent (Linux), however the parent ended."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for name in ("SIGTERM", "SIGHUP"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_DFL)
    if sys.platform == "linux":
        import ctypes

        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGTERM))


PR_SET_PDEATHSIG = 1
"""Linux ``prctl`` option: the signal a process gets when its parent ends."""


class ClusterUnreachableError(OSError):
    """``--dask``'s scheduler could not be reached, or what answered is not one."""


def dask_address(text: str) -> tuple[str, int]:
    """``tcp://HOST:PORT``, ``HOST:PORT`` or ``[IPv6]:PORT`` as (host, port).

    Raises ``ValueError`` saying what is wrong: another scheme (ctxtui takes no TLS
    settings, and ``inproc://`` is another process's memory), no port, a bad one.
    """
    scheme, sep, rest = text.partition("://")
    if not sep:
        scheme, rest = "tcp", text
    if scheme != "tcp":
        raise ValueError(f"{scheme}:// is not supported; expected tcp://HOST:PORT")
    if rest.startswith("["):
        host, bracket, port = rest[1:].partition("]")
        if not bracket or not port.startswith(":"):
            raise ValueError("expected tcp://[IPv6]:PORT")
        port = port[1:]
    else:
        host, colon, port = rest.rpartition(":")
        if not colon or ":" in host:
            raise ValueError("expected tcp://HOST:PORT")
    if not host or any(c.isspace() or c in "/?#@[]" for c in host):
        raise ValueError("expected tcp://HOST:PORT with a host name or address")
    if not port.isascii() or not port.isdigit() or not 0 < int(port) < 65_536:
        raise ValueError("the port must be a number from 1 to 65535")
    return host, int(port)


DASK_FRAME_LIMIT = 64 * 1024 * 1024
"""The largest first message a scheduler's greeting is believed to be (its handshake is a
few hundred bytes): anything larger is another protocol's bytes read as a length."""


def probe_scheduler(host: str, port: int, seconds: float) -> None:
    """Check that a Dask scheduler listens at ``host:port`` before ``distributed`` connects.

    A scheduler greets first (its handshake's 8-byte length); ``distributed`` waits for that
    greeting with no time limit, so a silent listener hung the fleet, and an HTTP server's
    reply, read as a length, asked for exabytes. Raises ``ClusterUnreachableError``.
    """
    deadline = time.monotonic() + seconds
    try:
        sock = socket.create_connection((host, port), timeout=seconds)
    except TimeoutError:
        raise ClusterUnreachableError(f"no answer within {seconds:g} s") from None
    except OSError as err:
        raise ClusterUnreachableError(err.strerror or str(err)) from None
    with sock:
        head = b""
        try:
            while len(head) < 8:
                sock.settimeout(max(0.01, deadline - time.monotonic()))
                got = sock.recv(8 - len(head))
                if not got:
                    raise ClusterUnreachableError("the connection was closed without a greeting")
                head += got
        except TimeoutError:
            raise ClusterUnreachableError(
                f"no Dask scheduler greeted within {seconds:g} s (is it one?)"
            ) from None
        except OSError as err:
            raise ClusterUnreachableError(err.strerror or str(err)) from None
    (length,) = struct.unpack("<Q", head)
    if not 0 < length <= DASK_FRAME_LIMIT:
        raise ClusterUnreachableError("what answered is not a Dask scheduler")


def _quiet_dask_logs() -> None:
    """Silence ``distributed``'s loggers for the rest of the process: a lost scheduler is one
    line of ours, not pages of its reconnection tracebacks (11 KB of them hung the fleet)."""
    names = [n for n in logging.root.manager.loggerDict if n.startswith(("distributed", "tornado"))]
    for name in ["distributed", "tornado", *names]:
        logging.getLogger(name).setLevel(logging.CRITICAL + 1)


@contextlib.contextmanager
def _dask_executor(address: str, seconds: float) -> Iterator[Executor]:
    """A Dask cluster's executor, after ``probe_scheduler`` found a scheduler there."""
    from distributed import Client

    host, port = dask_address(address)
    probe_scheduler(host, port, seconds)
    _quiet_dask_logs()
    try:
        client = Client(  # type: ignore[no-untyped-call]
            address, set_as_default=False, timeout=seconds
        )
    except (OSError, ValueError) as err:
        raise ClusterUnreachableError(str(err) or type(err).__name__) from None
    try:
        executor = client.get_executor()  # type: ignore[no-untyped-call]
        try:
            yield executor
        finally:
            with contextlib.suppress(Exception):
                executor.shutdown(wait=False)
    finally:
        with contextlib.suppress(Exception):
            client.close(timeout=seconds)  # type: ignore[no-untyped-call]


@contextlib.contextmanager
def executor_for(
    tasks: int | None = None,
    *,
    dask: str | None = None,
    workers: int | None = None,
    start_method: str | None = None,
) -> Iterator[Executor]:
    """A process pool over ``workers`` cores (default every core), never more processes than
    ``tasks``; or a Dask cluster's executor when ``dask`` names its scheduler (needs the
    ``dask`` extra)."""
    if dask is not None:
        with _dask_executor(dask, DASK_CONNECT_SECONDS) as executor:
            yield executor
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    context = multiprocessing.get_context(start_method) if start_method else None
    size = workers or os.cpu_count() or 1
    pool = ProcessPoolExecutor(
        max_workers=max(1, min(size, tasks)) if tasks else size,
        mp_context=context,
        initializer=_worker_start,
    )
    try:
        yield pool
    except BaseException:
        _stop_workers(pool)
        raise
    # Every job has ended: the workers are joined here. Left to the exit, their join waits
    # in an exit handler that ``cli.entry``'s ``os._exit`` skips, and the process hung.
    pool.shutdown(wait=True)


class ExecutorFactory(Protocol):
    """What makes the executor a run's jobs go to, told how many tasks it will get."""

    def __call__(self, tasks: int) -> AbstractContextManager[Executor]: ...


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
    """What a run gave: one ``Finished`` per target done, in the targets' order.

    ``failed`` holds the targets whose job died twice (its worker killed, out of memory):
    their rows say so, and the run is not complete. ``lost`` says why the cluster stopped
    answering; ``signal`` is the signal that stopped the run (SIGINT, SIGTERM, SIGHUP).
    """

    targets: Sequence[Target]
    finished: dict[int, Finished] = field(default_factory=dict)
    read: int = 0
    interrupted: bool = False
    failed: set[int] = field(default_factory=set)
    lost: str | None = None
    signal: int | None = None

    @property
    def complete(self) -> bool:
        return len(self.finished) == len(self.targets) and not self.failed

    def rows(self, preset: str | None) -> list[Row]:
        return [self.finished[i].row(preset) for i in sorted(self.finished)]


Todo = tuple[int, tuple[str, ...], dict[str, Simulated]]
"""A job to run: the target's position, the presets to replay, the simulations stored."""

BATCH_BYTES = 1024 * 1024
"""Sessions smaller than this share a task with others, up to this many bytes in all: a
task per tiny file cost more in the pool's messages than reading the file."""
BATCH_SESSIONS = 64
TASKS_PER_CORE = 4
"""At least this many tasks per core while there are sessions enough: a few large batches
would leave cores idle at the end."""


def session_rows(
    targets: Sequence[Target],
    spec: Spec,
    presets: Sequence[tuple[str, ...]],
    grown: Sequence[bytes | None] | None = None,
) -> list[Outcome]:
    """One task's sessions, each read as ``session_row`` reads it (a batch of small files),
    with what the index kept to read each on from should it have grown."""
    kept = grown if grown is not None else [None] * len(targets)
    return [session_row(t, spec, p, g) for t, p, g in zip(targets, presets, kept, strict=True)]


def _size(target: Target) -> int:
    """The bytes a target reads (a directory or a database's session: as much as a batch)."""
    try:
        st = Path(target.path.partition("#")[0]).stat()
    except OSError:
        return 0
    return st.st_size if "#" not in target.path and stat.S_ISREG(st.st_mode) else BATCH_BYTES


def batches(todo: Sequence[Todo], targets: Sequence[Target]) -> list[list[Todo]]:
    """The jobs in tasks: small files together (up to ``BATCH_BYTES``, ``BATCH_SESSIONS``),
    a large one alone, and never fewer than ``TASKS_PER_CORE`` tasks a core can take."""
    sizes = [_size(targets[i]) for i, _, _ in todo]
    spread = max(1, len(todo) // (TASKS_PER_CORE * (os.cpu_count() or 1)))
    most = min(BATCH_SESSIONS, spread)
    budget = min(BATCH_BYTES, max(1, sum(sizes) // (TASKS_PER_CORE * (os.cpu_count() or 1))))
    out: list[list[Todo]] = []
    task: list[Todo] = []
    held = 0
    for job, size in zip(todo, sizes, strict=True):
        if task and (held + size > budget or len(task) >= most):
            out.append(task)
            task, held = [], 0
        task.append(job)
        held += size
    if task:
        out.append(task)
    return out


@dataclass(frozen=True, slots=True)
class RunHooks:
    """Who hears a fleet run and what may end it: each target as it finishes (``on_result``,
    with its number), the progress, and a check made between jobs."""

    on_result: Callable[[int, Finished], None] | None = None
    on_progress: Callable[[Progress], None] | None = None
    should_stop: Callable[[], bool] | None = None


QUIET = RunHooks()


class _Driver:
    """One run's bookkeeping: what the index holds, the jobs for the rest, their results."""

    def __init__(
        self, targets: Sequence[Target], spec: Spec, index: FleetIndex | None, hooks: RunHooks
    ) -> None:
        if index is None or not index.usable:  # nothing would keep a settled state
            spec = replace(spec, settle=False)
        self.targets, self.spec, self.index = targets, spec, index
        self.on_result, self.on_progress = hooks.on_result, hooks.on_progress
        self.should_stop = hooks.should_stop or (lambda: False)
        self.run = FleetRun(targets)
        self.fingerprints = {p: spec.fingerprint(p) for p in spec.presets}
        self.reader = spec.base_fingerprint()
        self.idents: dict[int, Identity | None] = {}
        self.grown: dict[int, bytes] = {}
        """What the index kept to read a changed file on from (runs that simulate nothing)."""
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
                if base is None and ident is not None and index is not None and not spec.simulate:
                    grown = index.grown(target.path, self.reader)
                    if grown is not None:
                        self.grown[i] = grown
                todo.append((i, missing if base is not None else spec.presets, have))
        self.progress()
        return todo

    def store(self, i: int, outcome: Outcome, have: dict[str, Simulated], keep: bool) -> None:
        """Keep a job's result (in the index unless the job itself failed) and finish it."""
        target, ident, index = self.targets[i], self.idents[i], self.index
        if index is not None and ident is not None and keep:
            fps = self.fingerprints
            sims = [(fps[p], p, s) for p, s in outcome.simulated.items()]
            kept = Kept(outcome.base, sims, outcome.grown)
            index.store(target.path, ident, self.reader, kept)
        self.run.read += 1
        simulated = {**have, **outcome.simulated}
        self.finish(i, Finished(target, outcome.base, simulated, cached=False))
        self.progress()

    def run_here(self, todo: Sequence[Todo]) -> None:
        for i, presets, have in todo:
            if self.should_stop():
                self.run.interrupted = True
                return
            row = session_row(self.targets[i], self.spec, presets, self.grown.get(i))
            self.store(i, row, have, True)

    def run_pooled(self, executor: ExecutorFactory, todo: Sequence[Todo]) -> None:
        """The jobs in batches; a batch whose worker died is tried once more, each of its
        sessions in a task of its own, one per core at a time (``retry_window``), so one that
        kills its worker again takes down only the few beside it; the sessions not yet sent
        go on on a new pool. A session whose retry failed is a row saying so."""
        broken, unsent = self.run_on(executor, batches(todo, self.targets))
        again = [[job] for task in [*(t for t, _ in broken), *unsent] for job in task]
        failed: list[tuple[list[Todo], BaseException]] = []
        while again and not (self.run.interrupted or self.run.lost):
            try:
                lost, again = self.run_on(executor, again, retry_window())
            except ClusterUnreachableError as gone:  # the cluster went away since
                self.run.lost = str(gone)
            else:
                failed += lost
        if self.run.interrupted or self.run.lost:
            return
        for task, err in failed:
            for i, _, have in task:
                self.run.failed.add(i)
                self.store(i, Outcome(_failed(self.targets[i], err), {}), have, False)

    def run_on(
        self, executor: ExecutorFactory, tasks: Sequence[list[Todo]], window: int | None = None
    ) -> tuple[list[tuple[list[Todo], BaseException]], list[list[Todo]]]:
        """Run ``tasks`` on a new executor, at most ``window`` at once (default all): the
        tasks whose worker died, with the error, and those not sent before the pool broke.

        A stop or a lost cluster ends the wait at once, the workers with it (their futures
        are left to the pool: cancelling a running one races its own failure).
        """
        broken: list[tuple[list[Todo], BaseException]] = []
        queue = list(reversed(tasks))
        with executor(min(len(tasks), window or len(tasks))) as pool:
            pending: dict[Future[list[Outcome]], list[Todo]] = {}
            while queue or pending:
                while queue and len(pending) < (window or len(tasks)) and not _broke(broken):
                    task = queue.pop()
                    targets = [self.targets[i] for i, _, _ in task]
                    presets = [presets for _, presets, _ in task]
                    grown = [self.grown.get(i) for i, _, _ in task]
                    job = pool.submit(session_rows, targets, self.spec, presets, grown)
                    pending[job] = task
                if not pending:
                    break  # the pool broke: what is left goes to a new one
                done, _ = wait(list(pending), timeout=WAIT_SLICE, return_when=FIRST_COMPLETED)
                for future in done:
                    self.collect(pool, future, pending.pop(future), broken)
                if self.should_stop():
                    self.run.interrupted = True
                else:
                    self.run.lost = _lost(pool)
                if self.run.interrupted or self.run.lost:
                    _stop_workers(pool)
                    break
        return broken, list(reversed(queue))

    def collect(
        self,
        pool: Executor,
        future: Future[list[Outcome]],
        task: list[Todo],
        broken: list[tuple[list[Todo], BaseException]],
    ) -> None:
        """Store a finished task's rows; a task whose worker died goes to ``broken`` (unless
        the whole cluster is gone: then it is no task's fault)."""
        try:
            outcomes = future.result()
        except Exception as err:  # the worker died (out of memory, killed)
            if not _lost(pool):
                broken.append((task, err))
            return
        for (i, _, have), outcome in zip(task, outcomes, strict=True):
            self.store(i, outcome, have, True)


def retry_window() -> int:
    """Sessions retried at once after their worker died, one per core: a session that kills
    its worker every time fails with at most this many less one beside it."""
    return max(2, os.cpu_count() or 1)


def _broke(broken: Sequence[tuple[list[Todo], BaseException]]) -> bool:
    """Whether a process pool broke (a worker died: it takes no more tasks)."""
    return any(isinstance(err, BrokenExecutor) for _, err in broken)


def run_fleet(
    targets: Sequence[Target],
    spec: Spec,
    *,
    executor: ExecutorFactory | None = None,
    index: FleetIndex | None = None,
    hooks: RunHooks = QUIET,
) -> FleetRun:
    """Every target's row: from the index where it is current, else from a job.

    ``executor`` makes the executor the jobs run on, once there are two or more to run (a
    warm index or a single file starts no pool); without one they run in this thread, one
    after the other. Ctrl+C, SIGTERM or SIGHUP (or ``hooks.should_stop``) ends the run with
    ``interrupted`` set, the pool's workers ended and what finished kept. A run that ends
    drops from the index what it kept of files deleted since.
    """
    asked = _Interrupt()
    should_stop = hooks.should_stop
    stop = (lambda: asked.pressed or should_stop()) if should_stop else (lambda: asked.pressed)
    driver = _Driver(targets, spec, index, replace(hooks, should_stop=stop))
    try:
        todo = driver.lookup()
        if executor is None or len(todo) < 2:
            driver.run_here(todo)
        else:
            with asked.as_stop():
                driver.run_pooled(executor, todo)
    except KeyboardInterrupt:
        driver.run.interrupted = True
    driver.run.signal = asked.signum
    if index is not None and not driver.run.interrupted:
        index.forget_missing()
    return driver.run


def _lost(pool: Executor) -> str | None:
    """Why a Dask executor's cluster is gone, else ``None``: its client no longer runs (it
    lost the scheduler and is reconnecting, or gave up)."""
    client = getattr(pool, "_client", None)
    if client is None:
        return None
    status = str(getattr(client, "status", "running"))
    return None if status == "running" else "the scheduler stopped answering"


def _stop_workers(pool: Executor) -> None:
    """End a stopped pool's processes now, without waiting for what they were given.

    Left to the interpreter's exit, a process pool whose pending jobs were cancelled waits
    on its idle workers, long after Ctrl+C. A Dask executor has no processes of ours (and
    its ``shutdown`` takes no ``cancel_futures``).
    """
    from concurrent.futures import ProcessPoolExecutor

    if not isinstance(pool, ProcessPoolExecutor):
        with contextlib.suppress(Exception):
            pool.shutdown(wait=False)
        return
    processes = dict(getattr(pool, "_processes", None) or {})  # shutdown forgets them
    manager = getattr(pool, "_executor_manager_thread", None)
    if isinstance(manager, threading.Thread):
        _quiet_when_stopped(manager)
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes.values():
        process.terminate()


_stopped_managers: weakref.WeakSet[threading.Thread] = weakref.WeakSet()
_hook_before: list[Callable[[threading.ExceptHookArgs], object]] = []


def _quiet_when_stopped(manager: threading.Thread) -> None:
    """Let a stopped pool's manager thread fail without a traceback: its workers were
    terminated under it, and it can meet the pipes they left closed (``OSError: Bad file
    descriptor``, a race in CPython's pool, python/cpython#83279). That failure is the stop
    the user asked for; any other thread's exception is printed as before."""
    _stopped_managers.add(manager)
    if not _hook_before:
        _hook_before.append(threading.excepthook)
        threading.excepthook = _excepthook


def _excepthook(args: threading.ExceptHookArgs) -> None:
    if args.thread is not None and args.thread in _stopped_managers:
        return
    _hook_before[0](args)


class _Interrupt:
    """Ctrl+C, SIGTERM or SIGHUP while jobs run on a pool: a stop asked for, taken between
    two results, so the pool's workers are ended before the command leaves.

    A ``KeyboardInterrupt`` raised anywhere in the executor's waiting (inside its locks) can
    leave it unable to shut down; the first signal only sets ``pressed`` (the loop looks at
    it five times a second), a second one interrupts at once. Only the main thread receives
    signals, so elsewhere (the app's worker) this does nothing and ``should_stop`` rules.
    """

    def __init__(self) -> None:
        self.pressed = False
        self.signum: int | None = None

    @contextlib.contextmanager
    def as_stop(self) -> Iterator[None]:
        if threading.current_thread() is not threading.main_thread():
            yield
            return

        def handler(signum: int, frame: object) -> None:
            if self.pressed:
                raise KeyboardInterrupt
            self.pressed, self.signum = True, signum

        previous = {n: signal.signal(n, handler) for n in STOP_SIGNALS}
        try:
            yield
        finally:
            for n, before in previous.items():
                signal.signal(n, before)


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
