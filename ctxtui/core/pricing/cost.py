"""What each recorded request cost in dollars, and why a request missed the prompt cache.

``session_cost(session)`` prices every request with recorded usage (``core.pricing.prices``);
one whose cache read falls below ``MISS_RATIO`` of the previous prompt gets a ``CacheMiss``
whose cause comes only from evidence in the transcript (docs/cost.md):

* ``first_request`` — no earlier request in this file;
* ``compaction`` — the agent recorded a compaction, or a summary entered the history, since;
* ``model_changed`` — the recorded model differs from the previous request's;
* ``ttl_expired`` — the gap since the previous request outlived the cache lifetime of so much
  of its prompt that what remained could not give a hit: each part by its own lifetime, 1 hour
  for the prefix written with the 1-hour lifetime, 5 minutes for the rest;
* ``prefix_changed`` — the prompt shrank with no compaction: an earlier message, the system
  prompt or the tools changed (a history that is only appended to never shrinks);
* ``unknown`` — none of these.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from enum import StrEnum
from functools import cached_property

import msgspec
import msgspec.structs

from ctxtui.core.pricing.price_source import PRICE_SOURCE
from ctxtui.core.pricing.prices import (
    NoPriceError,
    Priced,
    PriceTable,
    Rates,
    TokenUsage,
    table_for,
)
from ctxtui.core.session.formats import known_format
from ctxtui.core.session.models import Message, Session, Usage
from ctxtui.core.wording import plural

MISS_RATIO = 0.9
"""A request reading less than this share of the previous request's prompt missed the cache."""
TTL_5M = timedelta(minutes=5)
TTL_1H = timedelta(hours=1)
PARTS = ("input", "cache_write", "cache_read", "output")
"""A request's cost parts: uncached input, cache writes, cache reads, output."""


class MissCause(StrEnum):
    FIRST_REQUEST = "first_request"
    TTL_EXPIRED = "ttl_expired"
    MODEL_CHANGED = "model_changed"
    COMPACTION = "compaction"
    PREFIX_CHANGED = "prefix_changed"
    UNKNOWN = "unknown"


def token_usage(usage: Usage | None) -> TokenUsage | None:
    """A recorded ``Usage`` as the tokens a price applies to; ``None`` without a prompt size."""
    if usage is None or usage.prompt_total is None:
        return None
    read = min(usage.cached_read or 0, usage.prompt_total)
    write = min(usage.cache_write or 0, usage.prompt_total - read)
    write_1h = min(write, usage.cache_write_1h or 0)
    return TokenUsage(
        prompt=usage.prompt_total,
        cache_read=read,
        cache_write_5m=write - write_1h,
        cache_write_1h=write_1h,
        output=usage.output or 0,
        reasoning=usage.reasoning or 0,
    )


class CacheMiss(msgspec.Struct, frozen=True):
    cause: MissCause
    tokens_rewritten: int  # prompt tokens sent again that a hit would have read from the cache
    extra_cost: Decimal | None  # what the miss cost over that hit; None when unpriced


class RequestCost(msgspec.Struct, frozen=True):
    """One request as recorded, priced."""

    index: int  # the request's number in the session (``core.simulation.replay`` numbering)
    message_index: int
    model: str | None
    sent_at: datetime | None
    usage: TokenUsage | None
    priced: Priced | None  # None without usage, model or price
    miss: CacheMiss | None = None
    rates: Rates | None = None  # USD per token of each kind for this request, when priced

    @property
    def cost(self) -> Decimal | None:
        return self.priced.total if self.priced is not None else None

    @property
    def hit_ratio(self) -> float | None:
        if self.usage is None or self.usage.prompt == 0:
            return None
        return self.usage.cache_read / self.usage.prompt


