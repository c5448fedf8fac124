"""``ctxtui retention``: what each compaction summary of a session kept of what it replaced.

Every compaction the agent recorded is audited beside ctxtui's stand-in for the same segment,
then the stand-in a compaction would write now. This module only renders: a table, or the
``ctxtui.retention/2`` JSON document.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from rich import box
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from ctxtui.commands.json_out import print_json
from ctxtui.commands.pipeline import build_policy, counting, load_views
from ctxtui.commands.report import print_table
from ctxtui.core.engine import Engine
from ctxtui.core.literal import name_text, visible
from ctxtui.core.policies.reasons import CompactReason
from ctxtui.core.session.import_notes import event_lines
from ctxtui.core.simulation.replay import shown_offset
from ctxtui.core.simulation.retention_audits import preview_audit, recorded_audits
from ctxtui.core.summaries.retention import Audit
from ctxtui.core.summaries.segment_facts import KINDS, keep_facts, remember_facts
from ctxtui.options import EXIT_OK
from ctxtui.system.count_cache import default_cache
from ctxtui.system.fact_cache import default_fact_cache

SCHEMA = "ctxtui.retention/2"
DROPPED_SHOWN = 5
"""Dropped facts listed per summary in the table."""
DROPPED_PER_KIND = 25
"""Dropped facts listed per summary and kind in the JSON, the most salient first; the rest
are counted (``dropped_unlisted``), so a summary of thousands of facts stays a few KB."""


def audits_of(args: argparse.Namespace) -> tuple[dict[str, Any], list[Audit]]:
    """The session's header and its audits: recorded + stand-in pairs, then the preview."""
    shown, history = load_views(args)
    policy = build_policy(args, history)
    engine = Engine(history, default_cache())
    with counting() as progress:
        counts = engine.counts(policy, on_progress=progress)
        assert counts is not None  # no stop check was given
        facts = default_fact_cache()
        remember_facts(history, facts)
        audits = list(recorded_audits(history, policy, counts, engine.tokenizer(policy)))
        keep_facts(history, facts)
        offset = shown_offset(history, shown)
        if offset is not None:
            result = Engine(shown, default_cache()).compact(policy, CompactReason.PROACTIVE)
            preview = preview_audit(shown, result)
            if preview is not None:
                audits.append(_shifted(preview, offset))
    header = {
        "path": name_text(history.meta.source_path),
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
    blocks = [a.block(per_kind=DROPPED_PER_KIND) for a in audits]
    return {"schema": SCHEMA, **head, "compactions": blocks}


def run(args: argparse.Namespace) -> int:
    head, audits = audits_of(args)
    document = build_document(head, audits)
    if args.json:
        print_json(document)  # the stdlib's text, written by orjson
    else:
        print_table(render(document))
    return EXIT_OK


def _ratio(kept: int, total: int) -> str:
    return f"{kept:,}/{total:,}" if total else "—"


def _label(c: dict[str, Any]) -> str:
    where = f"request {c['request'] + 1:,}" if c["request"] is not None else "now"
    return f"{c['source']} · {where}"


def _group(c: dict[str, Any]) -> str:
    """The column a summary's kinds are summed in: its source, the preview apart."""
    return c["source"] if c["request"] is not None else f"{c['source']} now"


LEGEND = (
    "request   the request a compaction came before; now: one ctxtui would make now",
    "summary   recorded: the agent's own; stand-in: ctxtui's, of the same messages",
    "replaced  the messages the summary stands for, first–last",
    "tokens    the replaced messages' tokens → the summary's",
    "kept      facts the summary kept / facts in the messages it replaced",
    "needed    facts used again after the compaction: lost by the summary / all",
    "dup       summary lines repeating an earlier line or the context kept with it",
    "×N        the summaries a column sums; —: no fact of that kind",
)
"""Every column heading of the tables explained, printed under them (docs/retention.md)."""


def _table() -> Table:
    """A table ruled under its headings only, two spaces between columns: the widest figures
    of a long session (request 35,890, #70,002–72,263, 123,456→12,345, 1,232/9,872 facts)
    fit 80 columns uncut."""
    return Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, collapse_padding=True)


def _summaries(doc: dict[str, Any]) -> Table:
    """One row per summary; narrow cells, so that 80 columns hold every figure uncut."""
    table = _table()
    for name in ("request", "summary", "replaced", "tokens", "kept", "needed", "dup"):
        right = name not in ("summary", "replaced")
        table.add_column(name, justify="right" if right else "left", no_wrap=True)
    for c in doc["compactions"]:
        r = c["replaced"]
        kept = sum(v["kept"] for v in c["kinds"].values())
        total = sum(v["total"] for v in c["kinds"].values())
        needed = c["needed_after"]
        table.add_row(
            f"{c['request'] + 1:,}" if c["request"] is not None else "now",
            Text(c["source"]),
            f"#{r['from']:,}–{r['to']:,}",
            f"{r['tokens']:,}→{c['summary_tokens']:,}",
            _ratio(kept, total),
            f"{needed['total'] - needed['kept']:,}/{needed['total']:,}",
            f"{c['duplicated_lines']:,}",
        )
    return table


def _kinds(doc: dict[str, Any]) -> Table:
    """Kinds as rows, one column per source: kept / total summed over its summaries."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for c in doc["compactions"]:
        groups.setdefault(_group(c), []).append(c)
    table = _table()
    table.add_column("kind", no_wrap=True)
    for name, members in groups.items():
        many = f" ×{len(members):,}" if len(members) > 1 else ""
        table.add_column(Text(f"{name}{many}"), justify="right", no_wrap=True)
    for kind in KINDS:
        cells = [
            _ratio(sum(c["kinds"][kind]["kept"] for c in members),
                   sum(c["kinds"][kind]["total"] for c in members))
            for members in groups.values()
        ]  # fmt: skip
        table.add_row(kind, *cells)
    return table


def render(doc: dict[str, Any]) -> RenderableType:
    """Per summary its size and headline figures, then kept/total per kind and source, what
    each heading means, then what each summary lost."""
    title = Text(f"retention · {visible(doc['session']['path'] or '(no file)')}")  # never markup
    parts: list[RenderableType] = [title, _summaries(doc)]
    if not doc["compactions"]:
        parts.append(Text("no compaction to audit: nothing recorded, and nothing to replace now"))
    else:
        parts += [Text("\nkept / total per kind, summed per source"), _kinds(doc), Text("")]
        parts.extend(Text(line) for line in LEGEND)
    for c in doc["compactions"]:
        if c["dropped"]:
            parts.append(Text(f"\nlost by {_label(c)}, most salient first:"))
            for d in c["dropped"][:DROPPED_SHOWN]:
                flag = " · needed after" if d["needed_after"] else ""
                parts.append(Text(f"  {d['kind']:<11} #{d['message_index']:<6,} {d['text']}{flag}"))
            more = len(c["dropped"]) + c.get("dropped_unlisted", 0) - DROPPED_SHOWN
            if more > 0:
                parts.append(Text(f"  … {more:,} more (--json)"))
    parts.extend(Text(line) for line in event_lines(doc["session"]["events"]))
    parts.extend(Text(f"warning: {visible(w)}") for w in doc["session"]["warnings"])
    return Group(*parts)
