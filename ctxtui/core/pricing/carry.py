"""What each message cost while it stayed in the context: its *carry cost*.

A message is sent again with every later request until compacted away. Each request's input
cost is laid out along its prompt as the API bills it (cache reads, 1-hour writes, 5-minute
writes, uncached input) over the prompt's order: what no message holds first, then the live
messages (since the agent's last compaction) oldest first. A message's carry is what its span
of every prompt cost, so all spans add up to the recorded input cost. Message sizes are scaled
down to the reported prompt when they add up to more.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from itertools import accumulate

from ctxtui.core.planning.tool_costs import UNKNOWN_TOOL, call_shares, result_tool_names
from ctxtui.core.pricing.cost import COVERAGE, RequestCost, SessionCost, usd
from ctxtui.core.session.models import Session
from ctxtui.core.tokens.calibration import live_starts


@dataclass(frozen=True)
class Carry:
    """Per message: requests that re-sent it, tokens re-sent, dollars (0 when unpriced)."""

    requests: tuple[int, ...]
    tokens: tuple[int, ...]
    cost: tuple[Decimal, ...]
    unattributed: Decimal  # what no message holds: system prompt, tools, the unseen
    input_cost: Decimal  # the priced requests' recorded input cost (reads, writes, uncached)

    def tools(self, session: Session) -> list[ToolCarry]:
        """Per tool, the carry of its outputs and its calls' share of the messages that
        made them (shared by characters, as the tools view shares tokens), costliest first."""
        outputs: dict[str, int] = {}
        tokens: dict[str, Decimal] = {}
        cost: dict[str, Decimal] = {}

        def add(name: str, share: Decimal, i: int) -> None:
            tokens[name] = tokens.get(name, Decimal(0)) + share * self.tokens[i]
            cost[name] = cost.get(name, Decimal(0)) + share * self.cost[i]

        for i, name in result_tool_names(session).items():
            outputs[name] = outputs.get(name, 0) + 1
            add(name, Decimal(1), i)
        for i in session.index.tool_callers:
            message = session.messages[i]
            weights = call_shares(message, CALL_WEIGHT_SCALE)
            for call, weight in zip(message.tool_calls, weights, strict=True):
                add(call.name or UNKNOWN_TOOL, Decimal(weight) / CALL_WEIGHT_SCALE, i)
        out = [
            ToolCarry(name, outputs.get(name, 0), int(tokens[name]), cost[name]) for name in tokens
        ]
        return sorted(out, key=lambda t: (-t.cost, -t.tokens, t.name))


CALL_WEIGHT_SCALE = 1_000_000
"""A call's share of its message, in millionths (``call_shares`` deals in whole units)."""


@dataclass(frozen=True, slots=True)
class ToolCarry:
    name: str
    outputs: int
    tokens: int  # tokens of its outputs and calls re-sent, over every request
    cost: Decimal


def carry_costs(session: Session, cost: SessionCost, message_tokens: Sequence[int]) -> Carry:
    """The carry of every message of ``session`` over the requests ``cost`` priced, sized by
    ``message_tokens`` (any tokenizer: only proportions matter); unpriced requests add no
    dollars."""
    n = len(session.messages)
    prefix = [0, *accumulate(message_tokens)]
    points = [r.message_index for r in cost.requests]
    starts = live_starts(session, points)
    sent = [0] * (n + 1)
    rates = _Rates(prefix, [Decimal(0)] * (n + 1), [Decimal(0)] * n)
    unattributed = Decimal(0)
    input_cost = Decimal(0)
    for r, start in zip(cost.requests, starts, strict=True):
        if r.usage is None:
            continue
        stop = r.message_index
        sent[start] += 1
        sent[stop] -= 1
        if r.priced is None:
            continue
        input_cost += r.priced.input + r.priced.cache_write + r.priced.cache_read
        unattributed += rates.lay(r, start, stop)
    running = Decimal(0)
    counts = list(accumulate(sent[:n]))
    carry: list[Decimal] = []
    for i in range(n):
        running += rates.per_token[i]
        # a scaled rate added and taken off again can leave a rounding residue of ~1e-30
        carry.append(max(Decimal(0), rates.direct[i] + running * message_tokens[i]))
    tokens = tuple(c * t for c, t in zip(counts, message_tokens, strict=True))
    return Carry(tuple(counts), tokens, tuple(carry), unattributed, input_cost)


def _stretches(r: RequestCost) -> list[tuple[int, int, Decimal]]:
    usage, priced = r.usage, r.priced
    assert usage is not None and priced is not None
    rates = r.rates
    assert rates is not None
    read = usage.cache_read
    w1 = read + usage.cache_write_1h
    w5 = w1 + usage.cache_write_5m
    return [
        (0, read, rates.cache_read),
        (read, w1, rates.cache_write_1h),
        (w1, w5, rates.cache_write_5m),
        (w5, usage.prompt, rates.input),
    ]


