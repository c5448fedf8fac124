"""``ctxtui report`` as a table: the ``ctxtui.report/1`` document rendered with rich.

For people, so free to change, unlike the document. Each block is a two-column grid (label,
value), so a long warning or path wraps under its value on an 80-column terminal.
"""

from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from ctxtui.core.literal import visible
from ctxtui.core.planning.overflow import overflow_words
from ctxtui.core.planning.plan import TailReason
from ctxtui.core.session.import_notes import event_lines
from ctxtui.core.wording import plural

FULL_TABLE_ROWS = 60  # longer sessions print the first and last rows around an ellipsis
EDGE_ROWS = 20
LABEL_WIDTH = 10  # "compaction", the longest label: every block's values line up


def label_grid(label_style: str = "bold", value_style: str = "") -> Table:
    """A block of the report: a short label, then its value, folded under itself."""
    grid = Table.grid(padding=(0, 1))
    grid.add_column(style=label_style, no_wrap=True, min_width=LABEL_WIDTH)
    grid.add_column(overflow="fold", style=value_style)
    return grid


def _header(report: dict[str, Any]) -> Table:
    s, tok, policy = report["session"], report["tokenizer"], report["policy"]
    grid = label_grid()
    grid.add_row("session", Text(visible(s["path"] or "(no file)"), style="bold"))
    grid.add_row(
        "",
        f"{s['format']} · {plural(s['message_count'], 'message')} · preset "
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
    for event in event_lines(s["events"]):
        # "recorded" keeps the label column as narrow as "warning": the path stays on its line
        words = event.removeprefix("recorded compaction: ").removeprefix("recorded ")
        grid.add_row(Text("recorded"), Text(words))
    for warning in s["warnings"]:
        grid.add_row(Text("warning", style="yellow"), Text(visible(warning), style="yellow"))
    return grid


def _totals(report: dict[str, Any], messages: list[dict[str, Any]]) -> Table:
    t, tail = report["totals"], report["fresh_tail"]
    ratio = t["used_ratio"]
    grid = label_grid()
    # the headline is the prompt sent, as in the gauge; the request adds the output reserve
    grid.add_row("prompt", Text(f"{t['tokens']:,} tok sent", style="bold"))
    request = Text(f"{t['requested']:,} of {t['window']:,} tok ")
    request.append(f"({ratio:.1%})", style=f"bold {'red' if ratio > 1 else 'green'}")
    request.append(f" = prompt {t['tokens']:,} + output reserve {t['output_reserve']:,}")
    grid.add_row("request", request)
    grid.add_row("budget", f"{t['budget']:,} tok for the prompt (window − output reserve)")
    grid.add_row(
        "tail",
        f"from #{tail['start']:,} · {tail['tokens']:,} of {tail['budget']:,} tok · "
        f"{TailReason(tail['reason']).words}",
    )
    grid.add_row("zones", _zones(messages))
    gap = report.get("gap")
    if gap is not None:  # the same words as the gauge, replay and the timeline
        grid.add_row("reported", Text(gap["sentence"]))
    return grid


def _row(table: Table, m: dict[str, Any]) -> None:
    flags = " ".join(f for f, on in (("pruned", m["pruned"]), ("truncated", m["truncated"])) if on)
    tools = ", ".join(m["tool_names"])  # the tools by name, as the HTML page gives them
    tokens = f"{m['tokens']:,}"
    if m["sent_tokens"] != m["tokens"]:
        tokens += f" → {m['sent_tokens']:,}"
    table.add_row(f"{m['index']:,}", m["role"], tokens, m["zone"], flags, Text(visible(tools)))


def _message_table(messages: list[dict[str, Any]]) -> Table:
    table = Table(box=None, pad_edge=False, header_style="bold")
    for name, justify in (
        ("#", "right"),
        ("role", "left"),
        ("tokens", "right"),
        ("zone", "left"),
        ("flags", "left"),
        ("tools", "left"),
    ):
        table.add_column(name, justify=justify, no_wrap=name != "tools")  # type: ignore[arg-type]
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
    grid = label_grid()
    grid.add_row(
        "pruned",
        f"{plural(len(prune['pruned']), 'tool output')} · {prune['tokens_freed']:,} tok freed",
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
                f"model {visible(over['model'])} · requested {over['requested_tokens']:,} > window "
                f"{over['context_window']:,} · {overflow_words(over['reason'])}",
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
