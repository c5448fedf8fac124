"""``ctxtui replay``: every request of a session, simulated and reported, and the calibration.

The session is read with its full history, replayed under the policy and calibrated against
the usage it recorded; this module only renders: a table, or the ``ctxtui.replay/2`` JSON
document.
"""

from __future__ import annotations

import argparse
from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from ctxtui.commands.cost_blocks import (
    CostBlocks,
    cost_blocks,
    cost_sentence,
    whatif_sentence,
)
from ctxtui.commands.json_out import print_json
from ctxtui.commands.pipeline import build_policy, counting, ignored_knobs, load
from ctxtui.commands.report import print_table
from ctxtui.core.engine import Engine, Run
from ctxtui.core.literal import name_text, visible
from ctxtui.core.pricing.cache_model import simulated_json, whatif_json
from ctxtui.core.pricing.cost import RequestCost, request_json
from ctxtui.core.session.import_notes import event_lines
from ctxtui.core.session.models import Session
from ctxtui.core.simulation.replay import Request
from ctxtui.core.summaries.segment_facts import keep_facts, remember_facts
from ctxtui.core.tokens.calibration import Calibration
from ctxtui.core.wording import plural
from ctxtui.options import EXIT_OK
from ctxtui.system.count_cache import default_cache
from ctxtui.system.fact_cache import default_fact_cache

SCHEMA = "ctxtui.replay/2"
FULL_TABLE_ROWS = 60
EDGE_ROWS = 10


def load_history(args: argparse.Namespace) -> Session:
    """SESSION with every message it holds, before and after the agent's own compactions."""
    return load(args, full_history=True)


def run(args: argparse.Namespace) -> int:
    session = load_history(args)
    policy = build_policy(args, session)
    with counting() as progress:
        walked = Engine(session, default_cache()).run(policy, on_count=progress)
        assert walked is not None  # no stop check was given
        calibration = walked.calibration()
    document = build_document(walked, calibration, cost_blocks(session, walked.replay.points))
    facts = default_fact_cache()
    remember_facts(session, facts)  # the audits read only messages no run has read before
    add_retention(document, walked)
    keep_facts(session, facts)
    document["session"]["warnings"].extend(ignored_knobs(args, policy, walked.plan.tokenizer.used))
    if args.json:
        print_json(document)  # the stdlib's text, written by orjson
    else:
        print_table(render(document))
    return EXIT_OK


def build_document(walked: Run, calibration: Calibration, costs: CostBlocks) -> dict[str, Any]:
    """The ``ctxtui.replay/2`` document: every key always present, ``null`` where unknown;
    ``costs`` are the dollar and cache figures, the gap explains the last request's
    difference to the API's count."""
    result, gap = walked.replay, walked.gap
    session, policy = result.session, result.policy
    priced = costs.cost.requests
    whatif = walked.what_if(costs.cost)
    return {
        "schema": SCHEMA,
        "session": {
            "path": name_text(session.meta.source_path),
            "format": session.meta.format,
            "model": session.meta.model,
            "message_count": len(session.messages),
            "warnings": [*session.meta.warnings, *costs.warnings],
            "events": list(session.meta.events),
        },
        "policy": policy.as_json(),
        "tokenizer": result.counts.tokenizer.used,
        "window": policy.context_window,
        "trigger_tokens": result.trigger_tokens,
        "requests": [
            {**_request(r, priced[r.index]), "simulated_cost": simulated_json(whatif, r.index)}
            for r in result.requests
        ],
        "cost": costs.cost_json(),
        "cache": costs.cache_json(),
        "what_if": whatif_json(whatif, policy.preset),
        "compactions": [
            {
                "request": c.request,
                "reason": c.reason.value,
                "tokens_before": c.tokens_before,
                "tokens_after": c.tokens_after,
                "replaced": list(c.replaced),
            }
            for c in result.compactions
        ],
        "recorded_compactions": [
            {"request": rc.request, "trigger": rc.trigger, "pre_tokens": rc.pre_tokens}
            for rc in result.recorded
        ],
        "calibration": {
            "samples": calibration.samples,
            "tokenizers": {
                e.tokenizer: {"median_abs_error": e.median_abs_error, "bias": e.bias}
                for e in calibration.errors
            },
            "fitted_chars_per_token": calibration.fit.chars_per_token,
            "offset_tokens": calibration.fit.offset_tokens,
            # a fit outside 2-6 chars/token, or over too few requests, is not to be believed
            "plausible": not calibration.problem,
            "reason": calibration.problem or None,
            # the gap's split, when given, is the one figure for what the transcript lacks
            "sentence": calibration.sentence(offset=gap is None or gap.lacks is None),
        },
        # the last reported request against ctxtui's count, the gap split (core.simulation.reported)
        "gap": gap.as_json() if gap is not None else None,
    }


