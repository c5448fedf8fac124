"""The fleet: one row per session, and the figures over many rows (``ctxtui.fleet/1``).

Pure data: a row is a plain ``dict`` (it crosses process and cluster boundaries and lands in
JSON and SQLite as it is). Rows are built by ``ctxtui.fleet.job``; this module only adds them
up, so the totals and every group (agent, model, project, day) are the sum of their rows,
whatever computed them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

SCHEMA = "ctxtui.fleet/1"

ROW_FIELDS = (
    "path",
    "agent",
    "project",
    "model",
    "started",
    "messages",
    "requests",
    "compactions_recorded",
    "compactions_simulated",
    "observed_low",
    "observed_high",
    "peak_reported",
    "peak_simulated",
    "top_tool",
    "cost_usd",
    "cache_hit_ratio",
    "prompt_tokens",
    "cache_read_tokens",
    "error",
    "parent",
)
"""The keys of every ``sessions[]`` row, in the order the document writes them.
``observed_low`` / ``observed_high``: the band of the agent's automatic compactions' prompt
sizes (``core.tuning.observed``)."""

SUMMED = (
    "messages",
    "requests",
    "compactions_recorded",
    "compactions_simulated",
    "cost_usd",
    "prompt_tokens",
    "cache_read_tokens",
)
MAXED = ("peak_reported", "peak_simulated")
UNKNOWN = "(unknown)"
"""The group of rows that do not say (no model recorded, no start time)."""

Row = dict[str, Any]


def empty_row(path: str, **known: Any) -> Row:
    """A row with every field, ``None`` where nothing is known yet."""
    row: Row = dict.fromkeys(ROW_FIELDS)
    row["path"] = path
    row.update({k: v for k, v in known.items() if k in row})
    return row


def _sum(values: Iterable[Any]) -> Any:
    present = [v for v in values if v is not None]
    if not present:
        return None
    total = sum(present)
    return round(total, 6) if isinstance(total, float) else total


def _max(values: Iterable[Any]) -> Any:
    return max((v for v in values if v is not None), default=None)


def totals(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Counts summed, peaks maxed; ``None`` where no row knows the figure.

    ``cache_hit_ratio`` is the rows' cache reads over their prompt tokens, weighted by tokens
    (a ratio does not add up: a mean would let a ten-token session count as a long one).
    """
    out: dict[str, Any] = {"sessions": len(rows), "errors": sum(1 for r in rows if r["error"])}
    for name in SUMMED:
        out[name] = _sum(r[name] for r in rows)
    for name in MAXED:
        out[name] = _max(r[name] for r in rows)
    out["cache_hit_ratio"] = hit_ratio(rows)
    return out


def hit_ratio(rows: Iterable[Mapping[str, Any]]) -> float | None:
    """Σ cache reads / Σ prompt tokens over the rows that know both; ``None`` without any."""
    read = prompt = 0
    for r in rows:
        if r["prompt_tokens"] and r["cache_read_tokens"] is not None:
            prompt += r["prompt_tokens"]
            read += r["cache_read_tokens"]
    return round(read / prompt, 6) if prompt else None


def day_of(row: Mapping[str, Any]) -> str:
    """The UTC day a session started (``started`` is ISO 8601), or ``UNKNOWN``."""
    started = row.get("started")
    return started[:10] if isinstance(started, str) and len(started) >= 10 else UNKNOWN


def grouped(
    rows: Sequence[Mapping[str, Any]], key: Callable[[Mapping[str, Any]], Any]
) -> dict[str, dict[str, Any]]:
    """``totals`` per group, the groups in sorted order (``UNKNOWN`` last)."""
    groups: dict[str, list[Mapping[str, Any]]] = {}
    for row in rows:
        name = key(row)
        groups.setdefault(name if isinstance(name, str) and name else UNKNOWN, []).append(row)
    order = sorted(groups, key=lambda name: (name == UNKNOWN, name))
    return {name: totals(groups[name]) for name in order}


def preset_totals(
    name: str, simulated: Sequence[Mapping[str, Any]], rows: Sequence[Mapping[str, Any]]
) -> dict[str, Any]:
    """One preset across the fleet: its compactions summed, its peak maxed.

    ``simulated`` holds the preset's figures per session (``compactions``, ``peak``,
    ``cost_usd``: what the simulated run would have cost, ``None`` while nothing prices it).
    """
    del rows
    return {
        "preset": name,
        "compactions": _sum(s.get("compactions") for s in simulated) or 0,
        "peak": _max(s.get("peak") for s in simulated),
        "cost_usd": _sum(s.get("cost_usd") for s in simulated),
    }


def build_document(
    rows: Sequence[Mapping[str, Any]],
    *,
    preset: str | None,
    presets: Sequence[Mapping[str, Any]] = (),
    complete: bool = True,
) -> dict[str, Any]:
    """The ``ctxtui.fleet/1`` document: the rows as given, their totals and groups.

    ``preset`` is the policy the simulated columns were replayed under (``None`` without a
    replay); ``complete`` is false when the run was interrupted and holds only what finished.
    """
    sessions = [{name: row[name] for name in ROW_FIELDS} for row in rows]
    doc: dict[str, Any] = {
        "schema": SCHEMA,
        "preset": preset,
        "complete": complete,
        "sessions": sessions,
        "totals": totals(sessions),
        "by_agent": grouped(sessions, lambda r: r["agent"]),
        "by_model": grouped(sessions, lambda r: r["model"]),
        "by_project": grouped(sessions, lambda r: r["project"]),
        "by_day": grouped(sessions, day_of),
    }
    if presets:
        doc["presets"] = list(presets)
    return doc