@dataclass(frozen=True)
class SessionCost:
    """Every recorded request of a session, priced; the figures ``cost`` and ``cache`` give."""

    requests: tuple[RequestCost, ...]
    provider: str | None
    unpriced_models: tuple[str, ...]  # models the table has no price for, in first-seen order
    price_source: str = PRICE_SOURCE

    @cached_property
    def priced(self) -> tuple[RequestCost, ...]:
        return tuple(r for r in self.requests if r.priced is not None)

    @property
    def total(self) -> Decimal:
        return sum((r.priced.total for r in self.priced if r.priced), Decimal(0))

    @property
    def requests_with_usage(self) -> int:
        return sum(1 for r in self.requests if r.usage is not None)

    @property
    def requests_unpriced(self) -> int:
        """Requests with usage that could not be priced (no model recorded, or no price)."""
        return self.requests_with_usage - len(self.priced)

    def by_part(self) -> dict[str, Decimal]:
        out = dict.fromkeys(PARTS, Decimal(0))
        for r in self.priced:
            assert r.priced is not None
            for part in PARTS:
                out[part] += getattr(r.priced, part)
        return out

    def by_model(self) -> dict[str, Decimal]:
        out: dict[str, Decimal] = {}
        for r in self.priced:
            assert r.priced is not None and r.model is not None
            out[r.model] = out.get(r.model, Decimal(0)) + r.priced.total
        return out

    @property
    def hit_ratio(self) -> float | None:
        used = [r.usage for r in self.requests if r.usage is not None]
        prompt = sum(u.prompt for u in used)
        return sum(u.cache_read for u in used) / prompt if prompt else None

    def misses(self) -> dict[MissCause, tuple[int, Decimal]]:
        """Per cause: how many misses, and their extra cost (priced ones only)."""
        out: dict[MissCause, tuple[int, Decimal]] = {}
        for r in self.requests:
            if r.miss is None:
                continue
            count, extra = out.get(r.miss.cause, (0, Decimal(0)))
            out[r.miss.cause] = (count + 1, extra + (r.miss.extra_cost or Decimal(0)))
        return out

    def warnings(self) -> list[str]:
        out = [
            f"no price for model {model}: its requests' cost is null ({self.price_source})"
            for model in self.unpriced_models
        ]
        nameless = sum(1 for r in self.requests if r.usage is not None and r.model is None)
        if nameless:
            out.append(
                f"{plural(nameless, 'request')} with usage record no model: their cost is null"
            )
        return out


def sent_times(messages: Sequence[Message], points: Sequence[int]) -> list[datetime | None]:
    """When each request was sent: the newest timestamp before its reply since the previous
    request (the prompt's last message), else the reply's own."""
    out: list[datetime | None] = []
    previous = -1
    for stop in points:
        when = None
        for i in range(stop - 1, previous, -1):
            if messages[i].created_at is not None:
                when = messages[i].created_at
                break
        out.append(when if when is not None else messages[stop].created_at)
        previous = stop
    return out


def _moved_to_read(usage: TokenUsage, tokens: int) -> TokenUsage:
    """``usage`` had ``tokens`` more been read from the cache (taken from the writes first)."""
    w5 = min(usage.cache_write_5m, tokens)
    w1 = min(usage.cache_write_1h, tokens - w5)
    return TokenUsage(
        prompt=usage.prompt,
        cache_read=usage.cache_read + tokens,
        cache_write_5m=usage.cache_write_5m - w5,
        cache_write_1h=usage.cache_write_1h - w1,
        output=usage.output,
        reasoning=usage.reasoning,
    )


class _Pricer:
    """Looks up each (model, day) once and remembers which models have no price."""

    def __init__(self, provider: str | None) -> None:
        self.provider = provider
        self.missing: dict[str, None] = {}

    def table(self, model: str | None, at: datetime | None) -> PriceTable | None:
        if model is None:
            return None
        try:
            return table_for(model, self.provider, at)
        except NoPriceError:
            self.missing.setdefault(model)
            return None


