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
from typing import TYPE_CHECKING, Any

from ctxtui import __version__
from ctxtui.core.fleet import Row, empty_row

if TYPE_CHECKING:  # a warm run reads rows from the index and never needs the models
    from ctxtui.core.engine import Run
    from ctxtui.core.pricing.cost import SessionCost
    from ctxtui.core.session.models import Session

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

    ``simulate`` false reads usage only (no count, no replay): ``--no-simulate``.
    """

    presets: tuple[str, ...] = ("plan",)
    overrides: tuple[tuple[str, Any], ...] = ()
    simulate: bool = True
    format: str | None = None

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


def session_cost(recorded: SessionCost) -> dict[str, Any]:
    """The row's ``cost_usd`` and ``cache_hit_ratio`` (``core.pricing.cost``, over every request
    of the full history, as ``report --json``'s ``cost`` and ``cache`` blocks) and the prompt
    and cache-read tokens the fleet's totals weigh that ratio by.

    ``None`` when no request could be priced (no usage, or no price for its model): unknown,
    not free. A sub-agent is a row of its own, so its cost is not added to its parent's.
    """
    from ctxtui.core.pricing.cost import usd

    used = [r.usage for r in recorded.requests if r.usage is not None]
    return {
        "cost_usd": usd(recorded.total) if recorded.priced else None,
        "cache_hit_ratio": recorded.hit_ratio,
        "prompt_tokens": sum(u.prompt for u in used) if used else None,
        "cache_read_tokens": sum(u.cache_read for u in used) if used else None,
    }


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


def _usage_figures(history: Session) -> dict[str, Any]:
    """Requests, the largest reported prompt and the agent's own compactions, with the band
    of the automatic ones (``core.tuning.observed``'s rule: manual ones are not fitted)."""
    points = history.index.requests
    messages = history.messages
    reported = (messages[p].usage for p in points)
    peak = max(
        (u.prompt_total for u in reported if u is not None and u.prompt_total is not None),
        default=None,
    )
    recorded = history.meta.recorded_compactions
    band = [c.pre_tokens for c in recorded if c.pre_tokens is not None and c.trigger != "manual"]
    return {
        "requests": len(points),
        "peak_reported": peak,
        "compactions_recorded": len(recorded),
        "observed_low": min(band, default=None),
        "observed_high": max(band, default=None),
    }


def _started(session: Session) -> str | None:
    first = next((m.created_at for m in session.messages if m.created_at is not None), None)
    return first.isoformat() if first is not None else None


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


def session_row(target: Target, spec: Spec, presets: tuple[str, ...] | None = None) -> Outcome:
    """Read ``target`` and return its row, replayed under each of ``presets`` (default: all of
    the spec's). Never raises for what the file holds."""
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
    try:
        history = _load(target, spec, full_history=True)
        keep_out_of_collections(len(history))
        session = _opened(history) or _load(target, spec, full_history=False)
    except Exception as err:  # a fleet survives any one file
        base["error"] = _describe(err)
        return Outcome(base, {})
    base["agent"] = base["agent"] or session.meta.format
    base["model"] = base["model"] or session.meta.model
    base["started"] = base["started"] or _started(session)
    base.update(_usage_figures(history))
    from ctxtui.core.fleet import ACTIVITY, activity, conversation_messages
    from ctxtui.core.pricing.cost import session_cost as priced

    base["messages"] = conversation_messages(history)
    recorded = priced(history)
    base.update(session_cost(recorded))
    base[ACTIVITY] = activity(history, recorded)
    if not spec.simulate:
        return Outcome(base, {})
    return Outcome(base, {p: _simulate(session, history, spec, p, recorded) for p in asked})


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
