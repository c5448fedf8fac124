"""The report: a plan as the ``ctxtui.report/1`` JSON document, and as a readable table.

The JSON shape is a public contract (issue #3 §5): scripts and CI read it, so every key is
always present and typed the same way, with ``null`` where a value does not apply. The table is
rendered with rich for people and is free to change.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from ctxtui.core.models import Session
from ctxtui.core.plan import Plan

if TYPE_CHECKING:
    from ctxtui.core.compaction import CompactionResult

SCHEMA = "ctxtui.report/1"
FULL_TABLE_ROWS = 60  # longer sessions print the first and last rows around an ellipsis
EDGE_ROWS = 20


def _policy(plan: Plan) -> dict[str, Any]:
    return plan.policy.model_dump(mode="json")


def _messages(session: Session, plan: Plan) -> list[dict[str, Any]]:
    zone_of = plan.zone
    pruned = plan.pruned
    truncated = plan.truncated
    return [
        {
            "index": i,
            "role": m.role,
            "tokens": plan.message_tokens[i],
            "sent_tokens": plan.effective_tokens[i],
            "zone": zone_of(i).value,
            "pruned": i in pruned,
            "truncated": i in truncated,
            "tool_call_ids": [c.id for c in m.tool_calls],
            "tool_call_id": m.tool_call_id,
        }
        for i, m in enumerate(session.messages)
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
    }


def _overflow(plan: Plan, result: CompactionResult | None) -> dict[str, Any] | None:
    info = result.overflow if result is not None else plan.overflow
    if info is None:
        return None
    return {
        "model": info.model,
        "context_window": info.context_window,
        "requested_tokens": info.requested_tokens,
        "reason": info.reason,
    }


def build_report(
    session: Session, plan: Plan, compaction: CompactionResult | None
) -> dict[str, Any]:
    """The ``ctxtui.report/1`` document; ``compaction`` supplies the after-compaction figures.

    Without a compaction result, ``tokens_after`` equals ``tokens_before`` (nothing was done)
    and the overflow is the plan's own.
    """
    totals = plan.totals
    return {
        "schema": SCHEMA,
        "session": {
            "path": session.meta.source_path,
            "format": session.meta.format,
            "message_count": len(session.messages),
            "warnings": [*session.meta.warnings, *plan.warnings],
        },
        "policy": _policy(plan),
        "tokenizer": {
            "requested": plan.tokenizer.requested,
            "used": plan.tokenizer.used,
            "note": plan.tokenizer.note,
        },
        "totals": {
            "tokens": totals.tokens,
            "window": totals.window,
            "budget": totals.budget,
            "used_ratio": round(totals.used_ratio, 6),
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
        "compaction": _compaction(plan, compaction),
        "overflow": _overflow(plan, compaction),
    }


# -- the table --------------------------------------------------------------------------------


def _header(report: dict[str, Any]) -> Text:
    s, tok = report["session"], report["tokenizer"]
    text = Text()
    text.append(f"{s['path'] or '(no file)'}", style="bold")
    text.append(f"  format {s['format']} · {s['message_count']:,} messages")
    text.append(f" · preset {report['policy']['preset']} · tokenizer {tok['used']}")
    if tok["requested"] != tok["used"] or tok["note"]:
        text.append(f"\n  tokenizer {tok['requested']} → {tok['used']}: {tok['note']}", "yellow")
    for warning in s["warnings"]:
        text.append(f"\n  warning: {warning}", style="yellow")
    return text


def _totals(report: dict[str, Any]) -> Text:
    t, tail = report["totals"], report["fresh_tail"]
    ratio = t["used_ratio"]
    style = "red" if ratio > 1 else "green"
    text = Text()
    text.append(f"prompt {t['tokens']:,} tok · window {t['window']:,} · budget {t['budget']:,}")
    text.append(" · used ")
    text.append(f"{ratio:.1%}", style=f"bold {style}")
    text.append(
        f"\nfresh tail from #{tail['start']:,} · {tail['tokens']:,} / {tail['budget']:,} tok"
        f" · {tail['reason'].replace('_', ' ')}"
    )
    return text


def _row(table: Table, m: dict[str, Any]) -> None:
    flags = " ".join(f for f, on in (("pruned", m["pruned"]), ("truncated", m["truncated"])) if on)
    tools = ", ".join(m["tool_call_ids"]) or (m["tool_call_id"] or "")
    tokens = f"{m['tokens']:,}"
    if m["sent_tokens"] != m["tokens"]:
        tokens += f" → {m['sent_tokens']:,}"
    table.add_row(f"{m['index']:,}", m["role"], tokens, m["zone"], flags, tools)


def _message_table(messages: list[dict[str, Any]]) -> Table:
    table = Table(box=None, pad_edge=False, header_style="bold")
    for name, justify in (
        ("#", "right"),
        ("role", "left"),
        ("tokens", "right"),
        ("zone", "left"),
        ("flags", "left"),
        ("tool calls", "left"),
    ):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    if len(messages) <= FULL_TABLE_ROWS:
        for m in messages:
            _row(table, m)
        return table
    for m in messages[:EDGE_ROWS]:
        _row(table, m)
    hidden = len(messages) - 2 * EDGE_ROWS
    table.add_row("…", f"{hidden:,} more", "", "", "", "")
    for m in messages[-EDGE_ROWS:]:
        _row(table, m)
    return table


def _zones(messages: list[dict[str, Any]]) -> Text:
    counts = {"dropped": [0, 0], "kept": [0, 0], "tail": [0, 0]}
    for m in messages:
        c = counts[m["zone"]]
        c[0] += 1
        c[1] += m["sent_tokens"]  # what the request carries, after pruning and truncation
    parts = [f"{zone} {n:,} msgs / {tok:,} tok" for zone, (n, tok) in counts.items()]
    return Text("zones: " + " · ".join(parts))


def _footer(report: dict[str, Any]) -> Text:
    prune, comp, over = report["prune"], report["compaction"], report["overflow"]
    text = Text()
    text.append(
        f"pruned {len(prune['pruned']):,} tool outputs · {prune['tokens_freed']:,} tok freed"
    )
    if comp["needed"]:
        first, last = comp["replaced"] or (None, None)
        span = f"#{first:,}-#{last:,}" if first is not None else "nothing replaceable"
        text.append(f"\ncompaction needed ({comp['reason']}): replaces {span}")
        if comp["tokens_after"] != comp["tokens_before"]:
            text.append(f" · {comp['tokens_before']:,} → {comp['tokens_after']:,} tok")
    else:
        text.append("\ncompaction not needed")
    if over is not None:
        text.append(
            f"\noverflow: model {over['model']} · requested {over['requested_tokens']:,} "
            f"> window {over['context_window']:,} · {over['reason']}",
            style="bold red",
        )
    return text


def render_report(report: dict[str, Any]) -> RenderableType:
    """The report for a terminal: header, totals, zones, the message table, outcomes."""
    messages = report["messages"]
    return Group(
        _header(report),
        Text(),
        _totals(report),
        _zones(messages),
        Text(),
        _message_table(messages),
        Text(),
        _footer(report),
    )
