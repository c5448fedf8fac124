"""The main screen's slow steps, as plain functions run in thread workers, and the
messages they post.

Each reads, counts, compacts or writes through the core and reports only by posting one of
the messages below (a step of load → count → plan → compact, as data); none touches a
widget or the screen's state. An error the user must see becomes a message too: a bug in an
importer or the writer must not take the app down.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from textual.message import Message
from textual.worker import NoActiveWorker, get_current_worker

from ctxtui.core.compacting.compaction import CompactionResult
from ctxtui.core.compacting.leaf_calls import LeafCalls
from ctxtui.core.engine import Engine
from ctxtui.core.error_text import describe_bug
from ctxtui.core.errors import ReadStoppedError, SessionLoadError, StopCheck
from ctxtui.core.policies.policy import Policy
from ctxtui.core.policies.reasons import CompactReason
from ctxtui.core.session.import_notes import earlier_failed
from ctxtui.core.session.models import Session
from ctxtui.core.summaries.retention import Audit
from ctxtui.core.tokens.calibration import SessionFit, tail_start
from ctxtui.core.tokens.counting import Progress
from ctxtui.core.tokens.counts import SessionCounts
from ctxtui.core.tokens.tokenizers.encodings import EncodingUnavailableError
from ctxtui.core.tuning.configured import AgentConfig
from ctxtui.options import debugging

Post = Callable[[Message], object]


@dataclass
class SessionLoaded(Message):
    """A session file was read; ``path`` is ``None`` for a session built in memory.

    ``fit`` is the calibration over the whole transcript when the session was read from the
    agent's last compaction on (its history read too); ``None`` when the session is whole.
    ``agent_config`` is the settings of the agent that wrote it (``read_configured``), read
    in the worker so the state can lay them over that agent's preset."""

    session: Session
    path: Path | None
    fit: SessionFit | None = None
    agent_config: AgentConfig | None = None


@dataclass
class HistoryRead(Message):
    """The transcript at ``path`` read once more with its full history, after ``session`` (its
    normal read, from the agent's last compaction on) is on screen: the ``history`` itself,
    for the views and the audits to reuse, and its calibration ``fit`` (``None`` without
    usage)."""

    path: Path
    session: Session
    history: Session
    fit: SessionFit | None


@dataclass
class SessionLoadFailed(Message):
    """The importer refused a file; ``problem`` is its one-line message."""

    problem: str


@dataclass
class CountingProgress(Message):
    """Counting has reached ``done`` of ``total`` messages; only the newest one matters."""

    done: int
    total: int

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, CountingProgress)


@dataclass
class CountsReady(Message):
    """Token counts for ``policy``'s tokenizer are known; the screen may re-plan with them."""

    policy: Policy
    counts: SessionCounts


@dataclass
class CompactionReady(Message):
    """A compaction was computed (nothing applied yet): the preview can open. ``calls`` are
    the LLM calls that would write its summary (for the preview's "send to LLM")."""

    result: CompactionResult
    calls: LeafCalls | None = None
    audit: Audit | None = None  # the stand-in's retention audit


@dataclass
class SessionExported(Message):
    """``messages`` messages were written to ``path`` as native JSON."""

    path: Path
    messages: int


@dataclass
class ExportFailed(Message):
    """The export was refused or failed; ``problem`` is the core's one line."""

    problem: str


@dataclass
class WorkFailed(Message):
    """A worker hit an error the user must see; ``problem`` is one line."""

    problem: str


@dataclass
class SessionGrew(Message):
    """The watched file ``path`` was read again after it changed (``--watch``). ``fit`` is
    the whole transcript's calibration again when the agent compacted since the last read."""

    session: Session
    path: Path
    fit: SessionFit | None = None


@dataclass
class SessionReadWhole(Message):
    """The file at ``path`` read whole after ``first`` (``load_tail``'s first look from its
    last bytes) was drawn: ``session`` takes its place, with what only the file's earlier part
    says (the messages a compaction hid, earlier warnings, the title)."""

    first: Session
    session: Session
    path: Path