def add_retention(document: dict[str, Any], walked: Run) -> None:
    """Each simulated and recorded compaction gains its ``retention`` block
    (``ctxtui.retention/1``'s), ``null`` where a recorded one has nothing before it."""
    for row, audit in zip(document["compactions"], walked.simulated_audits(), strict=True):
        row["retention"] = audit.block()
    at = {a.segment.last + 1: a for a in walked.recorded_audits()}
    for row, rc in zip(document["recorded_compactions"], walked.replay.recorded, strict=True):
        found = at.get(rc.message_index)
        row["retention"] = found.block() if found is not None else None


def _request(r: Request, cost: RequestCost) -> dict[str, Any]:
    """One request: the ``/1`` keys, then its dollars and cache figures."""
    return {
        "index": r.index,
        "message_index": r.message_index,
        "simulated_tokens": r.simulated_tokens,
        "reported_tokens": r.reported_tokens,
        "events": [{"kind": e.kind.value, "reason": e.reason} for e in r.events],
        **request_json(cost),
    }


def _shown_rows(requests: list[dict[str, Any]]) -> list[dict[str, Any] | None]:
    """Every row of a short replay; of a long one the edges and every row with an event."""
    if len(requests) <= FULL_TABLE_ROWS:
        return list(requests)
    out: list[dict[str, Any] | None] = []
    last = -1
    for i, row in enumerate(requests):
        if i < EDGE_ROWS or i >= len(requests) - EDGE_ROWS or row["events"]:
            if i != last + 1:
                out.append(None)
            out.append(row)
            last = i
    return out


def _events(row: dict[str, Any]) -> str:
    words = []
    for e in row["events"]:
        kind = e["kind"].replace("_", " ")
        words.append(f"{kind} ({e['reason']})" if e["reason"] else kind)
    return ", ".join(words)


def render(doc: dict[str, Any]) -> RenderableType:
    """The table: one row per request, then the totals and the calibration sentence."""
    title = Text(f"replay · {visible(doc['session']['path'] or '(no file)')}")  # never markup
    table = Table(title=title, title_justify="left")
    for name in ("request", "message", "simulated", "reported", "events"):
        table.add_column(name, justify="left" if name == "events" else "right")
    for row in _shown_rows(doc["requests"]):
        if row is None:
            table.add_row("…", "", "", "", "")
            continue
        reported = row["reported_tokens"]
        table.add_row(
            f"{row['index'] + 1:,}",
            f"#{row['message_index']:,}",
            f"{row['simulated_tokens']:,}",
            f"{reported:,}" if reported is not None else "—",
            Text(_events(row)),
        )
    requests = doc["requests"]
    peak = max((r["simulated_tokens"] for r in requests), default=0)
    summary = (
        f"{plural(len(requests), 'request')} · "
        f"{plural(len(doc['compactions']), 'simulated compaction')}"
        f" · {len(doc['recorded_compactions']):,} recorded · peak {peak:,} of a "
        f"{doc['window']:,}-token window (preset {doc['policy']['preset']}, tokenizer "
        f"{doc['tokenizer']})"
    )
    lines: list[RenderableType] = [table, Text(summary)]
    if doc.get("gap") is not None:
        lines.append(Text(doc["gap"]["sentence"]))
    lines.append(Text(doc["calibration"]["sentence"]))
    lines.append(Text(cost_sentence(doc["cost"], doc["cache"])))
    lines.append(Text(whatif_sentence(doc["what_if"])))
    lines.extend(Text(line) for line in event_lines(doc["session"]["events"]))
    lines.extend(Text(f"warning: {visible(w)}") for w in doc["session"]["warnings"])
    return Group(*lines)
