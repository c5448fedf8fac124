"""The fleet: one row per session, and the figures over many rows (``ctxtui.fleet/1``).

Pure data: a row is a plain ``dict`` (it crosses process and cluster boundaries and lands in
JSON and SQLite as it is). Rows are built by ``ctxtui.fleet.job``; this module adds them up,
so the totals and every group (agent, model, project) are the sum of their rows, whatever
computed them. Periods (day, week, month, ccusage's 5-hour blocks) are the sum of the
requests sent in them, as the usage tools count: a row carries its requests' times and
figures (``ACTIVITY``), which the document does not list.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import UTC, date, datetime, timedelta
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ctxtui.core.pricing.cost import SessionCost
    from ctxtui.core.session.models import Session

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
"""The keys of every ``sessions[]`` row, in the order the document writes them."""

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

ACTIVITY = "activity"
"""A row's requests, for the periods: ``{"requests": [[time, cost_usd, prompt, cache_read],
...], "compacted": [time, ...]}``, times in seconds since the epoch (``None`` unknown)."""
PERIODS = ("day", "week", "month", "block")
"""What ``--by`` groups the requests by: the UTC day, the week (from its Monday), the month,
or ccusage's 5-hour billing blocks."""
BLOCK = timedelta(hours=5)
"""ccusage's block: it starts at the hour of its first request (floored, UTC) and holds every
request until one comes more than 5 hours after that start or after the previous request."""


def conversation_messages(history: Session) -> int:
    """Every message of the file that is conversation, each once: ``history`` read with its
    full history (what later compactions replaced included), plus a system prompt the file
    stores. A compaction's summary is one message; the messages an agent re-sent with it
    (Codex's ``replacement_history``: the summary comes last) repeat earlier ones and are
    not counted again."""
    messages = history.messages
    starts = [rc.message_index for rc in history.meta.recorded_compactions]
    repeated = 0
    for k, start in enumerate(starts):
        stop = starts[k + 1] if k + 1 < len(starts) else len(messages)
        summary = next((i for i in range(start, stop) if messages[i].is_summary), None)
        if summary is not None:
            repeated += summary - start
    stored_prompt = 1 if history.system_prompt else 0
    return len(messages) - repeated + stored_prompt


def activity(history: Session, cost: SessionCost) -> dict[str, Any]:
    """A row's ``ACTIVITY``: each recorded request's time, dollars and prompt tokens, and the
    time of each compaction the agent recorded (its summary's, or the next request's)."""
    requests = []
    for r in cost.requests:
        usage = r.usage
        requests.append(
            [
                _epoch(r.sent_at),
                round(float(r.cost), 9) if r.cost is not None else None,
                usage.prompt if usage is not None else None,
                usage.cache_read if usage is not None else None,
            ]
        )
    compacted = []
    for rc in history.meta.recorded_compactions:
        after = history.messages[rc.message_index :]
        compacted.append(_epoch(next((m.created_at for m in after if m.created_at), None)))
    return {"requests": requests, "compacted": compacted}


def _epoch(when: datetime | None) -> float | None:
    if when is None:
        return None
    if when.tzinfo is None:  # a naive time is taken as UTC, as the day of ``started`` is
        when = when.replace(tzinfo=UTC)
    return when.timestamp()


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


PERIOD_SUMMED = ("requests", "cost_usd", "prompt_tokens", "cache_read_tokens")


def _label(when: float, by: str) -> str:
    day = datetime.fromtimestamp(when, UTC).date()
    if by == "week":
        return (day - timedelta(days=day.weekday())).isoformat()
    if by == "month":
        return day.isoformat()[:7]
    return day.isoformat()


def _in_range(when: float | None, since: date | None, until: date | None) -> bool:
    if since is None and until is None:
        return True
    if when is None:
        return False
    day = datetime.fromtimestamp(when, UTC).date()
    return (since is None or day >= since) and (until is None or day <= until)


def in_range(row: Mapping[str, Any], since: date | None, until: date | None) -> bool:
    """Whether a row sent a request between ``since`` and ``until`` (UTC days, inclusive);
    a row with no timed request, whether it started then."""
    if since is None and until is None:
        return True
    times = [r[0] for r in (row.get(ACTIVITY) or {}).get("requests", ()) if r[0] is not None]
    if times:
        return any(_in_range(t, since, until) for t in times)
    started = row.get("started")
    if not isinstance(started, str):
        return False
    try:
        when = datetime.fromisoformat(started)
    except ValueError:
        return False
    return _in_range(_epoch(when), since, until)


def _blocks(times: Sequence[float]) -> list[float]:
    """Each of the sorted ``times``' block start (ccusage's ``BLOCK`` rule)."""
    out: list[float] = []
    start = last = None
    span = BLOCK.total_seconds()
    for t in times:
        if start is None or last is None or t - start > span or t - last > span:
            start = t - t % 3600  # floored to the hour
        out.append(start)
        last = t
    return out