def _cause(prev: RequestCost, now: RequestCost, compacted: bool, hour_part: int) -> MissCause:
    """Why ``now`` missed the cache ``prev`` left; ``hour_part`` is how much of ``prev``'s
    prompt was cached with the 1-hour lifetime (``_hour_part``)."""
    assert prev.usage is not None and now.usage is not None
    if compacted:
        return MissCause.COMPACTION
    if prev.model is not None and now.model is not None and prev.model != now.model:
        return MissCause.MODEL_CHANGED
    if prev.sent_at is not None and now.sent_at is not None:
        try:
            gap = now.sent_at - prev.sent_at
        except TypeError:  # one naive, one aware: no evidence either way
            gap = None
        if gap is not None and _survived(prev.usage.prompt, hour_part, gap) < (
            MISS_RATIO * prev.usage.prompt
        ):
            return MissCause.TTL_EXPIRED
    if now.usage.prompt < prev.usage.prompt:
        return MissCause.PREFIX_CHANGED
    return MissCause.UNKNOWN


def _survived(prompt: int, hour_part: int, gap: timedelta) -> int:
    """How many tokens of a ``prompt`` left in the cache are still there after ``gap``: all of
    them within 5 minutes, the ``hour_part`` written with the 1-hour lifetime within an hour
    (the 5-minute rest has expired), none after."""
    if gap <= TTL_5M:
        return prompt
    return min(prompt, hour_part) if gap <= TTL_1H else 0


def _hour_part(previous: int, usage: TokenUsage) -> int:
    """The prefix cached with the 1-hour lifetime after ``usage``, ``previous`` before it.

    The API orders a prompt's 1-hour breakpoints before its 5-minute ones, so a request's
    1-hour write follows what it read: it ends at ``cache_read + cache_write_1h``. A request
    that writes none keeps the 1-hour part it read, and only that.
    """
    if usage.cache_write_1h:
        return usage.cache_read + usage.cache_write_1h
    return min(previous, usage.cache_read)


def _compaction_marks(session: Session, points: Sequence[int]) -> set[int]:
    """Requests at which the agent's own compaction took effect, by recorded compaction."""
    marks = set()
    for rc in session.meta.recorded_compactions:
        k = bisect_left(points, rc.message_index)
        if k < len(points):
            marks.add(k)
    return marks


def session_cost(session: Session, points: Sequence[int] | None = None) -> SessionCost:
    """Price every request of ``session`` (at ``points``, ``session.index.requests`` by default) and
    explain its cache misses; a model without a price is named in ``warnings``, costs ``None``."""
    if points is None:
        points = session.index.requests
    messages = session.messages
    row = known_format(session.meta.format)
    pricer = _Pricer(row.provider if row is not None else None)
    marks = _compaction_marks(session, points)
    times = sent_times(messages, points)
    summaries = [i for i, m in enumerate(messages) if m.is_summary]
    out: list[RequestCost] = []
    prev: RequestCost | None = None
    hour_part = 0  # the prefix cached with the 1-hour lifetime
    compacted = False
    scanned = 0  # summaries before this index were already looked for
    for k, stop in enumerate(points):
        message = messages[stop]
        model = message.model or session.meta.model
        usage = token_usage(message.usage)
        compacted = compacted or k in marks or _summary_between(summaries, scanned, stop)
        scanned = max(scanned, stop)
        if usage is None:
            out.append(RequestCost(k, stop, model, times[k], None, None))
            continue
        table = pricer.table(model, times[k])
        priced = table.price(usage) if table is not None else None
        rates = table.rates(usage.prompt) if table is not None else None
        now = RequestCost(k, stop, model, times[k], usage, priced, None, rates)
        miss = _miss(prev, now, table, compacted, hour_part)
        if miss is not None:
            now = msgspec.structs.replace(now, miss=miss)
        out.append(now)
        hour_part = _hour_part(hour_part, usage)
        prev, compacted = now, False
    return SessionCost(tuple(out), pricer.provider, tuple(pricer.missing))


