"""The report: a plan as the ``ctxtui.report/1`` document, data only.

The JSON shape is a public contract that scripts and CI read: every key always present and
typed the same way, ``null`` where a value does not apply.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from ctxtui.core.compacting.notes import llm_calls
from ctxtui.core.literal import name_text
from ctxtui.core.planning.as_sent import history_tokens
from ctxtui.core.planning.plan import Plan, Zone
from ctxtui.core.planning.tool_costs import tool_costs
from ctxtui.core.session.models import Session
from ctxtui.core.simulation.reported import foreign_tokenizer, last_reported

if TYPE_CHECKING:
    from ctxtui.core.compacting.compaction import CompactionResult
    from ctxtui.core.simulation.estimate_check import EstimateDrift
    from ctxtui.core.tokens.calibration import SessionFit


SCHEMA = "ctxtui.report/1"


def _policy(session: Session, plan: Plan) -> dict[str, Any]:
    from ctxtui.core.policies.policy import registry_alternative, window_source_of

    return {
        **plan.policy.as_json(),
        "window_source": window_source_of(plan.policy, session).value,
        "window_unconfigured": plan.policy.unconfigured_window,  # PicoClaw's max_tokens · 4
        **registry_alternative(plan.policy, session),  # and the model's window beside it
    }


def context_categories(plan: Plan) -> list[dict[str, Any]]:
    """The window as ``/context`` splits it: system, tools, messages, free, autocompact buffer
    (``Policy.headroom``); free is the gauge's rule (``Totals.free_under``)."""
    t = plan.totals
    buffer = plan.policy.headroom if t.trigger else 0
    messages = t.summary + t.history
    free = t.free_under(buffer)
    return [
        {"name": "system prompt", "tokens": t.system},
        {"name": "tool definitions", "tokens": t.tool_defs},
        {"name": "messages", "tokens": messages},
        {"name": "free", "tokens": free},
        {"name": "autocompact buffer", "tokens": buffer},
    ]


def _messages(session: Session, plan: Plan) -> list[dict[str, Any]]:
    """One row per message, reading each of the plan's per-message views once, in order."""
    pruned = set(plan.pruned)
    truncated = set(plan.truncated)
    kept, tail, excluded = plan.kept_start, plan.tail.start, plan.excluded
    tail_zone, kept_zone, dropped_zone = Zone.TAIL.value, Zone.KEPT.value, Zone.DROPPED.value
    names = {c.id: c.name for m in session.messages for c in m.tool_calls}
    return [
        {
            "index": i,
            "role": m.role,
            "tokens": tokens,
            "sent_tokens": sent,
            # Plan.zone inlined (a call per row), excluded included
            "zone": dropped_zone
            if i in excluded
            else tail_zone
            if i >= tail
            else kept_zone
            if i >= kept
            else dropped_zone,
            "pruned": i in pruned,
            "truncated": i in truncated,
            "tool_call_ids": [c.id for c in m.tool_calls] if m.tool_calls else [],
            "tool_call_id": m.tool_call_id,
            # what people read: the tools called, or the tool a result answers
            "tool_names": [c.name for c in m.tool_calls]
            if m.tool_calls
            else [name]
            if (name := m.tool_name or names.get(m.tool_call_id or ""))
            else [],
        }
        for i, (m, tokens, sent) in enumerate(
            zip(session.messages, plan.message_tokens, plan.effective_tokens, strict=True)
        )
    ]


def _parts(plan: Plan) -> dict[str, int]:
    """The prompt's parts, adding up to ``tokens``: ``history_tokens`` is the rows' sent
    tokens (kept and fresh tail), ``dropped_tokens`` what dropped rows add uncompacted."""
    t = plan.totals
    return {
        "system_tokens": t.system,
        "tool_defs_tokens": t.tool_defs,
        "summary_tokens": t.summary,
        "history_tokens": history_tokens(plan),
        "dropped_tokens": t.dropped,
    }


def _tools(session: Session, plan: Plan) -> list[dict[str, Any]]:
    """Per tool, the most expensive first: ``ctxtui.core.planning.tool_costs`` as plain figures."""
    costs = tool_costs(session, plan)
    return [
        {
            "name": name_text(t.name),
            "calls": t.calls,
            "call_tokens": t.call_tokens,
            "output_tokens": t.output_tokens,
            "pruned_tokens": t.pruned_tokens,
            "truncated_tokens": t.truncated_tokens,
            "outputs": t.outputs,
            "sent_tokens": t.sent_tokens,
            "share": round(costs.share(t), 6),
        }
        for t in costs.tools
    ]


