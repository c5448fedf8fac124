"""The per-session job: a path and a policy in, a fleet row out, and nothing else.

``session_row`` is a pure function of the file's contents and its arguments (plain,
picklable values both ways), so any ``concurrent.futures.Executor`` can run it: a process
pool on this machine or a Dask cluster. It never raises for a bad file: the row says
``error`` instead, so one broken transcript cannot stop a fleet.

A row's figures are those of the single-session commands on the same file: ``top_tool`` as
``report`` has it (the session as the app opens it); ``messages`` every message of the file
(``core.fleet.conversation_messages``), the requests, peaks and compactions as ``replay``
walks them (the full history, through the agent's own compactions).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from ctxtui import __version__
from ctxtui.core.fleet import Row, Tally, empty_row, first_written

if TYPE_CHECKING:  # a warm run reads rows from the index and never needs the models
    from ctxtui.core.engine import Run
    from ctxtui.core.pricing.cost import SessionCost
    from ctxtui.core.session.models import Session
    from ctxtui.importers.appended import Settled

INDEX_VERSION = 5
"""Bumped when a row's meaning changes: every stored row then reads as stale."""


@dataclass(frozen=True, slots=True)
class Target:
    """One session to read: what to open (``PATH`` or ``PATH#ID``) and what the listing knew."""

    path: str
    agent: str | None = None
    project: str | None = None
    model: str | None = None
    started: str | None = None  # ISO 8601
    parent: str | None = None  # a sub-agent's parent session


@dataclass(frozen=True, slots=True)
class Spec:
    """The policies a fleet is replayed under: presets with the same knob overrides.

    ``simulate`` false reads usage only (no count, no replay): ``--no-simulate``. ``settle``
    false finds no settled state to keep (a run without an index: ``--no-cache``).
    """

    presets: tuple[str, ...] = ("plan",)
    overrides: tuple[tuple[str, Any], ...] = ()
    simulate: bool = True
    format: str | None = None
    settle: bool = True

    def fingerprint(self, preset: str) -> str:
        """What a stored result under ``preset`` depends on, besides the file itself."""
        key = {
            "preset": preset,
            "overrides": [list(pair) for pair in self.overrides],
            "format": self.format,
            "version": __version__,
            "index": INDEX_VERSION,
        }
        text = json.dumps(key, sort_keys=True, default=str)
        return hashlib.blake2b(text.encode(), digest_size=12).hexdigest()

    def base_fingerprint(self) -> str:
        """What the policy-free part of a row depends on (the reader, not the policy)."""
        text = json.dumps([self.format, __version__, INDEX_VERSION])
        return hashlib.blake2b(text.encode(), digest_size=12).hexdigest()


Simulated = dict[str, Any]
"""One preset's figures for one session: ``compactions``, ``peak``, ``top_tool``,
``cost_usd`` (the simulated run priced), ``error``."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """What the job returns: the file's own figures and one ``Simulated`` per preset asked."""

    base: Row
    simulated: dict[str, Simulated]
    grown: bytes | None = None
    """What to keep for a later run to read only what is appended (``Grown``)."""


def _what_if_cost(walked: Run, recorded: SessionCost) -> float | None:
    """What the simulated run would have cost (``core.pricing.cache_model``), as ``replay --json``'s
    ``what_if.simulated.cost_usd``; ``None`` when no request could be priced."""
    from ctxtui.core.pricing.cost import usd

    priced = walked.what_if(recorded)
    known = any(r is not None and r.cost is not None for r in priced.requests)
    return usd(priced.total) if known else None


def _describe(err: BaseException) -> str:
    from ctxtui.core.errors import SessionLoadError

    if isinstance(err, SessionLoadError):
        text = str(err)
    elif isinstance(err, OSError):
        text = err.strerror or str(err)
    else:
        text = f"{type(err).__name__}: {err}"
    text = " ".join(text.split())
    return text if len(text) <= 200 else text[:197] + "..."


def _load(target: Target, spec: Spec, *, full_history: bool) -> Session:
    from ctxtui.importers import load_session

    return load_session(target.path, format=spec.format, full_history=full_history)


def _read_history(target: Target, spec: Spec) -> tuple[Session, Settled | None]:
    """The full history, and where it is settled when its format says (a file, not a
    ``PATH#ID``): what a later run needs to read only what is appended to it."""
    from ctxtui.importers.appended import read_settled

    if spec.settle and "#" not in target.path:
        found = read_settled(target.path, spec.format)
        if found is not None:
            return found
    return _load(target, spec, full_history=True), None


def _opened(history: Session) -> Session | None:
    """The session as the app opens it, cut from its full history: the messages from the
    agent's last own compaction on (``None`` when the history does not say where that is).

    A transcript read in full holds its normal read as its last messages
    (``core.simulation.replay.shown_offset``), starting where the last recorded compaction put its
    summary; cutting it there spares a second read of the file.
    """
    recorded = history.meta.recorded_compactions
    if not recorded:
        return history  # nothing was compacted: the history is the session
    start = recorded[-1].message_index
    if not 0 <= start < len(history.messages):
        return None
    meta = history.meta.model_copy(
        update={"full_history": False, "recorded_compactions": recorded[-1:]}
    )
    return history.model_copy(update={"messages": history.messages[start:], "meta": meta})


