"""Dollar figures and cache misses in words, for the app's gauge, detail pane, tools view and
timeline (the CLI's JSON keeps the raw figures)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from ctxtui.core.pricing.carry import Carry, ToolCarry, carry_costs
from ctxtui.core.pricing.cost import CacheMiss, MissCause, RequestCost, SessionCost, session_cost
from ctxtui.core.session.models import Session
from ctxtui.core.wording import plural

CAUSE_WORDS: dict[MissCause, str] = {
    MissCause.FIRST_REQUEST: "first request",
    MissCause.TTL_EXPIRED: "cache expired",
    MissCause.MODEL_CHANGED: "model changed",
    MissCause.COMPACTION: "compaction",
    MissCause.PREFIX_CHANGED: "prefix changed",
    MissCause.UNKNOWN: "cause unknown",
}
CAUSE_MARKS: dict[MissCause, str] = {
    MissCause.FIRST_REQUEST: "f",
    MissCause.TTL_EXPIRED: "e",
    MissCause.MODEL_CHANGED: "m",
    MissCause.COMPACTION: "a",
    MissCause.PREFIX_CHANGED: "d",
    MissCause.UNKNOWN: "?",
}
"""One mark per cause, for the timeline's row of cache-miss marks: lower case and apart from
every other mark of the app (``C`` is a simulated compaction on the timeline, ``T`` the fresh
tail in the compare view, ``p`` a pruned output there), so no letter means two things."""

MISS_WORDS: dict[MissCause, str] = {
    MissCause.FIRST_REQUEST: "first request",
    MissCause.TTL_EXPIRED: "cache expired",
    MissCause.MODEL_CHANGED: "model changed",
    MissCause.COMPACTION: "after a compaction",
    MissCause.PREFIX_CHANGED: "prefix differed",
    MissCause.UNKNOWN: "cause unknown",
}
"""What each mark stands for in the legend (the mark's letter is in its words)."""

SEVERAL_MISSES = "+"


def miss_legend() -> tuple[str, ...]:
    """The cache-miss marks explained, one phrase each, for the timeline and help:
    ``f first request``, ``e cache expired``, …, ``+ several causes``."""
    marks = tuple(f"{CAUSE_MARKS[c]} {MISS_WORDS[c]}" for c in CAUSE_MARKS)
    return (*marks, f"{SEVERAL_MISSES} several causes")


def dollars(value: Decimal | float | None) -> str:
    """``$0.0123``, ``$1.23``, ``$1,234``; ``—`` for an unknown price."""
    if value is None:
        return "—"
    v = float(value)
    if v >= 1_000:
        return f"${v:,.0f}"
    if v >= 1:
        return f"${v:,.2f}"
    return f"${v:.4f}"


def miss_words(miss: CacheMiss) -> str:
    """``cache miss: cache expired, 16,658 tok rewritten, +$0.0575``."""
    extra = f", +{dollars(miss.extra_cost)}" if miss.extra_cost is not None else ""
    return f"cache miss: {CAUSE_WORDS[miss.cause]}, {miss.tokens_rewritten:,} tok rewritten{extra}"


def request_words(r: RequestCost, *, misses: bool = True) -> str:
    """One request's dollars and cache figures in a clause (``misses``: and its cache miss)."""
    if r.usage is None:
        return "no usage recorded"
    words = [dollars(r.cost) if r.cost is not None else f"no price for {r.model or 'its model'}"]
    if r.hit_ratio is not None:
        words.append(f"cache hit {r.hit_ratio:.0%}")
    if misses and r.miss is not None:
        words.append(miss_words(r.miss))
    return " · ".join(words)


def last_request_words(cost: SessionCost) -> str:
    """The gauge's API line's dollars: ``last request $0.0236 · cache hit 99%``, labelled as
    that one request's (the session's total is the session bar's); ``""`` unpriced."""
    last = last_priced(cost)
    if last is None or last.cost is None:
        return ""
    return f"last request {request_words(last, misses=False)}"


def session_total_words(cost: SessionCost, subagents: Sequence[SessionCost] = ()) -> str:
    """``recorded $52.97 · $54.96 with 3 sub-agents``: what the whole session (every request
    the file holds, before the agent's compactions too) cost, and with its sub-agents';
    ``""`` when no request has a price."""
    if not cost.priced:
        return ""
    words = f"recorded {dollars(cost.total)}"
    if subagents:
        total = cost.total + sum((s.total for s in subagents), Decimal(0))
        words += f" · {dollars(total)} with {plural(len(subagents), 'sub-agent')}"
    return words


def last_priced(cost: SessionCost) -> RequestCost | None:
    """The last request with usage: the one the gauge's API line is about."""
    return next((r for r in reversed(cost.requests) if r.usage is not None), None)


@dataclass(frozen=True)
class CostView:
    """A session priced, with its messages' carry: everything the app shows in dollars."""

    session: Session
    cost: SessionCost
    carry: Carry

    def carry_words(self, index: int) -> str:
        """``re-sent in 12 requests, $0.0431`` for message ``index``; empty when the session
        has no priced request (nothing to say in dollars) or no such message."""
        if not self.cost.priced or not 0 <= index < len(self.carry.requests):
            return ""
        n = self.carry.requests[index]
        if not n:
            return "not re-sent by any recorded request"
        return f"re-sent in {plural(n, 'request')}, {dollars(self.carry.cost[index])}"

    def tools(self) -> dict[str, ToolCarry]:
        return {t.name: t for t in self.carry.tools(self.session)}


def cost_view(session: Session, message_tokens: list[int] | tuple[int, ...]) -> CostView:
    """Price ``session`` and work out its carry with these message sizes (slow: a worker's)."""
    cost = session_cost(session)
    return CostView(session, cost, carry_costs(session, cost, message_tokens))


def covered_requests(requests: int, first: int | None) -> str:
    """Which requests of the file a figure over the agent's last segment covers, numbered
    from 1 as everywhere: ``requests 924–937 of the file (after the agent's last
    compaction)``; without the numbering ``the 14 requests after the agent's last
    compaction``."""
    if first is None or requests == 0:
        return f"the {plural(requests, 'request')} after the agent's last compaction"
    span = f"{first + 1:,}–{first + requests:,}" if requests > 1 else f"{first + 1:,}"
    noun = "requests" if requests > 1 else "request"
    return f"{noun} {span} of the file (after the agent's last compaction)"


def cost_line(
    presets: Sequence[str],
    entries: Mapping[str, Mapping[str, Any]],
    segment: str = "",
) -> str:
    """``replayed in dollars: recorded $0.54 · 1 plan $0.55 · 2 picoclaw $0.49 · …`` from
    ``core.compare.replay_entry`` per preset; empty when nothing has a price. ``segment``
    (``covered_requests``) says which requests the figures cover when they are not the
    whole file's."""
    recorded = next((e["recorded_cost_usd"] for e in entries.values()), None)
    if recorded is None:
        return ""
    over = f" over {segment}" if segment else ""
    words = [f"replayed in dollars{over}: recorded {dollars(recorded)}"]
    for n, name in enumerate(presets):
        entry = entries.get(name)
        value = entry["simulated_cost_usd"] if entry is not None else None
        words.append(f"{n + 1} {name} {dollars(value)}")
    return " · ".join(words)


def timeline_words(
    request: RequestCost, cost: SessionCost, simulated: Decimal, preset: str, width: int
) -> str:
    """The timeline's cost line: the request priced, then the session recorded and
    simulated, in the longest wording that fits ``width``."""
    k = request.index
    recorded, sim = dollars(cost.total), dollars(simulated)
    # every variant names the request its dollars are, and the session its totals are
    head, brief = f"request {k + 1:,}: {request_words(request)}", f"request {k + 1:,}: "
    brief += request_words(request, misses=False)
    variants = [
        [head, f"session {recorded} recorded, {sim} simulated ({preset})"],
        [head, f"session {recorded} recorded, {sim} simulated"],
        [brief, f"session {recorded} recorded, {sim} simulated"],
        [brief],
    ]
    if not cost.priced:
        variants = [[v[0]] for v in variants]
    text = ""
    for words in variants:
        text = " · ".join(words)
        if len(text) <= width:
            break
    return text