@dataclass(frozen=True, slots=True)
class _Rates:
    """Dollars per token laid over the messages: whole messages through ``per_token`` (a
    difference array), the cut ones at a stretch's edges through ``direct``."""

    prefix: Sequence[int]
    per_token: list[Decimal]
    direct: list[Decimal]

    def lay(self, r: RequestCost, start: int, stop: int) -> Decimal:
        """Lay priced request ``r``'s input cost over the messages ``[start, stop)`` it sent,
        its stretches in the prompt's order after what no message holds; that part's cost is
        returned. Message sizes are scaled down to the prompt when they add up to more."""
        assert r.usage is not None
        prompt = r.usage.prompt
        base = self.prefix[start]
        held = self.prefix[stop] - base
        unattributed = Decimal(0)
        if prompt == 0:
            return unattributed
        if held <= prompt:  # nearly always: the prompt also holds the system prompt and tools
            overhead = prompt - held
            for a, b, rate in _stretches(r):
                if b <= a:
                    continue
                lead = min(b, overhead) - a
                if lead > 0:
                    unattributed += rate * lead
                if b > overhead:
                    x0, x1 = base + max(0, a - overhead), base + b - overhead
                    self.spread_tokens(x0, x1, rate, start)
            return unattributed
        scale = Decimal(held) / Decimal(prompt)
        for a, b, rate in _stretches(r):
            if b > a:
                lo = base + max(Decimal(0), a * scale)
                hi = base + min(Decimal(held), b * scale)
                self.spread(lo, hi, rate / scale, range(start, stop))
        return unattributed

    def _whole(self, first: int, last: int, from_first: bool, to_last: bool, rate: Decimal) -> None:
        """``rate`` per token over the messages ``first`` to ``last`` that a stretch covers
        whole (``first`` when ``from_first``, ``last`` when ``to_last``), through the
        difference array."""
        whole_from = first if from_first else first + 1
        whole_to = last if to_last else last - 1
        if whole_to >= whole_from:
            self.per_token[whole_from] += rate
            self.per_token[whole_to + 1] -= rate

    def spread_tokens(self, x0: int, x1: int, rate: Decimal, start: int) -> None:
        """``spread`` over whole-token positions [x0, x1) of the messages from ``start`` on
        (``x1`` within them): the same sums, with positions that need no ``Decimal``."""
        if x1 <= x0:
            return
        prefix = self.prefix
        first = max(start, bisect_right(prefix, x0) - 1)
        last = bisect_left(prefix, x1) - 1
        for i in (first, last) if first != last else (first,):
            lo, hi = max(x0, prefix[i]), min(x1, prefix[i + 1])
            if hi > lo and not (lo == prefix[i] and hi == prefix[i + 1]):
                self.direct[i] += rate * (hi - lo)
        self._whole(first, last, x0 <= prefix[first], x1 >= prefix[last + 1], rate)

    def spread(self, x0: Decimal, x1: Decimal, rate: Decimal, messages: range) -> None:
        """Add ``rate`` per token over message-token positions [x0, x1) of ``messages``."""
        if x1 <= x0:
            return
        prefix = self.prefix
        # first message whose end is past x0, last whose start is before x1
        first = max(messages.start, bisect_right(prefix, x0) - 1)
        last = min(messages.stop - 1, bisect_left(prefix, x1) - 1)
        for i in {first, last}:
            lo, hi = max(x0, Decimal(prefix[i])), min(x1, Decimal(prefix[i + 1]))
            if hi > lo and not (lo == prefix[i] and hi == prefix[i + 1]):
                self.direct[i] += rate * (hi - lo)
        self._whole(first, last, x0 <= prefix[first], x1 >= prefix[last + 1], rate)


CARRY_TOP = 10
"""Messages listed by name in the ``carry`` block: the most expensive ones."""


def carry_json(
    session: Session, carry: Carry, tools: Sequence[ToolCarry] | None = None
) -> dict[str, object]:
    """The ``carry`` block: per tool and for the costliest messages, tokens re-sent and
    dollars, over every priced request; what no message holds beside them. ``tools`` is
    ``carry.tools(session)`` when the caller has it."""
    tools = carry.tools(session) if tools is None else tools
    top = sorted(range(len(carry.cost)), key=lambda i: (-carry.cost[i], i))[:CARRY_TOP]
    return {
        "input_cost_usd": usd(carry.input_cost),
        "messages_usd": usd(sum(carry.cost, Decimal(0))),
        "unattributed_usd": usd(carry.unattributed),
        "tools": [
            {
                "name": t.name,
                "outputs": t.outputs,
                "tokens_resent": t.tokens,
                "cost_usd": usd(t.cost),
            }
            for t in tools
        ],
        "messages": [
            {
                "index": i,
                "role": session.messages[i].role,
                "tool_name": session.messages[i].tool_name,
                "requests": carry.requests[i],
                "tokens_resent": carry.tokens[i],
                "cost_usd": usd(carry.cost[i]),
            }
            for i in top
            if carry.cost[i] > 0
        ],
        "covers": COVERAGE,
    }
