"""What-if pricing: the simulated run of a replay, with a prefix-cache model, in dollars.

Each simulated prompt is put in the API's tokens by the recorded one: the reported prompt of
the same request plus the difference between the simulated live context and the agent's own
(both counted by the replay's tokenizer, the difference scaled to the API's tokens by the
calibrated characters per token). The cache then holds the previous simulated prompt, and
a request reads it up to the first message that changed since (docs/cost.md):

* a simulated compaction breaks the prefix after the system prompt and tools;
* a newly pruned or dropped message breaks it at that message;
* a gap longer than the cache lifetime (5 minutes, or 1 hour when the agent's own request
  wrote with the 1-hour lifetime), or a change of recorded model, empties it;
* the first request reads what the agent's first request read (a cache from before the
  session cannot be known).

The rest of the prompt is written to the cache when the agent's provider bills writes (its
recorded requests wrote), else sent uncached; output is the recorded output. Everything is
priced with the request's own price table.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from decimal import Decimal
from functools import cached_property
from itertools import pairwise

from ctxtui.core.calibration import Fit, content_chars, live_starts
from ctxtui.core.cost import TTL_1H, TTL_5M, RequestCost, SessionCost, usd
from ctxtui.core.counts import SessionCounts
from ctxtui.core.models import Session
from ctxtui.core.plan import Zone
from ctxtui.core.prices import TokenUsage
from ctxtui.core.replay import ContextAt, Replay

AGREEMENT_TOLERANCE = 0.05
"""A simulated cache read within this share of the recorded prompt agrees with the record."""


SAME_CONTEXT = 0.01
"""A simulated context within this share of the agent's own (same tokenizer) is the same one."""


@dataclass(frozen=True, slots=True)
class SimulatedRequest:
    index: int
    usage: TokenUsage  # in the API's tokens
    cost: Decimal | None  # None when the recorded request had no price
    broke: str | None  # why the cached prefix ended early: compaction, prune, ttl, model
    own_context: bool  # the simulated context is the agent's own at this request


@dataclass(frozen=True)
class WhatIf:
    """The simulated run priced beside the recorded one."""

    requests: tuple[SimulatedRequest | None, ...]  # None where the record has no usage
    recorded: SessionCost
    compactions_simulated: int
    compactions_recorded: int

    @cached_property
    def total(self) -> Decimal:
        return sum((r.cost for r in self.requests if r and r.cost is not None), Decimal(0))

    @property
    def hit_ratio(self) -> float | None:
        used = [r.usage for r in self.requests if r is not None]
        prompt = sum(u.prompt for u in used)
        return sum(u.cache_read for u in used) / prompt if prompt else None

    def read_errors(self) -> list[float]:
        """|simulated read − recorded read| / recorded prompt, per request after the first
        whose simulated context, and the one before, are the agent's own: there the cache
        model alone decides the difference, not the policy."""
        out = []
        pairs = list(zip(self.requests, self.recorded.requests, strict=True))
        for (before, _), (sim, rec) in pairwise(pairs):
            if sim is None or before is None or rec.usage is None or rec.usage.prompt == 0:
                continue
            if sim.own_context and before.own_context:
                out.append(abs(sim.usage.cache_read - rec.usage.cache_read) / rec.usage.prompt)
        return out

    def agreement(self) -> dict[str, float | int | None]:
        """How well the cache model's reads match the recorded ones where the simulated
        contexts are the agent's own."""
        errors = self.read_errors()
        if not errors:
            return {"requests": 0, "within_tolerance": None, "median_error": None}
        within = sum(1 for e in errors if e <= AGREEMENT_TOLERANCE) / len(errors)
        return {
            "requests": len(errors),
            "within_tolerance": within,
            "tolerance": AGREEMENT_TOLERANCE,
            "median_error": statistics.median(errors),
        }


def token_scale(session: Session, counts: SessionCounts, fit: Fit) -> float:
    """API tokens per token of ``counts``' tokenizer on this session's messages, from the
    calibration's fitted characters per token (1 when nothing could be fitted)."""
    total = counts.prefix[-1]
    if fit.chars_per_token is None or total <= 0:
        return 1.0
    chars = sum(content_chars(m) for m in session.messages)
    return chars / fit.chars_per_token / total if chars else 1.0