@dataclass
class WatchProblem(Message):
    """The watched file could not be read again (gone, or mid-rewrite); the last good read
    stays on screen. ``problem`` is one line, or ``None`` once a read succeeds again."""

    problem: str | None


def bug_line(err: Exception) -> str:
    """An exception no handler expected, in the CLI's words for a bug (``describe_bug``).

    The jobs catch these so a bug leaves the app running with the error on screen. With
    ``CTXTUI_DEBUG=1`` the exception is raised again instead, and the app ends with its
    traceback, as the line promises: the shells start these workers with
    ``exit_on_error=debugging()``, since a worker that does not exit on error only logs it.
    """
    if debugging():
        raise err
    return describe_bug(err)


FIRST_LOOK_WAIT = 0.5
"""Seconds a read after the first screen's waits for that screen to be drawn: the read holds
the GIL, and the screen drawing meanwhile took a third longer (half on a Codex rollout)."""


def read_session(
    post: Post, path: Path, format: str | None, drawn: threading.Event | None = None
) -> None:
    """Read ``path`` and post it at once (the list is drawn from this read), then read its
    full history if the agent compacted it (``read_whole``): the first screen never waits
    for the second read. A big transcript is first drawn from its last bytes where they hold
    the session (``load_tail``), and the whole read then takes its place. Each read after
    the first waits until the screen says it drew the session (``drawn``; never long).
    A cancelled worker (a quit, another file opened) ends its read within ``STOP_EVERY``
    records rather than holding a core to the read's end."""
    from ctxtui.importers import load_session

    stopped = _stop_check()
    first = _first_look(path, format)
    if first is not None:
        post(SessionLoaded(first, path, agent_config=read_configured(first)))
        if drawn is not None:
            drawn.wait(FIRST_LOOK_WAIT)
    try:
        session = load_session(path, format, should_stop=stopped)
    except ReadStoppedError:
        return
    except Exception as err:  # an importer bug must not take the app down either
        problem = str(err) if isinstance(err, SessionLoadError) else f"{path.name}: {bug_line(err)}"
        post(SessionLoadFailed(problem))
        if first is not None:  # the first look stays, saying the rest could not be read
            post(SessionReadWhole(first, earlier_failed(first, problem), path))
    else:
        if first is None:
            post(SessionLoaded(session, path, agent_config=read_configured(session)))
            if drawn is not None and session.meta.recorded_compactions:
                drawn.wait(FIRST_LOOK_WAIT)  # the full history's read follows
        else:
            post(SessionReadWhole(first, session, path))
        read_whole(post, path, session)


def _stop_check() -> StopCheck | None:
    """Whether the worker running this read was cancelled; ``None`` outside a worker (a
    caller of its own), where nothing cancels the read."""
    try:
        worker = get_current_worker()
    except NoActiveWorker:
        return None
    return lambda: worker.is_cancelled


def _first_look(path: Path, format: str | None) -> Session | None:
    """The session from the file's last bytes (``importers.load_tail``), or ``None``: a
    courtesy, so any failure leaves it to the whole read."""
    from ctxtui.importers import load_tail

    try:
        return load_tail(path, format)
    except Exception:  # the whole read says what is wrong with the file
        return None


def read_configured(session: Session) -> AgentConfig | None:
    """The compaction settings of the agent that wrote ``session`` (its files and the
    environment, as ``ctxtui policy`` reads them): disk reads, so done in the load worker.
    ``None`` for a format that is no agent's store."""
    from ctxtui.agent_config import read_agent_config
    from ctxtui.agent_config.effective import agent_of
    from ctxtui.core.policies.preset_choice import agent_preset

    name = agent_preset(session)
    agent = agent_of(name) if name is not None else None
    return read_agent_config(agent) if agent is not None else None


ReadHistory = Callable[[], Session]
"""How a job reads a transcript's full history: ``load_session(..., full_history=True)``, or
a watcher's ``history``, which reads only what was appended since it last read."""


