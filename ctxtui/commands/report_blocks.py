"""Blocks of the report's table beyond the plan itself: tool costs and the estimator's drift."""

from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from ctxtui.commands.render_report import label_grid
from ctxtui.core.literal import visible

MAX_TOOLS = 12
"""Rows of the table; the rest are folded into one line (the JSON lists every tool)."""

_COLUMNS = (
    ("tool", "left"),
    ("calls", "right"),
    ("call tok", "right"),
    ("output tok", "right"),
    ("pruned", "right"),
    ("truncated", "right"),
    ("sent", "right"),
    ("of prompt", "right"),
)
"""Headings. The last is the tool's share of the *prompt* (``prompt`` on the request line),
not of the request, which adds the output reserve: "share" alone read as either."""


def _row(t: dict[str, Any]) -> tuple[str | Text, ...]:
    return (
        Text(visible(t["name"])),
        f"{t['calls']:,}",
        f"{t['call_tokens']:,}",
        f"{t['output_tokens']:,}",
        f"{t['pruned_tokens']:,}",
        f"{t['truncated_tokens']:,}",
        f"{t['sent_tokens']:,}",
        f"{t['share']:.1%}",
    )


def render_tools(report: dict[str, Any]) -> RenderableType:
    """The tools block: one row per tool, then the tokens pruning and truncation freed."""
    tools = report["tools"]
    if not tools:
        return Text("tools      no tool calls or outputs")
    table = Table(box=None, pad_edge=False, header_style="bold")
    for name, justify in _COLUMNS:
        table.add_column(name, justify=justify, no_wrap=name != "tool")  # type: ignore[arg-type]
    for t in tools[:MAX_TOOLS]:
        table.add_row(*_row(t))
    rest = tools[MAX_TOOLS:]
    if rest:
        sent = sum(t["sent_tokens"] for t in rest)
        table.add_row(f"… {len(rest):,} more", "", "", "", "", "", f"{sent:,}", "")
    pruned = sum(t["pruned_tokens"] for t in tools)
    truncated = sum(t["truncated_tokens"] for t in tools)
    freed = label_grid()
    freed.add_row("freed", f"by pruning {pruned:,} tok · by truncation {truncated:,} tok")
    return Group(table, freed)


def render_estimate(report: dict[str, Any]) -> RenderableType | None:
    """The estimator's drift against the exact count, when it was measured and is worth a word."""
    estimate = report.get("estimate")
    if not estimate or not estimate["differs"]:
        return None
    grid = label_grid("bold yellow", "yellow")
    grid.add_row("estimate", estimate["sentence"])
    return grid


def tuning_lines(report: dict[str, Any]) -> list[str]:
    """The configured values, the observed band and whether they agree, a line each."""
    from ctxtui.core.tuning.document import tuning_words

    if "observed" not in report:
        return []
    return tuning_words({"configured": report.get("configured", []), **report})
