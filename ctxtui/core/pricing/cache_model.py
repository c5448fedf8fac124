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

from ctxtui.core.pricing.cost import TTL_1H, TTL_5M, RequestCost, SessionCost, session_cost, usd
from ctxtui.core.pricing.prices import TokenUsage
from ctxtui.core.session.models import Session
from ctxtui.core.simulation.live_context import Segment
from ctxtui.core.simulation.replay import ContextAt, Replay
from ctxtui.core.tokens.calibration import Fit, calibrate, content_chars, live_starts
from ctxtui.core.tokens.counts import SessionCounts

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
    approximated: int = 0  # requests whose prune break was not looked for (``PLAN_BUDGET``)

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
    recorded (``core.pricing.cost.session_cost`` over ``replay.points``); ``scale`` is API tokens
    per replay token (``token_scale``)."""
    counts = replay.counts
    fixed = counts.system_tokens + counts.tool_def_tokens + counts.summary_tokens
    starts = live_starts(replay.session, replay.points)
    writes = any(r.usage is not None and r.usage.cache_write for r in recorded.requests)
    out: list[SimulatedRequest | None] = []
    prev: tuple[int, RequestCost] | None = None  # (simulated API prompt, its record)
    breaks = _Breaks(replay, scale)
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
            broke, stable = breaks.at(k, before, rec, prompt, head)
            read = min(cached, stable, prompt)
        usage = _usage(prompt, read, rec, writes)
        cost = rec.rates.of(usage) if rec.rates is not None else None
        same = abs(req.simulated_tokens - own) <= SAME_CONTEXT * max(own, 1)
        out.append(SimulatedRequest(k, usage, cost, broke, same))
        prev = (prompt, rec)
    return WhatIf(
        tuple(out), recorded, len(replay.compactions), len(replay.recorded), breaks.approximated
    )


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


PLAN_BUDGET = 2_000_000
"""Context rows the what-if may plan to find where a prune broke the prefix; past it, a
request whose earlier messages changed is taken to break after the system prompt and tools
(the dearest case), and ``WhatIf.approximated`` counts those requests."""


class _Breaks:
    """Where the cached prefix ends at each request, with the contexts it had to plan."""

    def __init__(self, replay: Replay, scale: float) -> None:
        self.replay, self.scale = replay, scale
        self.planned = 0
        self.approximated = 0
        self._last: tuple[int, ContextAt] | None = None
        self._known: _Known = {}

    def context(self, k: int) -> ContextAt:
        if self._last is not None and self._last[0] == k:
            return self._last[1]
        context = self.replay.context_at(k)
        self.planned += len(context.session.messages)
        self._last = (k, context)
        return context

    def at(
        self, k: int, before: RequestCost, rec: RequestCost, prompt: int, head: int
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
        requests = self.replay.requests
        if requests[k].segment != requests[k - 1].segment:
            return "compaction", head
        if not self._changed(k):
            return None, prompt
        unplanned = first_change_unplanned(self.replay, k, self._known)
        if isinstance(unplanned, _Unplanned):
            if self.planned > PLAN_BUDGET:
                self.approximated += 1
                return "prune", head
            changed = _first_change(self.context(k - 1), self.context(k))
        else:
            changed = unplanned
        if changed is None:
            return None, prompt
        return "prune", head + round(changed * self.scale)

    def _changed(self, k: int) -> bool:
        """Whether the prompt grew by less than its new messages: an earlier one changed."""
        now, then = self.replay.requests[k], self.replay.requests[k - 1]
        prefix = self.replay.counts.prefix
        added = prefix[now.message_index] - prefix[then.message_index]
        return now.simulated_tokens < then.simulated_tokens + added


class _Unplanned:
    """``first_change_unplanned``'s answer when only a plan can tell."""


UNPLANNED = _Unplanned()


_Known = dict[int, "tuple[int, int] | None"]
"""Per request, its context's pruned outputs when its plan keeps every message, else
``None``: each request is the later of one pair and the earlier of the next."""