def _summary_between(summaries: Sequence[int], start: int, stop: int) -> bool:
    """Whether a summary's index (``summaries``, ascending) lies in ``[start, stop)``.

    ``compacted`` stays set until the next priced request, so the caller looks from where
    the last look stopped; each look is a bisection, however many messages lie between.
    """
    k = bisect_left(summaries, start)
    return k < len(summaries) and summaries[k] < stop


def _miss(
    prev: RequestCost | None,
    now: RequestCost,
    table: PriceTable | None,
    compacted: bool,
    hour_part: int,
) -> CacheMiss | None:
    """The cache miss of ``now`` after ``prev``, or ``None`` for a hit; the session's first
    request (``index`` 0) misses as the first, a later one after no usage for no known cause."""
    usage = now.usage
    assert usage is not None
    if prev is None or prev.usage is None:
        if usage.cache_read >= MISS_RATIO * usage.prompt:
            return None
        cause = MissCause.FIRST_REQUEST if now.index == 0 else MissCause.UNKNOWN
        rewritten = usage.prompt - usage.cache_read
    else:
        if usage.cache_read >= MISS_RATIO * prev.usage.prompt:
            return None
        cause = _cause(prev, now, compacted, hour_part)
        rewritten = max(0, min(usage.prompt, prev.usage.prompt) - usage.cache_read)
    extra = None
    if table is not None and now.priced is not None:
        extra = now.priced.total - table.price(_moved_to_read(usage, rewritten)).total
    return CacheMiss(cause, rewritten, extra)


def usd(value: Decimal | None) -> float | None:
    """A dollar figure for JSON: unrounded (as a float), ``None`` stays ``null``."""
    return float(value) if value is not None else None


def request_json(r: RequestCost) -> dict[str, object]:
    """The per-request keys ``replay --json`` adds (``ctxtui.replay/2``)."""
    u = r.usage
    p = r.priced
    return {
        "model": r.model,
        "usage": None
        if u is None
        else {
            "input": u.uncached,
            "cache_write_5m": u.cache_write_5m,
            "cache_write_1h": u.cache_write_1h,
            "cache_read": u.cache_read,
            "output": u.output,
            "reasoning": u.reasoning,
            "prompt": u.prompt,
        },
        "cost_usd": usd(r.cost),
        "cost_parts_usd": None if p is None else {part: usd(getattr(p, part)) for part in PARTS},
        "cache_hit_ratio": r.hit_ratio,
        "cache_miss": None
        if r.miss is None
        else {
            "cause": r.miss.cause.value,
            "tokens_rewritten": r.miss.tokens_rewritten,
            "extra_cost_usd": usd(r.miss.extra_cost),
        },
    }


COVERAGE = "every recorded request of the session, before and after the agent's own compactions"


def cost_json(cost: SessionCost, subagents: Iterable[SessionCost] = ()) -> dict[str, object]:
    """The session's ``cost`` block: totals unrounded, ``covers`` says what was counted."""
    subs = list(subagents)
    with_subs = cost.total + sum((s.total for s in subs), Decimal(0))
    return {
        "total_usd": usd(cost.total),
        "total_with_subagents_usd": usd(with_subs),
        "subagents": len(subs),
        "by_part_usd": {k: usd(v) for k, v in cost.by_part().items()},
        "by_model_usd": {k: usd(v) for k, v in cost.by_model().items()},
        "requests": len(cost.requests),
        "requests_priced": len(cost.priced),
        "requests_unpriced": cost.requests_unpriced,
        "requests_without_usage": len(cost.requests) - cost.requests_with_usage,
        "unpriced_models": list(cost.unpriced_models),
        "price_source": cost.price_source,
        "covers": COVERAGE,
    }


def cache_json(cost: SessionCost) -> dict[str, object]:
    """The session's ``cache`` block: overall hit ratio and the misses by cause."""
    return {
        "hit_ratio": cost.hit_ratio,
        "misses": {
            cause.value: {"count": n, "extra_cost_usd": usd(extra)}
            for cause, (n, extra) in sorted(cost.misses().items())
        },
        "miss_threshold": MISS_RATIO,
        "covers": COVERAGE,
    }