def _history_of(
    path: Path, session: Session, read: ReadHistory | None = None
) -> HistoryRead | None:
    """The transcript's full history when ``session`` was read from the agent's last
    compaction on (by ``read`` when given), with its fit; ``None`` when there is nothing more
    to read, the read failed or was stopped, or it read past ``session`` (a watched file grew
    between the two reads: its figures would count requests not on screen yet). A courtesy
    read: the session on screen stands (its fit numbering from the boundary)."""
    if not _compacted(session):
        return None
    from ctxtui.core.tokens.calibration import ends_with, history_fit
    from ctxtui.importers import load_session

    try:
        if read is None:
            fmt = session.meta.format
            history = load_session(path, fmt, full_history=True, should_stop=_stop_check())
        else:
            history = read()
    except Exception:
        return None
    if not ends_with(history, session):
        return None
    usage = any(m.usage is not None for m in session.messages)
    return HistoryRead(path, session, history, history_fit(history, session) if usage else None)


def _compacted(session: Session) -> bool:
    """Whether ``session`` was read from the agent's last compaction on: it has a history."""
    return bool(session.meta.recorded_compactions) and not session.meta.full_history


def read_whole(post: Post, path: Path, session: Session, read: ReadHistory | None = None) -> bool:
    """Post the transcript's full history when ``session`` was read from the agent's last
    compaction on (``_history_of``); nothing when there is none. ``False`` when there is
    one but it could not be read as ``session``'s (for the caller to try again)."""
    found = _history_of(path, session, read)
    if found is not None:
        post(found)
    return found is not None or not _compacted(session)


WATCH_INTERVAL = 0.25
"""Seconds between two looks at a watched file: one ``stat`` each, so it can be short."""
HISTORY_QUIET = 2.0
"""Seconds a watched transcript must stay unchanged before its full history is read again:
what the history alone says (the recorded total, every compaction's band, the retention
note) comes back once the agent pauses, at the cost of one read per pause, not per append."""
HISTORY_EVERY = 10.0
"""Seconds at most between two reads of a growing transcript's history, pause or not: an
agent that writes every second or two would otherwise never show its total."""


def watch(post: Post, path: Path, format: str | None, interval: float = WATCH_INTERVAL) -> None:
    """Read ``path``, then read it again whenever it changes, until the worker is cancelled.

    The first good read is a ``SessionLoaded`` (as a plain open), and so is a read of
    another format (a file moved in its place); later ones are ``SessionGrew``. A read that
    fails is said once per distinct problem: before any good read as a load failure, after
    one as a ``WatchProblem`` (the last good session stays). A grown transcript's full
    history is read on once the file has been unchanged for ``HISTORY_QUIET`` seconds, or
    ``HISTORY_EVERY`` after the last read of it (``read_whole``): until then the figures
    only the history gives are not shown.
    """
    from ctxtui.importers.watch import SessionWatcher

    worker = get_current_worker()
    watcher = SessionWatcher(path, format, should_stop=_stop_check())
    history = watcher.history  # read on from the last read's end, as the session is
    shown: str | None = None  # the format on screen; None until the first good read
    said = None
    seen_start: tuple[object, ...] | None = None
    stale: Session | None = None  # the grown session whose history is not read yet
    stale_since = history_at = 0.0
    while not worker.is_cancelled:
        session = watcher.poll()
        now = time.monotonic()
        if session is not None:
            start = tail_start(session)
            fresh = True  # a new session or compaction: its history is read at once
            found = None
            if session.meta.format != shown:
                # The first read, or another agent's file moved in: open it as such, its
                # own preset and configuration, rather than grow the one on screen.
                post(SessionLoaded(session, path, agent_config=read_configured(session)))
                found = _history_of(path, session, history)
            elif start != seen_start:
                # A new boundary moves the first request on screen: number from the history,
                # which also says what the new compaction lost.
                found = _history_of(path, session, history)
                post(SessionGrew(session, path, found.fit if found is not None else None))
            else:
                post(SessionGrew(session, path))
                fresh = False
            if found is not None:
                post(found)
            stale, stale_since = session, now
            if fresh and (found is not None or not _compacted(session)):
                stale, history_at = None, now
            elif fresh:  # read past it (the agent still writing): again after the next poll
                history_at = -math.inf
            seen_start = start
            if said is not None and shown is not None:
                post(WatchProblem(None))
            shown, said = session.meta.format, None
        elif watcher.error is not None and watcher.error != said:
            said = watcher.error
            post(WatchProblem(said) if shown is not None else SessionLoadFailed(said))
        due = now - stale_since >= HISTORY_QUIET or now - history_at >= HISTORY_EVERY
        # a history read past ``stale`` is not posted: it is read again after the next poll
        if stale is not None and due and read_whole(post, path, stale, history):
            stale, history_at = None, time.monotonic()
        time.sleep(interval)


