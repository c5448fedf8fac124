"""What the fleet view's table and summary say, as plain data (no terminal needed to test).

A column is a heading, how a row's value is shown, and how it sorts: numbers as numbers,
unknown values (``None``) after every known one whichever way the column is sorted.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any

from ctxtui.core.fleet import totals
from ctxtui.core.literal import visible
from ctxtui.core.wording import counted, plural


def _text(value: Any) -> str:
    return visible(str(value)) if value is not None else "-"


def _number(value: Any) -> str:
    return f"{value:,}" if value is not None else "-"


def _dollars(value: Any) -> str:
    return f"{value:,.2f}" if value is not None else "-"


def _started(value: Any) -> str:
    return str(value)[:16].replace("T", " ") if value else "-"


def _session(row: Mapping[str, Any]) -> str:
    """The file's name (not its path: the table is narrow), or why it cannot be read."""
    if row["error"]:
        return _text(f"error: {row['error']}")
    return _text(PurePath(str(row["path"]).partition("#")[0]).name + _id(row["path"]))


def _id(path: str) -> str:
    _, sep, session_id = path.rpartition("#")
    return f"#{session_id}" if sep and "/" not in session_id else ""


@dataclass(frozen=True, slots=True)
class Column:
    """A column: its heading on up to ``HEADING_LINES`` lines (what a figure is, then
    whether it is recorded or simulated), how a value shows, and how it sorts."""

    key: str
    heading: str
    show: Callable[[Any], str]
    numeric: bool = False

    @property
    def heading_width(self) -> int:
        return max(len(line) for line in self.heading.split("\n"))


HEADING_LINES = 2


COLUMNS: tuple[Column, ...] = (
    Column("agent", "agent", _text),
    Column("started", "started", _started),
    Column("model", "model", _text),
    Column("messages", "msgs", _number, numeric=True),
    Column("requests", "reqs", _number, numeric=True),
    Column("compactions_recorded", "comp\nrec", _number, numeric=True),
    Column("compactions_simulated", "comp\nsim", _number, numeric=True),
    Column("peak_reported", "peak\nrep", _number, numeric=True),
    Column("peak_simulated", "peak\nsim", _number, numeric=True),
    Column("top_tool", "top tool", _text),
    Column("cost_usd", "cost\nrec $", _dollars, numeric=True),
    Column("path", "session", _text),
)
BY_KEY = {c.key: c for c in COLUMNS}
FLOORS = {"agent": 8, "started": 16, "model": 10, "top_tool": 8, "path": 12}
"""Cells a text column keeps before any figure is cut; numbers are never cut first."""
LEFT_OUT_FIRST = (
    "top_tool",
    "model",
    "peak_reported",
    "started",
    "requests",
    "compactions_recorded",
)
"""The columns a narrow table leaves out, in this order, before it cuts the rest to floors:
the recorded cost stays (at 80 columns it was the second to go)."""


def fitting_columns(natural: Mapping[str, int], room: int, padding: int) -> list[Column]:
    """The columns that fit ``room`` cells at their floors (each with ``padding`` cells)."""
    shown = list(COLUMNS)

    def need() -> int:
        return sum(min(natural[c.key], FLOORS.get(c.key, natural[c.key])) + padding for c in shown)

    for key in LEFT_OUT_FIRST:
        if need() <= room:
            break
        shown.remove(BY_KEY[key])
    return shown


def cells(row: Mapping[str, Any]) -> tuple[str, ...]:
    """The row's cells under ``COLUMNS``; a sub-agent's agent cell says whose it is."""
    out = []
    for column in COLUMNS:
        if column.key == "path":
            out.append(_session(row))
        elif column.key == "agent" and row.get("parent"):
            out.append("└ " + _text(row["agent"]))
        else:
            out.append(column.show(row[column.key]))
    return tuple(out)


def ordered(rows: Mapping[int, Mapping[str, Any]], column: str, reverse: bool) -> list[int]:
    """The rows' positions sorted by ``column``; unknown values last, in either direction."""
    numeric = BY_KEY[column].numeric
    known = [i for i, row in rows.items() if row[column] is not None]
    unknown = sorted(i for i, row in rows.items() if row[column] is None)

    def key(i: int) -> Any:
        value = rows[i][column]
        return value if numeric else str(value).casefold()

    return sorted(known, key=key, reverse=reverse) + unknown


def summary(rows: Sequence[Mapping[str, Any]], preset: str) -> str:
    """The aggregates above the table, in one line: counts summed, peaks maxed."""
    t = totals(rows)
    agents = sorted({r["agent"] for r in rows if r["agent"]})
    parts = [
        f"{plural(t['sessions'], 'session')} ({', '.join(agents) or 'none'})",
        counted(t["messages"], "message"),
        counted(t["requests"], "request"),
        f"compactions {_number(t['compactions_recorded'])} recorded · "
        f"{_number(t['compactions_simulated'])} simulated under {preset}",
        f"peak {_number(t['peak_reported'])} reported · {_number(t['peak_simulated'])} simulated",
        f"recorded ${_dollars(t['cost_usd'])}",
    ]
    if t["errors"]:
        parts.append(f"{t['errors']:,} unreadable")
    return " · ".join(parts)
