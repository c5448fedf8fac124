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
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from typing import TYPE_CHECKING, Any

import msgspec

if TYPE_CHECKING:
    from ctxtui.core.pricing.cost import RequestCost, SessionCost
    from ctxtui.core.session.models import Message, RecordedCompaction, Session

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

ACTIVITY = "activity"
"""A row's requests by the UTC hour they were sent in, for the periods: ``{"hours": [[hour,
first, last, requests, cost_usd, prompt, cache_read, peak, compactions], ...], "untimed":
[...the same from ``requests`` on, or ``None``]}``, times in seconds since the epoch. An hour
is the finest a period needs: days, weeks and months are made of hours, and a 5-hour block
starts at an hour and takes whole hours (``_blocks``)."""
PERIODS = ("day", "week", "month", "block")
"""What ``--by`` groups the requests by: the UTC day, the week (from its Monday), the month,
or ccusage's 5-hour billing blocks."""
BLOCK = timedelta(hours=5)
"""ccusage's block: it starts at the hour of its first request (floored, UTC) and holds every
request until one comes more than 5 hours after that start or after the previous request."""
HOUR = 3600


def conversation_messages(history: Session) -> int:
    """Every message of the file that is conversation, each once: ``history`` read with its
    full history (what later compactions replaced included), plus a system prompt the file
    stores. A compaction's summary is one message; the messages an agent re-sent with it
    (Codex's ``replacement_history``: the summary comes last) repeat earlier ones and are
    not counted again."""
    messages = history.messages
    starts = [rc.message_index for rc in history.meta.recorded_compactions]
    stored_prompt = 1 if history.system_prompt else 0
    return len(messages) - _repeated(messages, starts, len(messages)) + stored_prompt


def _repeated(messages: Sequence[Message], starts: Sequence[int], stop: int) -> int:
    """The messages before ``stop`` that compactions starting at ``starts`` re-sent before
    their summary."""
    repeated = 0
    for k, start in enumerate(starts):
        end = starts[k + 1] if k + 1 < len(starts) else stop
        summary = next((i for i in range(start, end) if messages[i].is_summary), None)
        if summary is not None:
            repeated += summary - start
    return repeated