COUNTING_REFUSALS = (EncodingUnavailableError, ValueError)
"""What counting raises with a message for the user: no offline vocabulary for the chosen
tokenizer, or a tokenizer spec it does not know. Anything else is a bug (``bug_line``)."""


def count(
    post: Post,
    engine: Engine,
    policy: Policy,
    first: Policy | None = None,
    drawn: threading.Event | None = None,
) -> None:
    """Count the session under ``policy``'s tokenizer, reporting progress; stops if cancelled.

    ``first`` (an estimator's policy) is counted before, quietly: its counts draw the list
    while the exact count runs, so the first screen never waits for an exact tokenizer. The
    exact count starts once the screen says it drew them (``drawn``; never long): loading a
    vocabulary holds the GIL, and the first paint took twice as long beside it.
    """

    def progress(done: int, total: int) -> None:
        post(CountingProgress(done, total))

    if first is not None:
        _count(post, engine, first, None)
        if drawn is not None:
            drawn.wait(FIRST_LOOK_WAIT)
    _count(post, engine, policy, progress)


def count_quietly(post: Post, engine: Engine, policy: Policy) -> None:
    """Count under ``policy`` without progress (an estimator, in a moment): for the session
    bar's estimate note, so the busy row does not flash for it."""
    _count(post, engine, policy, None)


def _count(post: Post, engine: Engine, policy: Policy, progress: Progress | None) -> None:
    worker = get_current_worker()
    try:
        counts = engine.counts(
            policy, on_progress=progress, should_stop=lambda: worker.is_cancelled
        )
    except COUNTING_REFUSALS as err:
        post(WorkFailed(f"counting failed: {err}"))
        return
    except Exception as err:
        post(WorkFailed(f"counting failed: {bug_line(err)}"))
        return
    if counts is not None:
        post(CountsReady(policy, counts))


def compact(post: Post, engine: Engine, policy: Policy, reason: CompactReason) -> None:
    """Compact, and work out the LLM calls that would write the summary (the plan is cheap)."""
    from ctxtui.core.compacting.leaf_calls import leaf_calls
    from ctxtui.core.simulation.retention_audits import preview_audit

    try:
        result = engine.compact(policy, reason)
        plan = engine.plan(policy)
        calls = leaf_calls(engine.session, plan, result, engine.tokenizer(policy))
        audit = preview_audit(engine.session, result)
    except Exception as err:
        post(WorkFailed(f"compaction failed: {bug_line(err)}"))
        return
    post(CompactionReady(result, calls, audit))


def write(post: Post, session: Session, path: Path) -> None:
    """Write ``session`` as native JSON, atomically (the core's ``write_session``).

    A long session is hundreds of megabytes of JSON: seconds of work that must not freeze
    the keys.
    """
    from ctxtui.importers import source_protection
    from ctxtui.stores.guard import store_refusal
    from ctxtui.system.export import ExportError, write_session
    from ctxtui.system.output import write_root_refusal

    refusal = write_root_refusal(path) or store_refusal(path)
    if refusal is not None:
        post(ExportFailed(refusal))
        return
    try:
        protected = source_protection(session.meta.source_path)
        written = write_session(session, path, protected=protected, force=path.exists())
    except ExportError as err:
        post(ExportFailed(str(err)))
    except Exception as err:  # a bug in the writer must not take the app down
        post(ExportFailed(f"{path.name}: {bug_line(err)}"))
    else:
        post(SessionExported(written, len(session)))