def _simulate(
    session: Session, history: Session, spec: Spec, preset: str, recorded: SessionCost
) -> Simulated:
    """``preset`` over the session as ``report`` and ``replay`` would run it."""
    from ctxtui.core.engine import Engine
    from ctxtui.core.planning.tool_costs import tool_costs
    from ctxtui.options import build_policy
    from ctxtui.system.count_cache import default_cache

    overrides = dict(spec.overrides)
    try:
        engine = Engine(session, default_cache())
        if history is session:  # one count and one plan serve the tools and the walk
            walked = engine.run(build_policy(preset, overrides, session))
            assert walked is not None  # no stop check was given
            plan = walked.plan
        else:
            plan = engine.plan(build_policy(preset, overrides, session))
            walked = Engine(history, default_cache()).run(build_policy(preset, overrides, history))
            assert walked is not None
        costs = tool_costs(session, plan).tools
    except Exception as err:  # a policy this session refuses is that row's error
        return {
            "compactions": None,
            "peak": None,
            "top_tool": None,
            "cost_usd": None,
            "error": _describe(err),
        }
    return {
        "compactions": len(walked.replay.compactions),
        "peak": walked.replay.peak_tokens if walked.replay.requests else None,
        "top_tool": costs[0].name if costs else None,
        "cost_usd": _what_if_cost(walked, recorded),
        "error": None,
    }


def session_row(
    target: Target,
    spec: Spec,
    presets: tuple[str, ...] | None = None,
    grown: bytes | None = None,
) -> Outcome:
    """Read ``target`` and return its row, replayed under each of ``presets`` (default: all of
    the spec's). Never raises for what the file holds.

    ``grown`` is what an earlier run kept of the file (``Outcome.grown``): without a
    simulation to run, a file that only grew since is read from its settled messages on.
    """
    from ctxtui.system.heap import keep_out_of_collections

    asked = spec.presets if presets is None else presets
    known = {
        "agent": target.agent,
        "project": target.project,
        "model": target.model,
        "started": target.started,
        "parent": target.parent,
    }
    base = empty_row(target.path, **known)
    if grown is not None and not spec.simulate:
        extended = _extend(target, base, grown)
        if extended is not None:
            return extended
    try:
        history, settled = _read_history(target, spec)
        keep_out_of_collections(len(history))
        opened = _opened(history)
        session = opened or _load(target, spec, full_history=False)
    except Exception as err:  # a fleet survives any one file
        base["error"] = _describe(err)
        return Outcome(base, {})
    from ctxtui.core.pricing.cost import session_cost

    recorded = session_cost(history)
    tally = Tally()
    tally.add(history, recorded)
    base["agent"] = base["agent"] or session.meta.format
    base["model"] = base["model"] or session.meta.model
    base["started"] = base["started"] or first_written(session.messages)
    base.update(tally.figures())
    kept = None
    if settled is not None and opened is not None:
        part = Tally()
        part.add(history, recorded, upto=settled.messages)
        kept = Grown(settled.dumps(), part).dumps()
    if not spec.simulate:
        return Outcome(base, {}, kept)
    simulated = {p: _simulate(session, history, spec, p, recorded) for p in asked}
    return Outcome(base, simulated, kept)


class Grown(msgspec.Struct, frozen=True, array_like=True):
    """What the index keeps to read a grown file on from its settled messages: the reader's
    state (``importers.appended.Settled``) and the row's figures of those messages."""

    settled: bytes
    tally: Tally

    def dumps(self) -> bytes:
        return msgspec.msgpack.encode(self)

    @staticmethod
    def loads(data: bytes) -> Grown | None:
        try:
            return msgspec.msgpack.decode(data, type=Grown)
        except (msgspec.DecodeError, msgspec.ValidationError):
            return None


def _extend(target: Target, base: Row, grown: bytes) -> Outcome | None:
    """The row of a file that grew since its settled messages were stored (``grown``),
    reading only what follows them; ``None`` when it must be read whole."""
    from ctxtui.core.pricing.cost import session_cost
    from ctxtui.importers.appended import Settled, read_appended

    kept = Grown.loads(grown)
    settled = Settled.loads(kept.settled) if kept is not None else None
    if kept is None or settled is None:
        return None
    try:
        found = read_appended(Path(target.path), settled)
    except Exception:  # whatever the append holds, the whole read words it
        return None
    if found is None:
        return None
    part, again = found
    if _opened(part) is None:
        return None  # the last compaction has no message yet: the whole read opens it anew
    recorded = session_cost(part)
    tally = kept.tally.copy()
    tally.add(part, recorded)
    base["agent"] = base["agent"] or tally.agent
    base["model"] = base["model"] or tally.model
    base["started"] = base["started"] or tally.started
    base.update(tally.figures())
    state = None
    if again is not None:
        settled_part = kept.tally.copy()
        settled_part.add(part, recorded, upto=again.messages)
        state = Grown(again.dumps(), settled_part).dumps()
    return Outcome(base, {}, state)


def apply(base: Row, simulated: Simulated | None) -> Row:
    """The row as the document shows it: the file's figures and one preset's simulation."""
    row = dict(base)
    if simulated is not None:
        row["compactions_simulated"] = simulated["compactions"]
        row["peak_simulated"] = simulated["peak"]
        row["top_tool"] = simulated["top_tool"]
        if simulated["error"] and not row["error"]:
            row["error"] = simulated["error"]
    return row