def _compaction(plan: Plan, result: CompactionResult | None) -> dict[str, Any]:
    need = plan.compaction
    if result is not None:
        replaced = result.replaced
        before, after = result.tokens_before, result.tokens_after
    else:
        replaced = need.replaced
        before = after = plan.totals.requested
    return {
        "needed": need.needed,
        "reason": need.reason.value if need.reason is not None else None,
        "replaced": list(replaced) if replaced is not None else None,
        "tokens_before": before,
        "tokens_after": after,
        # leaf-summary calls an LLM summariser would make; null when nothing was simulated
        "llm_calls": llm_calls(result) if result is not None else None,
    }


def _overflow(plan: Plan, result: CompactionResult | None) -> dict[str, Any] | None:
    info = result.overflow if result is not None else plan.overflow
    return None if info is None else asdict(info)


def _estimate(drift: EstimateDrift | None) -> dict[str, Any] | None:
    if drift is None:
        return None
    return {
        "estimator": drift.estimator,
        "exact": drift.exact,
        "estimated_tokens": drift.estimated_tokens,
        "exact_tokens": drift.exact_tokens,
        "error": round(drift.error, 6),
        "differs": drift.differs,
        "sentence": drift.sentence(),
    }


def build_report(
    session: Session,
    plan: Plan,
    compaction: CompactionResult | None,
    estimate: EstimateDrift | None = None,
    fit: SessionFit | None = None,
) -> dict[str, Any]:
    """The ``ctxtui.report/1`` document; ``compaction`` supplies the after-compaction figures
    (without it, ``tokens_after`` is ``tokens_before``); ``fit`` is the transcript's calibration."""
    totals = plan.totals
    return {
        "schema": SCHEMA,
        "session": {
            "path": name_text(session.meta.source_path),
            "format": session.meta.format,
            "message_count": len(session.messages),
            "warnings": [*session.meta.warnings, *plan.warnings],
            "events": list(session.meta.events),  # the agent's recorded compactions, in words
        },
        "policy": _policy(session, plan),
        "tokenizer": {
            "requested": plan.tokenizer.requested,
            "used": plan.tokenizer.used,
            "note": tokenizer_note(plan, session),
        },
        "totals": {
            "tokens": totals.tokens,
            "window": totals.window,
            "budget": totals.budget,
            "used_ratio": round(totals.used_ratio, 6),
            # Beyond the four keys, so used_ratio can be checked by hand:
            # used_ratio = requested / window, requested = tokens + output_reserve.
            "output_reserve": totals.output_reserve,
            "requested": totals.requested,
            "trigger": totals.trigger,  # the smallest prompt (tokens) this policy compacts at
            "context_left": round(plan.policy.context_left(totals.tokens), 1),
            "categories": context_categories(plan),
            **_parts(plan),
        },
        "fresh_tail": {
            "start": plan.tail.start,
            "budget": plan.tail.budget,
            "tokens": plan.tail.tokens,
            "reason": plan.tail.reason.value,
        },
        "messages": _messages(session, plan),
        "prune": {
            "pruned": sorted(plan.pruned),
            "tokens_freed": plan.tokens_freed_by_pruning,
        },
        "tools": _tools(session, plan),
        "compaction": _compaction(plan, compaction),
        "overflow": _overflow(plan, compaction),
        **_reported_blocks(session, plan, fit),
        # the estimator against an exact count; null unless both were counted
        "estimate": _estimate(estimate),
    }


def _reported_blocks(session: Session, plan: Plan, fit: SessionFit | None) -> dict[str, Any]:
    """``reported``, ``gap`` (the reported request against ctxtui's count, the gap split in
    two: ``core.simulation.reported``) and ``calibration`` (the fit over every reported request)."""
    from ctxtui.core.simulation.reported import reported_gap
    from ctxtui.core.tokens.calibration import session_fit

    fit = fit if fit is not None else session_fit(session)
    gap = reported_gap(session, plan, fit)
    return {
        "reported": reported_usage(session, gap.request if gap is not None else None),
        "gap": gap.as_json() if gap is not None else None,
        "calibration": fit.as_json() if gap is not None else None,
    }


def tokenizer_note(plan: Plan, session: Session) -> str:
    """The plan's tokenizer note, plus a warning when an OpenAI encoding counts a Claude session."""
    note = plan.tokenizer.note
    if foreign_tokenizer(plan.tokenizer.used, session.meta.model):
        extra = f"{plan.tokenizer.used} is OpenAI's tokenizer, not Claude's: an approximation"
        note = f"{note}; {extra}" if note else extra
    return note


def reported_usage(session: Session, request: int | None = None) -> dict[str, Any] | None:
    """The API's own figures for the last request with usage, or ``None``; ``request`` numbers
    calls from the transcript's first, as ``replay`` does."""
    last = last_reported(session)
    if last is None:
        return None
    return {
        "prompt_tokens": last.prompt_tokens,
        "output_tokens": last.usage.output,
        "request": last.request if request is None else request,
        "source": last.usage.source,
    }
