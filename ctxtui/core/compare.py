"""One session under several presets, side by side: the ``ctxtui.compare/1`` document.

Each preset gets its own policy, plan and, whatever the trigger says, a compaction, so "the
request after a compaction" is always a figure.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ctxtui.core.engine import Engine, Run
from ctxtui.core.planning.plan import Plan, Zone
from ctxtui.core.policies.policy import (
    Policy,
    policy_for_session,
    registry_alternative,
    window_source_of,
)
from ctxtui.core.policies.reasons import CompactReason
from ctxtui.core.pricing.cost import usd
from ctxtui.core.simulation.replay import EventKind

SCHEMA = "ctxtui.compare/1"


def _zones(plan: Plan) -> dict[str, dict[str, int]]:
    out = {z.value: {"count": 0, "tokens": 0} for z in Zone}
    for i in range(len(plan)):
        entry = out[plan.zone(i).value]
        entry["count"] += 1
        entry["tokens"] += plan.effective_tokens[i]
    return out


@dataclass(frozen=True, slots=True)
class PresetPlan:
    """One preset's plan for a session, with the policy it was built from."""

    name: str
    policy: Policy
    plan: Plan
    window_source: str  # transcript, registry, preset default or user


def plan_presets(
    engine: Engine,
    presets: Sequence[str],
    overrides: Mapping[str, Any] | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> tuple[PresetPlan, ...] | None:
    """Each preset's policy fitted to the session and its plan, in order (the app's lanes);
    ``None`` when ``should_stop`` says so. Counts are the engine's, shared between presets."""
    session = engine.session
    out: list[PresetPlan] = []
    for name in presets:
        if should_stop is not None and should_stop():
            return None
        policy = policy_for_session(name, session, overrides or {})
        counts = engine.counts(policy, should_stop=should_stop)
        if counts is None:
            return None
        plan = engine.plan(policy, counts)
        out.append(PresetPlan(name, policy, plan, window_source_of(policy, session).value))
    return tuple(out)


def compare_entry(engine: Engine, name: str, overrides: Mapping[str, Any]) -> dict[str, Any]:
    """One preset's figures for the session ``engine`` holds."""
    session = engine.session
    policy = policy_for_session(name, session, overrides)
    plan = engine.plan(policy)
    reason = plan.compaction.reason or CompactReason.PROACTIVE
    after = engine.compact(policy, reason)
    t = plan.totals
    return {
        "preset": name,
        "tokenizer": plan.tokenizer.used,
        "window": t.window,
        "window_source": window_source_of(policy, session).value,
        "window_unconfigured": policy.unconfigured_window,
        **registry_alternative(policy, session),
        "output_reserve": t.output_reserve,
        "trigger": t.trigger,
        "tokens": t.tokens,
        "requested": t.requested,
        "context_left": round(policy.context_left(t.tokens), 1),
        "compacts_now": plan.compaction.needed,
        "reason": plan.compaction.reason.value if plan.compaction.reason else None,
        "post_turn": plan.compaction.post_turn,
        "tail_start": plan.tail.start,
        "zones": _zones(plan),
        "pruned": {"count": len(plan.pruned), "tokens_freed": plan.tokens_freed_by_pruning},
        "after_compaction": {
            "replaced": list(after.replaced) if after.replaced else None,
            "requested": after.tokens_after,
            "messages": len(after.session.messages),
        },
        "warnings": list(plan.warnings),
        "replay": None,
    }


def replay_entry(engine: Engine, name: str, overrides: Mapping[str, Any]) -> dict[str, Any]:
    """One preset over the whole session: every request replayed (``core.simulation.replay``), its
    simulated compactions by reason, and the largest prompt it would have sent."""
    walked = engine.run(policy_for_session(name, engine.session, overrides))
    assert walked is not None  # no stop check was given
    result = walked.replay
    reasons: dict[str, int] = {}
    for c in result.compactions:
        reasons[c.reason.value] = reasons.get(c.reason.value, 0) + 1
    peak = max(result.requests, key=lambda r: r.simulated_tokens, default=None)
    return {
        "requests": len(result),
        "compactions": len(result.compactions),
        "compaction_reasons": reasons,
        "peak_tokens": result.peak_tokens,
        "peak_request": peak.index if peak is not None else None,
        "overflow_requests": sum(r.has(EventKind.OVERFLOW) for r in result.requests),
        "recorded_compactions": len(result.recorded),
        **_dollars(walked),
    }


def _dollars(walked: Run) -> dict[str, Any]:
    """The replayed session's recorded dollars and the simulated run's
    (``core.pricing.cache_model``)."""
    whatif = walked.what_if()
    return {
        "recorded_cost_usd": usd(whatif.recorded.total) if whatif.recorded.priced else None,
        "simulated_cost_usd": usd(whatif.total) if whatif.recorded.priced else None,
        "simulated_cache_hit_ratio": whatif.hit_ratio,
    }


def compare(
    engine: Engine,
    presets: Sequence[str],
    overrides: Mapping[str, Any] | None = None,
    history: Engine | None = None,
) -> dict[str, Any]:
    """The ``ctxtui.compare/1`` document: the session, then one entry per preset in order,
    with ``replay`` over ``history`` when given (else ``null``)."""
    session = engine.session
    entries = [compare_entry(engine, name, overrides or {}) for name in presets]
    if history is not None:
        for entry in entries:
            entry["replay"] = replay_entry(history, entry["preset"], overrides or {})
    return {
        "schema": SCHEMA,
        "session": {
            "path": session.meta.source_path,
            "format": session.meta.format,
            "model": session.meta.model,
            "message_count": len(session.messages),
        },
        "presets": entries,
    }