def what_if(replay: Replay, recorded: SessionCost, scale: float = 1.0) -> WhatIf:
    """Price ``replay``'s simulated requests; ``recorded`` is the same session priced as
    recorded (``core.cost.session_cost`` over ``replay.points``); ``scale`` is API tokens
    per replay token (``token_scale``)."""
    counts = replay.counts
    fixed = counts.system_tokens + counts.tool_def_tokens + counts.summary_tokens
    starts = live_starts(replay.session, replay.points)
    writes = any(r.usage is not None and r.usage.cache_write for r in recorded.requests)
    out: list[SimulatedRequest | None] = []
    prev: tuple[int, RequestCost] | None = None  # (simulated API prompt, its record)
    for k, (req, rec) in enumerate(zip(replay.requests, recorded.requests, strict=True)):
        if rec.usage is None:
            out.append(None)
            continue
        own = fixed + counts.prefix[req.message_index] - counts.prefix[starts[k]]
        prompt = max(0, round(rec.usage.prompt + (req.simulated_tokens - own) * scale))
        head = max(0, round(rec.usage.prompt - (own - fixed) * scale))  # system + tools
        if prev is None:
            read, broke = min(rec.usage.cache_read, prompt), None
        else:
            cached, before = prev
            broke, stable = _break(replay, k, before, rec, prompt, head, scale)
            read = min(cached, stable, prompt)
        usage = _usage(prompt, read, rec, writes)
        cost = rec.rates.of(usage) if rec.rates is not None else None
        same = abs(req.simulated_tokens - own) <= SAME_CONTEXT * max(own, 1)
        out.append(SimulatedRequest(k, usage, cost, broke, same))
        prev = (prompt, rec)
    return WhatIf(tuple(out), recorded, len(replay.compactions), len(replay.recorded))


def _usage(prompt: int, read: int, rec: RequestCost, writes: bool) -> TokenUsage:
    assert rec.usage is not None
    rest = prompt - read
    hour = writes and rec.usage.cache_write_1h > 0
    return TokenUsage(
        prompt=prompt,
        cache_read=read,
        cache_write_5m=rest if writes and not hour else 0,
        cache_write_1h=rest if hour else 0,
        output=rec.usage.output,
        reasoning=rec.usage.reasoning,
    )


def _break(
    replay: Replay,
    k: int,
    before: RequestCost,
    rec: RequestCost,
    prompt: int,
    head: int,
    scale: float,
) -> tuple[str | None, int]:
    """Why the cached prefix ends early at request ``k`` and how long it still is."""
    assert before.usage is not None
    if before.model is not None and rec.model is not None and before.model != rec.model:
        return "model", 0
    ttl = TTL_1H if before.usage.cache_write_1h else TTL_5M
    if before.sent_at is not None and rec.sent_at is not None:
        try:
            if rec.sent_at - before.sent_at > ttl:
                return "ttl", 0
        except TypeError:
            pass
    requests = replay.requests
    if requests[k].segment != requests[k - 1].segment:
        return "compaction", head
    changed = _first_change(replay, k)
    if changed is not None:
        return "prune", head + round(changed * scale)
    return None, prompt


def _first_change(replay: Replay, k: int) -> int | None:
    """Simulated history tokens before the first message sent differently at request ``k``
    than at ``k - 1`` (pruned, truncated or dropped since), or ``None`` when none was.

    Only a prompt that grew by less than its new messages is looked at closely.
    """
    now, then = replay.requests[k], replay.requests[k - 1]
    counts = replay.counts
    added = counts.prefix[now.message_index] - counts.prefix[then.message_index]
    if now.simulated_tokens >= then.simulated_tokens + added:
        return None
    a, b = replay.context_at(k - 1), replay.context_at(k)
    sent_a, sent_b = _sent(a), _sent(b)
    tokens = 0
    for index in range(b.start, then.message_index):
        if sent_a.get(index) != sent_b.get(index):
            return tokens
        tokens += sent_b.get(index, 0)
    return None


def _sent(context: ContextAt) -> dict[int, int]:
    """History index → tokens sent for it (0 when dropped) in one request's context."""
    plan = context.plan
    out: dict[int, int] = {}
    for row in range(len(plan)):
        index = context.history_index(row)
        if index is None:
            continue
        sent = plan.zone(row) is not Zone.DROPPED
        out[index] = plan.effective_tokens[row] if sent else 0
    return out


def simulated_json(whatif: WhatIf, r: int) -> dict[str, object] | None:
    """The per-request ``simulated_cost`` keys."""
    sim = whatif.requests[r]
    if sim is None:
        return None
    return {
        "prompt": sim.usage.prompt,
        "cache_read": sim.usage.cache_read,
        "cost_usd": usd(sim.cost),
        "prefix_broken_by": sim.broke,
    }


def whatif_json(whatif: WhatIf, preset: str) -> dict[str, object]:
    """Recorded against simulated: dollars, cache hit ratio, compactions."""
    return {
        "preset": preset,
        "recorded": {
            "cost_usd": usd(whatif.recorded.total),
            "cache_hit_ratio": whatif.recorded.hit_ratio,
            "compactions": whatif.compactions_recorded,
        },
        "simulated": {
            "cost_usd": usd(whatif.total),
            "cache_hit_ratio": whatif.hit_ratio,
            "compactions": whatif.compactions_simulated,
        },
        "cache_model_agreement": whatif.agreement(),
    }
