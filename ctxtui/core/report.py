"""The report: a plan as the ``ctxtui.report/1`` JSON document, and as a readable table.

The JSON shape is a public contract (issue #3 §5): scripts and CI read it, so every key is
always present and typed the same way, with ``null`` where a value does not apply. The table is
rendered with rich for people and is free to change.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, overload

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from ctxtui.core.models import Session
from ctxtui.core.plan import Plan

if TYPE_CHECKING:
    from ctxtui.core.compaction import CompactionResult

SCHEMA = "ctxtui.report/1"
_SURROGATE = re.compile("[\ud800-\udfff]")
FULL_TABLE_ROWS = 60  # longer sessions print the first and last rows around an ellipsis
EDGE_ROWS = 20
LABEL_WIDTH = 10  # "compaction", the longest label: every block's values line up


@overload
def display_text(text: str) -> str: ...
@overload
def display_text(text: None) -> None: ...
def display_text(text: str | None) -> str | None:
    """``text`` with lone surrogates as U+FFFD, so it can be printed and saved as UTF-8.

    A file name that is not valid UTF-8 reaches Python with surrogate escapes; printed as is it
    either crashes the output or writes bytes that make the JSON document invalid.
    """
    return None if text is None else _SURROGATE.sub("\ufffd", text)


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
            "path": display_text(session.meta.source_path),
            "format": session.meta.format,
            "message_count": len(session.messages),
            "warnings": [*session.meta.warnings, *plan.warnings],
        },
        "policy": _policy(plan),
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
        "reported": reported_usage(session),
    }


def tokenizer_note(plan: Plan, session: Session) -> str:
    """The plan's tokenizer note, plus a warning when an OpenAI encoding counts a Claude session."""
    note = plan.tokenizer.note
    model = session.meta.model or ""
    if plan.tokenizer.used.startswith("tiktoken:") and "claude" in model.lower():
        extra = f"{plan.tokenizer.used} is OpenAI's tokenizer, not Claude's: an approximation"
        note = f"{note}; {extra}" if note else extra
    return note


def reported_usage(session: Session) -> dict[str, Any] | None:
    """The API's own figures for the last request the transcript has usage for, or ``None``.

    ``request`` numbers the calls in this session from 0 (see ``core.replay``); the prompt
    includes the system prompt and tool definitions a transcript often lacks.
    """
    from ctxtui.core.replay import request_points

    points = request_points(session)
    for k in range(len(points) - 1, -1, -1):
        usage = session.messages[points[k]].usage
        if usage is not None and usage.prompt_total is not None:
            return {
                "prompt_tokens": usage.prompt_total,
                "output_tokens": usage.output,
                "request": k,
                "source": usage.source,
            }
    return None


# -- the table --------------------------------------------------------------------------------
#
# Laid out for an 80-column terminal: each block is a two-column grid (a short label, then the
# value), so a long warning or path wraps under its value instead of back to column 0.


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}" if n == 1 else f"{n:,} {word}s"


plural = _plural


def _grid() -> Table:
    grid = Table.grid(padding=(0, 1))
    grid.add_column(style="bold", no_wrap=True, min_width=LABEL_WIDTH)
    grid.add_column(overflow="fold")
    return grid


def _header(report: dict[str, Any]) -> Table:
    s, tok, policy = report["session"], report["tokenizer"], report["policy"]
    grid = _grid()
    grid.add_row("session", Text(display_text(s["path"] or "(no file)"), style="bold"))
    grid.add_row(
        "",
        f"{s['format']} · {_plural(s['message_count'], 'message')} · preset "
        f"{policy['preset']} · tokenizer {tok['used']}",
    )
    if tok["requested"] != tok["used"] or tok["note"]:
        grid.add_row(
            Text("tokenizer", style="yellow"),
            Text(
                f"{tok['requested']} → {tok['used']}: {tok['note']}"
                if tok["requested"] != tok["used"]
                else tok["note"],
                style="yellow",
            ),
        )
    for warning in s["warnings"]:
        grid.add_row(Text("warning", style="yellow"), Text(warning, style="yellow"))
    return grid