def _add_activity(
    hours: dict[int, list[Any]],
    untimed: list[Any] | None,
    points: Sequence[int],
    recorded: Sequence[RecordedCompaction],
    requests: Sequence[RequestCost],
) -> list[Any] | None:
    """``requests`` (sent at ``points``) added to a row's ``ACTIVITY`` hours and its
    ``untimed`` group, each compaction the agent recorded counted at the request it took
    effect at; the new ``untimed``."""
    from bisect import bisect_left

    marks = [bisect_left(points, rc.message_index) for rc in recorded]
    compacted = [0] * (len(requests) + 1)
    for k in marks:
        compacted[min(k, len(requests) - 1) if requests else 0] += 1
    for k, r in enumerate(requests):
        when = _epoch(r.sent_at)
        if when is None:
            untimed = _add(untimed, r, compacted[k])
            continue
        hour = int(when // HOUR) * HOUR
        group = hours.get(hour)
        if group is None:
            hours[hour] = [hour, when, when, *_add(None, r, compacted[k])]
        else:
            group[1], group[2] = min(group[1], when), max(group[2], when)
            group[3:] = _add(group[3:], r, compacted[k])
    return untimed


class Tally(msgspec.Struct):
    """A row's figures of a history, added up part by part: the figures of a history read
    in two parts (its settled messages, then the rest: ``importers.appended``) are those of
    one read, each request added in the same order, so the fleet index can store a part's
    and add what a file grew by.

    A part is the messages before ``upto``: the requests sent among them, the compactions
    that took effect there. ``started`` and ``model`` are the session's as the app opens it
    (from the last compaction on).
    """

    messages: int = 0
    requests: int = 0
    peak: int | None = None
    compactions: int = 0
    low: int | None = None
    high: int | None = None
    cost: Decimal = Decimal(0)
    priced: bool = False
    used: bool = False
    prompt: int = 0
    cache_read: int = 0
    hours: dict[int, list[Any]] = msgspec.field(default_factory=dict)
    untimed: list[Any] | None = None
    started: str | None = None
    model: str | None = None
    agent: str | None = None
    last_hour: int | None = None
    """The hour of the last request added (``None``: it had no time)."""

    def add(self, history: Session, cost: SessionCost, upto: int | None = None) -> None:
        """Add the messages of ``history`` before ``upto`` (all by default), ``cost`` being
        its requests priced (``core.pricing.cost.session_cost``)."""
        from bisect import bisect_left

        messages = history.messages
        stop = len(messages) if upto is None else upto
        points = history.index.requests
        points = points[: bisect_left(points, stop)]
        recorded = list(history.meta.recorded_compactions)
        if upto is not None:  # a part ends before the compactions at or after it
            recorded = [rc for rc in recorded if rc.message_index < stop]
        requests = cost.requests[: len(points)]
        prompt_stored = 1 if history.system_prompt and not self.messages else 0
        starts = [rc.message_index for rc in recorded]
        self.messages += stop - _repeated(messages, starts, stop) + prompt_stored
        self.requests += len(points)
        reported = [
            u.prompt_total
            for p in points
            if (u := messages[p].usage) is not None and u.prompt_total is not None
        ]
        self.peak = _most(self.peak, max(reported, default=None))
        self.compactions += len(recorded)
        band = [
            c.pre_tokens for c in recorded if c.pre_tokens is not None and c.trigger != "manual"
        ]
        self.low = _least(self.low, min(band, default=None))
        self.high = _most(self.high, max(band, default=None))
        priced = [r.priced.total for r in requests if r.priced is not None]
        if priced:  # exact: a few decimal places, far from Decimal's 28 digits
            self.cost += sum(priced, Decimal(0))
            self.priced = True
        used = [r.usage for r in requests if r.usage is not None]
        if used:
            self.used = True
            self.prompt += sum(u.prompt for u in used)
            self.cache_read += sum(u.cache_read for u in used)
        if requests:
            self.untimed = _add_activity(self.hours, self.untimed, points, recorded, requests)
            self.last_hour = _hour(requests[-1])
        elif recorded and self.requests:
            self._mark_last(len(recorded))
        opened = starts[-1] if starts else None
        if opened is not None or self.started is None:
            self.started = first_written(messages, opened or 0, stop)
        self.model = history.meta.model
        self.agent = history.meta.format

    def _mark_last(self, compactions: int) -> None:
        """Compactions after every request so far: a whole read counts them at the last."""
        group = self.untimed if self.last_hour is None else self.hours[self.last_hour]
        assert group is not None
        group[-1] += compactions  # a group's last figure is its compactions (``_add``)

    def copy(self) -> Tally:
        """A tally to add to, leaving this one as it is."""
        hours = {hour: list(group) for hour, group in self.hours.items()}
        return msgspec.structs.replace(self, hours=hours)

    def figures(self) -> dict[str, Any]:
        """The row's figures (all but the path and what the listing knew)."""
        return {
            "requests": self.requests,
            "peak_reported": self.peak,
            "compactions_recorded": self.compactions,
            "observed_low": self.low,
            "observed_high": self.high,
            "messages": self.messages,
            "cost_usd": float(self.cost) if self.priced else None,
            "cache_hit_ratio": self.cache_read / self.prompt if self.used and self.prompt else None,
            "prompt_tokens": self.prompt if self.used else None,
            "cache_read_tokens": self.cache_read if self.used else None,
            ACTIVITY: {
                "hours": [self.hours[h] for h in sorted(self.hours)],
                "untimed": self.untimed,
            },
        }


def _hour(r: RequestCost) -> int | None:
    """The hour a request is counted in, ``None`` when it has no time (``_add_activity``)."""
    when = _epoch(r.sent_at)
    return None if when is None else int(when // HOUR) * HOUR


def _least(a: int | None, b: int | None) -> int | None:
    return b if a is None else a if b is None else min(a, b)


def _most(a: int | None, b: int | None) -> int | None:
    return b if a is None else a if b is None else max(a, b)


def first_written(
    messages: Sequence[Message], start: int = 0, stop: int | None = None
) -> str | None:
    """The first time a message in ``messages[start:stop]`` was written, ISO 8601."""
    for i in range(start, len(messages) if stop is None else stop):
        when = messages[i].created_at
        if when is not None:
            return when.isoformat()
    return None


def _add(group: list[Any] | None, r: Any, compactions: int) -> list[Any]:
    """``[requests, cost_usd, prompt, cache_read, peak, compactions]`` with request ``r``."""
    n, cost, prompt, read, peak, marks = group or [0, None, None, None, None, 0]
    if r.cost is not None:
        cost = round((cost or 0.0) + float(r.cost), 9)
    usage = r.usage
    if usage is not None and usage.prompt:
        prompt = (prompt or 0) + usage.prompt
        read = (read or 0) + usage.cache_read
        peak = max(peak or 0, usage.prompt)
    return [n + 1, cost, prompt, read, peak, marks + compactions]


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


def _label(hour: float, by: str) -> str:
    day = datetime.fromtimestamp(hour, UTC).date()
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
    hours = (row.get(ACTIVITY) or {}).get("hours") or ()
    if hours:
        return any(_in_range(h[0], since, until) for h in hours)
    started = row.get("started")
    if not isinstance(started, str):
        return False
    try:
        when = datetime.fromisoformat(started)
    except ValueError:
        return False
    return _in_range(_epoch(when), since, until)


def _blocks(hours: Sequence[Sequence[Any]]) -> list[float]:
    """Each of the hours' block start, the hours ``[hour, first, last, ...]`` sorted: ccusage's
    rule (``BLOCK``) applied at the hour's first request. Every later request of that hour is
    within 5 hours of it and of the block's start, so an hour is never split (but for a
    request on the very second a block ends, which ccusage keeps in the older block)."""
    out: list[float] = []
    start = last = None
    span = BLOCK.total_seconds()
    for hour, first, final, *_ in hours:
        if start is None or last is None or first - start > span or first - last > span:
            start = hour
        out.append(start)
        last = final
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
    agent's compactions. Requests with no time are ``UNKNOWN``'s (never a block's), and
    only without a range."""
    merged: dict[int, list[Any]] = {}
    who: dict[int, set[int]] = {}
    untimed: list[tuple[int, list[Any]]] = []
    for n, row in enumerate(rows):
        act = row.get(ACTIVITY) or {}
        for hour, first, final, *figures in act.get("hours") or ():
            if not _in_range(hour, since, until):
                continue
            who.setdefault(hour, set()).add(n)
            got = merged.get(hour)
            merged[hour] = (
                [hour, first, final, *figures]
                if got is None
                else [hour, min(got[1], first), max(got[2], final), *_merge(got[3:], figures)]
            )
        if act.get("untimed") and since is None and until is None:
            untimed.append((n, act["untimed"]))
    hours = [merged[h] for h in sorted(merged)]
    if by == "block":
        labels = [datetime.fromtimestamp(s, UTC).isoformat() for s in _blocks(hours)]
    else:
        labels = [_label(h[0], by) for h in hours]
    out: dict[str, list[Any]] = {}
    members: dict[str, set[int]] = {}
    for label, h in zip(labels, hours, strict=True):
        members.setdefault(label, set()).update(who[h[0]])
        out[label] = _merge(out[label], h[3:]) if label in out else list(h[3:])
    if untimed and by != "block":
        members[UNKNOWN] = {n for n, _ in untimed}
        rest: list[Any] = list(untimed[0][1])
        for _, more in untimed[1:]:
            rest = _merge(rest, more)
        out[UNKNOWN] = rest
    return {label: _period(out[label], len(members[label]), label, by) for label in out}


def _merge(a: Sequence[Any], b: Sequence[Any]) -> list[Any]:
    """Two ``[requests, cost_usd, prompt, cache_read, peak, compactions]`` as one."""

    def plus(x: Any, y: Any) -> Any:
        return y if x is None else x if y is None else x + y

    peak = max((v for v in (a[4], b[4]) if v is not None), default=None)
    cost = plus(a[1], b[1])
    return [
        a[0] + b[0],
        round(cost, 9) if cost is not None else None,
        plus(a[2], b[2]),
        plus(a[3], b[3]),
        peak,
        a[5] + b[5],
    ]


def _period(figures: Sequence[Any], sessions: int, label: str, by: str) -> dict[str, Any]:
    n, cost, prompt, read, peak, compactions = figures
    out: dict[str, Any] = {
        "sessions": sessions,
        "requests": n,
        "cost_usd": round(cost, 6) if cost is not None else None,
        "prompt_tokens": prompt,
        "cache_read_tokens": read if prompt else None,
        "cache_hit_ratio": round(read / prompt, 6) if prompt else None,
        "peak_reported": peak,
        "compactions_recorded": compactions,
    }
    if by == "block":
        start = datetime.fromisoformat(label)
        out["start"], out["end"] = label, (start + BLOCK).isoformat()
    return out


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


@dataclass(frozen=True, slots=True)
class Days:
    """The days a fleet document covers, UTC and inclusive (``None``: open), and the period it
    groups requests by besides the day (``--since``, ``--until``, ``--by``)."""

    since: date | None = None
    until: date | None = None
    by: str | None = None


EVERY_DAY = Days()


def build_document(
    rows: Sequence[Mapping[str, Any]],
    *,
    preset: str | None,
    presets: Sequence[Mapping[str, Any]] = (),
    complete: bool = True,
    days: Days = EVERY_DAY,
) -> dict[str, Any]:
    """The ``ctxtui.fleet/1`` document: the rows as given, their totals and groups.

    ``preset`` is the policy the simulated columns were replayed under (``None`` without a
    replay); ``complete`` is false when the run was interrupted and holds only what finished.
    ``by_day`` (and ``by_<by>`` for another period) counts each request on its own day;
    ``days`` keeps the rows that sent a request in its range, and only those requests in the
    periods.
    """
    since, until, by = days.since, days.until, days.by
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