def periods(
    rows: Sequence[Mapping[str, Any]],
    by: str,
    since: date | None = None,
    until: date | None = None,
) -> dict[str, dict[str, Any]]:
    """The requests of ``rows`` per period (``PERIODS``), sorted, each with the figures of
    ``totals`` that requests add up to: sessions (that sent one then), requests, recorded
    cost, prompt and cache-read tokens, cache hit ratio, the largest reported prompt and the
    agent's compactions. Requests with no time are ``UNKNOWN``'s (never a block's)."""
    timed, untimed, marks = _requests_in(rows, since, until)
    if by == "block":
        starts = _blocks([t for t, _, _ in timed])
        labels = [datetime.fromtimestamp(s, UTC).isoformat() for s in starts]
    else:
        labels = [_label(t, by) for t, _, _ in timed]
    groups: dict[str, list[tuple[int, list[Any]]]] = {}
    for label, (_, n, req) in zip(labels, timed, strict=True):
        groups.setdefault(label, []).append((n, req))
    if untimed and by != "block":
        groups[UNKNOWN] = untimed
    out = {label: _period(groups[label]) for label in groups}
    for when in marks:
        mark = _mark_label(when, by, out)
        if mark is not None:
            out[mark]["compactions_recorded"] += 1
    if by == "block":
        for label, group in out.items():
            start = datetime.fromisoformat(label)
            group["start"], group["end"] = label, (start + BLOCK).isoformat()
    return out


def _requests_in(
    rows: Sequence[Mapping[str, Any]], since: date | None, until: date | None
) -> tuple[list[tuple[float, int, list[Any]]], list[tuple[int, list[Any]]], list[float | None]]:
    """The rows' requests in the range, timed (sorted by time) and untimed (only without a
    range), each with its row's position; and the times of their recorded compactions."""
    timed: list[tuple[float, int, list[Any]]] = []
    untimed: list[tuple[int, list[Any]]] = []
    marks: list[float | None] = []
    whole = since is None and until is None
    for n, row in enumerate(rows):
        act = row.get(ACTIVITY) or {}
        for req in act.get("requests", ()):
            if req[0] is None:
                if whole:
                    untimed.append((n, req))
            elif _in_range(req[0], since, until):
                timed.append((req[0], n, req))
        marks += [t for t in act.get("compacted", ()) if _in_range(t, since, until)]
    timed.sort(key=lambda item: item[0])
    return timed, untimed, marks


def _mark_label(when: float | None, by: str, out: Mapping[str, Any]) -> str | None:
    """The period a compaction at ``when`` falls in (a block: the last that began by then)."""
    if when is None:
        return UNKNOWN if UNKNOWN in out else None
    if by != "block":
        label = _label(when, by)
        return label if label in out else None
    began = [label for label in out if datetime.fromisoformat(label).timestamp() <= when]
    return began[-1] if began else None


def _period(requests: Sequence[tuple[int, list[Any]]]) -> dict[str, Any]:
    reqs = [req for _, req in requests]
    prompt = [r[2] for r in reqs if r[2]]
    read = sum(r[3] for r in reqs if r[2] and r[3] is not None)
    cost = [r[1] for r in reqs if r[1] is not None]
    return {
        "sessions": len({n for n, _ in requests}),
        "requests": len(reqs),
        "cost_usd": round(sum(cost), 6) if cost else None,
        "prompt_tokens": sum(prompt) if prompt else None,
        "cache_read_tokens": read if prompt else None,
        "cache_hit_ratio": round(read / sum(prompt), 6) if prompt else None,
        "peak_reported": max(prompt, default=None),
        "compactions_recorded": 0,
    }


def preset_totals(name: str, simulated: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """One preset across the fleet, all simulated: its compactions summed, its peak maxed,
    what its runs would have cost (``None`` while nothing prices it).

    ``simulated`` holds the preset's figures per session (``compactions``, ``peak``,
    ``cost_usd``).
    """
    return {
        "preset": name,
        "compactions_simulated": _sum(s.get("compactions") for s in simulated) or 0,
        "peak_simulated": _max(s.get("peak") for s in simulated),
        "cost_usd_simulated": _sum(s.get("cost_usd") for s in simulated),
    }


def recorded_totals(totals_: Mapping[str, Any]) -> dict[str, Any]:
    """What the agents did, beside the presets' simulations: their compactions, the largest
    prompt the API reported and what the requests cost."""
    return {
        "compactions_recorded": totals_["compactions_recorded"],
        "peak_reported": totals_["peak_reported"],
        "cost_usd": totals_["cost_usd"],
    }


def build_document(
    rows: Sequence[Mapping[str, Any]],
    *,
    preset: str | None,
    presets: Sequence[Mapping[str, Any]] = (),
    complete: bool = True,
    by: str | None = None,
    since: date | None = None,
    until: date | None = None,
) -> dict[str, Any]:
    """The ``ctxtui.fleet/1`` document: the rows as given, their totals and groups.

    ``preset`` is the policy the simulated columns were replayed under (``None`` without a
    replay); ``complete`` is false when the run was interrupted and holds only what finished.
    ``by_day`` (and ``by_<by>`` for another period) counts each request on its own day;
    ``since``/``until`` keep the rows that sent a request in that range, and only those
    requests in the periods.
    """
    kept = [row for row in rows if in_range(row, since, until)]
    sessions = [{name: row[name] for name in ROW_FIELDS} for row in kept]
    doc: dict[str, Any] = {
        "schema": SCHEMA,
        "preset": preset,
        "complete": complete,
        "since": since.isoformat() if since else None,
        "until": until.isoformat() if until else None,
        "sessions": sessions,
        "totals": totals(sessions),
        "by_agent": grouped(sessions, lambda r: r["agent"]),
        "by_model": grouped(sessions, lambda r: r["model"]),
        "by_project": grouped(sessions, lambda r: r["project"]),
        "by_day": periods(kept, "day", since, until),
    }
    if by is not None and by != "day":
        doc[f"by_{by}"] = periods(kept, by, since, until)
    if presets:
        doc["recorded"] = recorded_totals(doc["totals"])
        doc["presets"] = list(presets)
    return doc
