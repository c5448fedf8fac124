"""``ctxtui retention``: what each compaction summary of a session kept of what it replaced.

Every compaction the agent recorded is audited beside ctxtui's stand-in for the same segment,
then the stand-in a compaction would write now. This module only renders: a table, or the
``ctxtui.retention/1`` JSON document.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from ctxtui.commands.json_out import print_json
from ctxtui.commands.pipeline import build_policy, counting, load
from ctxtui.commands.report import print_table
from ctxtui.core.engine import Engine
from ctxtui.core.literal import visible
from ctxtui.core.policies.reasons import CompactReason
from ctxtui.core.session.import_notes import event_lines
from ctxtui.core.simulation.replay import shown_offset
from ctxtui.core.simulation.report import display_text
from ctxtui.core.simulation.retention_audits import preview_audit, recorded_audits
from ctxtui.core.summaries.retention import Audit
from ctxtui.core.summaries.segment_facts import KINDS
from ctxtui.options import EXIT_OK
from ctxtui.system.count_cache import default_cache

SCHEMA = "ctxtui.retention/1"
DROPPED_SHOWN = 5
"""Dropped facts listed per summary in the table (the JSON lists them all)."""


def audits_of(args: argparse.Namespace) -> tuple[dict[str, Any], list[Audit]]:
    """The session's header and its audits: recorded + stand-in pairs, then the preview."""
    history = load(args, full_history=True)
    policy = build_policy(args, history)
    engine = Engine(history, default_cache())
    with counting() as progress:
        counts = engine.counts(policy, on_progress=progress)
        assert counts is not None  # no stop check was given
        audits = list(recorded_audits(history, policy, counts, engine.tokenizer(policy)))
        shown = load(args) if history.meta.recorded_compactions else history
        offset = shown_offset(history, shown)
        if offset is not None:
            result = Engine(shown, default_cache()).compact(policy, CompactReason.PROACTIVE)
            preview = preview_audit(shown, result)
            if preview is not None:
                audits.append(_shifted(preview, offset))
    header = {
        "path": display_text(history.meta.source_path),
        "format": history.meta.format,
        "message_count": len(history.messages),
        "recorded_compactions": len(history.meta.recorded_compactions),
        "warnings": list(history.meta.warnings),
        "events": list(history.meta.events),
    }
    return {"session": header, "preset": policy.preset, "tokenizer": counts.tokenizer.used}, audits


def _shifted(a: Audit, offset: int) -> Audit:
    """``a`` with its message indices in the full history's numbering."""
    if not offset:
        return a
    seg = a.segment
    facts = tuple(
        replace(r, fact=replace(r.fact, message_index=r.fact.message_index + offset))
        for r in a.retained
    )
    moved = replace(seg, first=seg.first + offset, last=seg.last + offset)
    return replace(a, segment=moved, retained=facts)


def build_document(head: dict[str, Any], audits: Sequence[Audit]) -> dict[str, Any]:
    return {"schema": SCHEMA, **head, "compactions": [a.block() for a in audits]}


def run(args: argparse.Namespace) -> int:
    head, audits = audits_of(args)
    document = build_document(head, audits)
    if args.json:
        print_json(document)  # the stdlib's text, written by orjson
    else:
        print_table(render(document))
    return EXIT_OK


def _ratio(kept: int, total: int) -> str:
    return f"{kept}/{total} ({kept / total:.0%})" if total else "—"


def _label(c: dict[str, Any]) -> str:
    where = f"request {c['request'] + 1:,}" if c["request"] is not None else "now"
    return f"{c['source']} · {where}"


def render(doc: dict[str, Any]) -> RenderableType:
    """Per summary its size and headline figures, then kept/total per kind, then what it lost."""
    title = Text(f"retention · {visible(doc['session']['path'] or '(no file)')}")  # never markup
    table = Table(title=title, title_justify="left")
    for name in ("summary", "replaced", "tokens", "kept", "needed after", "dup."):
        table.add_column(name, justify="left" if name in ("summary", "replaced") else "right")
    kinds = Table(title=Text("kept / total per kind"), title_justify="left")
    kinds.add_column("kind")
    for c in doc["compactions"]:
        r = c["replaced"]
        kept = sum(v["kept"] for v in c["kinds"].values())
        total = sum(v["total"] for v in c["kinds"].values())
        needed = c["needed_after"]
        table.add_row(
            Text(_label(c)),
            f"#{r['from']:,}–#{r['to']:,}",
            f"{r['tokens']:,} → {c['summary_tokens']:,}",
            _ratio(kept, total),
            f"lost {needed['total'] - needed['kept']} of {needed['total']}",
            f"{c['duplicated_lines']:,}",
        )
        short = c["source"] if c["request"] is None else f"{c['source']} @{c['request'] + 1}"
        kinds.add_column(Text(short), justify="right")
    for kind in KINDS:
        kinds.add_row(kind, *(_ratio(**c["kinds"][kind]) for c in doc["compactions"]))
    parts: list[RenderableType] = [table]
    if not doc["compactions"]:
        parts.append(Text("no compaction to audit: nothing recorded, and nothing to replace now"))
    else:
        parts.append(kinds)
    for c in doc["compactions"]:
        if c["dropped"]:
            parts.append(Text(f"lost by {_label(c)}, most salient first:"))
            for d in c["dropped"][:DROPPED_SHOWN]:
                flag = " · needed after" if d["needed_after"] else ""
                parts.append(Text(f"  {d['kind']:<11} #{d['message_index']:<6,} {d['text']}{flag}"))
            if len(c["dropped"]) > DROPPED_SHOWN:
                parts.append(Text(f"  … {len(c['dropped']) - DROPPED_SHOWN:,} more (--json)"))
    parts.extend(Text(line) for line in event_lines(doc["session"]["events"]))
    parts.extend(Text(f"warning: {w}") for w in doc["session"]["warnings"])
    return Group(*parts)