def first_change_unplanned(
    replay: Replay, k: int, known: _Known | None = None
) -> int | _Unplanned | None:
    """``_first_change`` of requests ``k - 1`` and ``k`` (one segment) without planning
    either, where the walk's account knows both contexts: pruning is all that can change
    between them. The account names each plan's pruned outputs (a run of the history's
    prunable ones); truncation is the history's, the same in both; and when each context's
    history fits its budget (strictly) with no sanitizer, nothing is left out of either. Else
    ``UNPLANNED``.
    """
    account, policy = replay.account, replay.policy
    if account is None or policy.sanitize_history or not account.pruning:
        return UNPLANNED
    before, now = replay.requests[k - 1], replay.requests[k]
    segment = replay.segments[now.segment]
    known = {} if known is None else known
    ranges = []
    for j in (k - 1, k):
        if j not in known:
            found = account.pruned(segment, replay.requests[j].message_index)
            fits = found is not None and _fits(replay, segment, found[1])
            known[j] = found[0] if found is not None and fits else None
        pruned = known[j]
        if pruned is None:
            return UNPLANNED
        ranges.append(pruned)
    (a1, a2), (b1, b2) = ranges
    first = _first_differing(a1, a2, b1, b2)
    prunable = account.outputs.prunable
    if first is None or prunable[first] >= before.message_index:
        return None  # nothing sent before the earlier request's end changed
    index = prunable[first]  # the history's; its row is index - start + lead
    freed = account.outputs.cum_freed
    upto = max(b1, min(b2, first))  # the later plan's pruned outputs before it
    history = account.prefix[index] - account.prefix[segment.start]
    return segment.stand_in_tokens + history - (freed[upto] - freed[b1])


def _first_differing(a1: int, a2: int, b1: int, b2: int) -> int | None:
    """The least position in exactly one of ``range(a1, a2)`` and ``range(b1, b2)``."""
    if a1 == a2 or b1 == b2:
        if a1 == a2 and b1 == b2:
            return None
        return b1 if a1 == a2 else a1
    if a1 != b1:
        return min(a1, b1)
    return None if a2 == b2 else min(a2, b2)


def _fits(replay: Replay, segment: Segment, prompt: int) -> bool:
    """Whether the context's history, pruned (its ``prompt`` less the fixed parts), is under
    its budget: the plan keeps all of it."""
    policy, account = replay.policy, replay.account
    assert account is not None
    if not policy.assembly_budget:
        return True
    if not (segment.lead or account.bounds.pair[segment.start]):
        return False  # a cut before the first message is not allowed: the plan moves it on
    fixed = account.fixed + segment.meta_summary_tokens
    history = prompt - fixed
    reserved = fixed if policy.reserve_system_and_tools else 0
    return history < policy.context_window - policy.max_tokens - reserved


def _first_change(a: ContextAt, b: ContextAt) -> int | None:
    """Tokens of ``b``'s prompt history before the first row sent differently than in ``a``
    (the same live context one request earlier): pruned, truncated, dropped or excluded
    since. ``None`` when no earlier row changed."""
    pa, pb = a.plan, b.plan
    rows = len(pa)
    changed = set(pa.pruned).symmetric_difference(pb.pruned)
    changed |= set(pa.truncated).symmetric_difference(pb.truncated)
    changed |= pa.excluded.symmetric_difference(pb.excluded)
    low, high = sorted((pa.kept_start, pb.kept_start))
    if low != high:
        changed.add(low)
    first = min((r for r in changed if r < rows), default=None)
    if first is None:
        return None
    start = min(pb.kept_start, first)
    sent = sum(pb.effective_tokens[start:first])
    return sent - sum(pb.effective_tokens[r] for r in pb.excluded if start <= r < first)


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
        "prefix_breaks_approximated": whatif.approximated,
    }


def price_replay(result: Replay) -> WhatIf:
    """``result``'s recorded requests and its simulated run priced, scaled by the session's
    own calibration (what ``replay --json`` and ``compare --replay`` report)."""
    counts = result.counts
    fit = calibrate(result.session, result.points, {counts.tokenizer.used: counts}).fit
    recorded = session_cost(result.session, result.points)
    return what_if(result, recorded, token_scale(result.session, counts, fit))