def _totals(report: dict[str, Any], messages: list[dict[str, Any]]) -> Table:
    t, tail = report["totals"], report["fresh_tail"]
    ratio = t["used_ratio"]
    grid = _grid()
    request = Text(f"{t['requested']:,} of {t['window']:,} tok ")
    request.append(f"({ratio:.1%})", style=f"bold {'red' if ratio > 1 else 'green'}")
    request.append(f" = prompt {t['tokens']:,} + output reserve {t['output_reserve']:,}")
    grid.add_row("request", request)
    grid.add_row("budget", f"{t['budget']:,} tok for the prompt (window − output reserve)")
    grid.add_row(
        "tail",
        f"from #{tail['start']:,} · {tail['tokens']:,} of {tail['budget']:,} tok · "
        f"{tail['reason'].replace('_', ' ')}",
    )
    grid.add_row("zones", _zones(messages))
    reported = report.get("reported")
    if reported is not None:
        grid.add_row(
            "reported",
            f"{reported['prompt_tokens']:,} prompt tok at request "
            f"{reported['request'] + 1:,} (the API's count, with the system prompt and tools "
            "the transcript may lack)",
        )
    return grid


def _row(table: Table, m: dict[str, Any]) -> None:
    flags = " ".join(f for f, on in (("pruned", m["pruned"]), ("truncated", m["truncated"])) if on)
    tools = ", ".join(m["tool_call_ids"]) or (m["tool_call_id"] or "")
    tokens = f"{m['tokens']:,}"
    if m["sent_tokens"] != m["tokens"]:
        tokens += f" → {m['sent_tokens']:,}"
    table.add_row(f"{m['index']:,}", m["role"], tokens, m["zone"], flags, Text(display_text(tools)))


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
        table.add_column(name, justify=justify, no_wrap=name != "tool calls")  # type: ignore[arg-type]
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


def _zones(messages: list[dict[str, Any]]) -> str:
    counts = {"dropped": [0, 0], "kept": [0, 0], "tail": [0, 0]}
    for m in messages:
        c = counts[m["zone"]]
        c[0] += 1
        c[1] += m["sent_tokens"]  # what the request carries, after pruning and truncation
    return " · ".join(f"{zone} {n:,} ({tok:,} tok)" for zone, (n, tok) in counts.items())


def _footer(report: dict[str, Any]) -> Table:
    prune, comp, over = report["prune"], report["compaction"], report["overflow"]
    grid = _grid()
    grid.add_row(
        "pruned",
        f"{_plural(len(prune['pruned']), 'tool output')} · {prune['tokens_freed']:,} tok freed",
    )
    if comp["needed"]:
        first, last = comp["replaced"] or (None, None)
        span = f"#{first:,}-#{last:,}" if first is not None else "nothing replaceable"
        text = f"needed ({comp['reason']}): replaces {span}"
        if comp["tokens_after"] != comp["tokens_before"]:
            text += f" · request {comp['tokens_before']:,} → {comp['tokens_after']:,} tok"
        grid.add_row("compaction", text)
    else:
        grid.add_row("compaction", "not needed")
    if over is not None:
        grid.add_row(
            Text("overflow", style="bold red"),
            Text(
                f"model {over['model']} · requested {over['requested_tokens']:,} > window "
                f"{over['context_window']:,} · {over['reason']}",
                style="bold red",
            ),
        )
    return grid


def render_report(report: dict[str, Any]) -> RenderableType:
    """The report for a terminal: header, totals, the message table, outcomes."""
    messages = report["messages"]
    return Group(
        _header(report),
        Text(),
        _totals(report, messages),
        Text(),
        _message_table(messages),
        Text(),
        _footer(report),
    )
