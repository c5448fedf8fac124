"""``build_plan``: truncation, fresh tail, pruning, assembly, compaction need and overflow.

What depends only on the session, the counts and the truncation limits is prepared once and
cached by identity, so a knob change re-plans by binary searches over prefix sums.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from itertools import accumulate

from ctxtui.core.planning.compaction_need import SizedRequest, compaction_need, forecast_overflow
from ctxtui.core.planning.picoclaw_sanitize import (
    PairIndex,
    SanitizerRun,
    sanitize_ranges,
    unpaired_sent,
)
from ctxtui.core.planning.plan import (
    FreshTail,
    Plan,
    TailReason,
    Totals,
    TruncatedOutput,
)
from ctxtui.core.planning.prune import (
    EffectiveTokens,
    PrunedRun,
    PruneRule,
    StubCost,
    ToolOutputs,
    index_tool_outputs,
    output_size,
    prune_by_results,
    prune_by_tokens,
    prune_by_turns,
)
from ctxtui.core.planning.tail import (
    Boundaries,
    calculate_fresh_tail_budget,
    effective_budget,
    fresh_tail_by_items,
    fresh_tail_by_messages,
    fresh_tail_by_tokens,
    list_prefix,
    min_turns_start,
    no_fresh_tail,
    suffix_start_within,
)
from ctxtui.core.planning.truncated_previews import truncated_outputs
from ctxtui.core.policies.modes import PruneMode, TailMode
from ctxtui.core.policies.policy import Policy
from ctxtui.core.session.models import Session
from ctxtui.core.tokens.counts import SessionCounts
from ctxtui.core.tokens.tokenizers import Tokenizer
from ctxtui.core.wording import plural

__all__ = [
    "PlanHints",
    "build_plan",
    "history_budget",
    "prune_due",
    "reserved_tokens",
    "tail_budget",
]


@dataclass(frozen=True, slots=True)
class PlanHints:
    """What a replay already holds for these messages, so a plan need not build it again: the
    truncated outputs, the tool outputs' index and the cut boundaries (``None``: build it)."""

    truncated: Mapping[int, TruncatedOutput] | None = None
    outputs: ToolOutputs | None = None
    bounds: Boundaries | None = None


NO_HINTS = PlanHints()


@dataclass(frozen=True, slots=True)
class _Prepared:
    """What no knob but the truncation and stub settings can change, kept between re-plans."""

    session: Session
    counts: SessionCounts
    tokenizer: Tokenizer
    truncated: Mapping[int, TruncatedOutput]
    tokens: Sequence[int]  # per message, after truncation
    prefix: Sequence[int]
    outputs: ToolOutputs
    bounds: Boundaries
    lazy: dict[str, object]  # per-session indices only some policies need, built on first use

    def sanitizer(self) -> SanitizerRun:
        run = self.lazy.get("sanitizer")
        if not isinstance(run, SanitizerRun):
            run = self.lazy["sanitizer"] = SanitizerRun.of(self.session)
        return run

    def pairs(self) -> PairIndex:
        index = self.lazy.get("pairs")
        if not isinstance(index, PairIndex):
            index = self.lazy["pairs"] = PairIndex.of(self.session)
        return index


_Key = tuple[object, ...]
_CACHE: OrderedDict[_Key, _Prepared] = OrderedDict()
_CACHE_SIZE = 8
_LOCK = threading.Lock()


def _prepare(
    session: Session,
    counts: SessionCounts,
    tokenizer: Tokenizer,
    policy: Policy,
    hints: PlanHints = NO_HINTS,
) -> _Prepared:
    limits = (
        (policy.truncate_max_lines, policy.truncate_max_bytes, policy.truncate_style.value)
        if policy.truncate_enabled
        else (0, 0, "")
    )
    stub = policy.prune_stub.value
    tools = policy.prune_tools.value
    raw = policy.prune_size_output_text
    key = (id(session), id(counts), id(tokenizer), *limits, stub, tools, raw)
    with _LOCK:
        hit = _CACHE.get(key)
        if hit is not None and hit.session is session and hit.counts is counts:
            _CACHE.move_to_end(key)
            return hit
    if not policy.truncate_enabled:
        truncated: Mapping[int, TruncatedOutput] = {}
    elif hints.truncated is not None:
        truncated = hints.truncated
    else:
        truncated = truncated_outputs(session, counts, tokenizer, policy)
    tokens: Sequence[int] = counts.message_tokens
    prefix: Sequence[int] = counts.prefix
    if truncated:
        adjusted = list(tokens)
        for i, t in truncated.items():
            adjusted[i] = t.tokens_after
        tokens, prefix = adjusted, [0, *accumulate(adjusted)]
    messages = session.messages
    stub_cost = StubCost(tokenizer.count_message, stub)
    outputs = (
        hints.outputs
        if hints.outputs is not None
        else index_tool_outputs(
            session,
            tokens,
            lambda i: stub_cost(messages[i]),
            PruneRule(stub, tools, output_size(policy, tokenizer, messages, tokens, truncated)),
        )
    )
    bounds = hints.bounds if hints.bounds is not None else Boundaries.of(session)
    prepared = _Prepared(session, counts, tokenizer, truncated, tokens, prefix, outputs, bounds, {})
    with _LOCK:
        _CACHE[key] = prepared
        while len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)
    return prepared


def _unpruned(counts: SessionCounts, prepared: _Prepared) -> int:
    """The prompt before pruning: system, tools, summary and the (truncated) history."""
    fixed = counts.system_tokens + counts.tool_def_tokens + counts.summary_tokens
    return fixed + prepared.prefix[len(prepared.tokens)]


def prune_due(policy: Policy, unpruned_prompt: int) -> bool:
    """Whether pruning runs for a prompt of this size before pruning: Claude Code clears old
    tool results only past ``prune_trigger_tokens``."""
    return unpruned_prompt >= policy.prune_trigger_tokens


def _prune(
    session: Session, policy: Policy, outputs: ToolOutputs, tail_start: int, unpruned: int
) -> PrunedRun:
    """Prune by the policy's rule, never inside the fresh tail, once the prompt is past
    ``prune_trigger_tokens``."""
    mode = policy.prune_mode
    if not prune_due(policy, unpruned):
        return PrunedRun(outputs)
    if mode is PruneMode.TURNS:
        protected = min_turns_start(session, policy.prune_protected_turns)
        return prune_by_turns(outputs, min(tail_start, protected), policy.prune_threshold)
    if mode is PruneMode.TOKENS:
        protected = min_turns_start(session, policy.prune_protected_turns)
        return prune_by_tokens(
            outputs,
            min(tail_start, protected),
            policy.prune_protect_tokens,
            policy.prune_minimum_tokens,
        )
    if mode is PruneMode.RESULTS:
        return prune_by_results(outputs, tail_start, policy.prune_keep_results)
    return PrunedRun(outputs)


def _fresh_tail(
    session: Session, prefix: Callable[[int], int], budget: int, policy: Policy, bounds: Boundaries
) -> FreshTail:
    """The tail by the policy's mode."""
    mode = policy.tail_mode
    if mode is TailMode.ITEMS:
        return fresh_tail_by_items(session, prefix, budget, policy, bounds)
    if mode is TailMode.MESSAGES:
        return fresh_tail_by_messages(session, prefix, budget, policy.tail_items)
    if mode is TailMode.NONE:
        return no_fresh_tail(session, prefix, budget)
    return fresh_tail_by_tokens(session, prefix, tail_budget(policy, budget), policy, bounds)


@dataclass(frozen=True, slots=True)
class _Assembly:
    """What the request carries: ``messages[kept_start:]`` less ``excluded``."""

    kept_start: int
    ranges: tuple[tuple[int, int], ...]  # the runs sent one after another
    hole: range  # seahorse: trimmed tail items between the kept history and the tail


def _assemble(
    prepared: _Prepared, policy: Policy, tail: FreshTail, prefix: Callable[[int], int], budget: int
) -> _Assembly:
    """Fill the history before the tail newest-first, stopping at the first message that misses,
    from a pair-safe cut (X4); seahorse's trimmed tail items stay out, leaving a hole."""
    n = len(prepared.session)
    if not policy.assembly_budget:
        return _Assembly(0, ((0, n),), range(0))
    remaining = max(0, budget - tail.tokens)
    if policy.tail_mode is TailMode.ITEMS:
        evict_end = min(max(0, n - policy.tail_items), tail.start)
        kept = suffix_start_within(prefix, 0, evict_end, remaining)
        if kept < evict_end < tail.start:
            return _Assembly(
                kept, ((kept, evict_end), (tail.start, n)), range(evict_end, tail.start)
            )
        kept = kept if kept < evict_end else tail.start
        return _Assembly(kept, ((kept, n),), range(0))
    kept = suffix_start_within(prefix, 0, tail.start, remaining)
    kept = prepared.bounds.pair_forward(kept, tail.start)
    return _Assembly(kept, ((kept, n),), range(0))


@dataclass(frozen=True, slots=True)
class _Sent:
    """What the request carries, ``messages[kept_start:]`` less ``excluded`` (seahorse's hole,
    the pairs PicoClaw's sanitizer drops), and what that sanitizer found."""

    kept_start: int
    excluded: frozenset[int]
    unpaired: Mapping[int, str]  # tool messages PicoClaw main would send without their partner
    unmatched: Sequence[int]  # messages the sanitizer drops because their ids do not pair


def _sent(prepared: _Prepared, policy: Policy, assembly: _Assembly) -> _Sent:
    """The assembled ranges less what PicoClaw's request sanitizer drops, if the policy runs it."""
    excluded = frozenset(assembly.hole)
    if not (policy.sanitize_history and len(prepared.session)):
        return _Sent(assembly.kept_start, excluded, {}, ())
    sanitized = sanitize_ranges(prepared.session, prepared.sanitizer(), assembly.ranges)
    excluded |= sanitized.dropped
    unpaired = unpaired_sent(prepared.pairs(), assembly.ranges, excluded)
    return _Sent(assembly.kept_start, excluded, unpaired, sanitized.by_pairing)


def _warnings(
    session: Session, policy: Policy, counts: SessionCounts, tail: FreshTail, sent: _Sent
) -> tuple[str, ...]:
    """Facts worth a line in the app: over-budget tails, orphans, budgets that do not add up."""
    reserved, history = reserved_tokens(policy, counts), history_budget(policy, counts)
    unpaired, unmatched = sent.unpaired, sent.unmatched
    out: list[str] = []
    if tail.over_budget:
        if tail.reason is TailReason.ACTIVE_TURN:
            out.append(
                f"the fresh tail holds the whole active turn, {tail.tokens:,} tokens, over its "
                f"{tail.budget:,}-token budget"
            )
        else:
            out.append(
                f"the last {plural(tail.min_turns, 'turn')} "
                f"{'takes' if tail.min_turns == 1 else 'take'} the fresh tail to "
                f"{tail.tokens:,} tokens, over its {tail.budget:,}-token budget"
            )
    orphans = len(session.orphan_results)
    if orphans:
        noun = "result has" if orphans == 1 else "results have"
        out.append(f"{orphans:,} tool {noun} no matching call (orphans)")
    if unpaired:
        shown = ", ".join(f"#{i:,}" for i in sorted(unpaired)[:5])
        more = "…" if len(unpaired) > 5 else ""
        out.append(
            f"PicoClaw main would send {len(unpaired):,} tool message(s) without their "
            f"partner ({shown}{more}); providers reject such a request"
        )
    if unmatched:
        shown = ", ".join(f"#{i:,}" for i in unmatched[:5])
        more = "…" if len(unmatched) > 5 else ""
        out.append(
            f"PicoClaw's request sanitizer drops {len(unmatched):,} message(s) whose tool "
            f"calls and results do not pair by id ({shown}{more})"
        )
    budget = effective_budget(policy.context_window, policy.max_tokens)
    if policy.tail_mode is TailMode.TOKENS and policy.tail_min_tokens > history:
        out.append(
            f"the fresh tail's minimum ({policy.tail_min_tokens:,} tokens) exceeds the history "
            f"budget ({history:,}); the fresh tail is capped at it"
        )
    if reserved and reserved >= budget:
        out.append(
            f"system prompt, tool definitions and summary ({reserved:,} tokens) leave no room "
            "for history"
        )
    base = policy.reserve_lowered_from
    if base:
        out.append(
            f"output reserve lowered from {base:,} to {policy.max_tokens:,}: the preset's "
            f"reserve would take half or more of the {policy.context_window:,}-token window"
        )
    return tuple(out)


def reserved_tokens(policy: Policy, counts: SessionCounts) -> int:
    """System prompt, tool definitions and summary, if the policy reserves room for them (X42)."""
    if not policy.reserve_system_and_tools:
        return 0
    return counts.system_tokens + counts.tool_def_tokens + counts.summary_tokens


def history_budget(policy: Policy, counts: SessionCounts) -> int:
    """Tokens left for messages: window − reserve − (system + tools + summary, if reserved, X42)."""
    return max(0, policy.context_window - policy.max_tokens - reserved_tokens(policy, counts))


def tail_budget(policy: Policy, history: int) -> int:
    """The token tail's budget: ``clamp(ratio × base)``, capped at the history budget (X5, so a
    large system prompt shrinks the tail). The base is ``window − reserve`` (docs/plan.md), or
    the trigger's threshold with ``tail_of_trigger`` (OpenCode's 25 % of the usable size)."""
    base = (
        policy.trigger_threshold
        if policy.tail_of_trigger
        else effective_budget(policy.context_window, policy.max_tokens)
    )
    return min(calculate_fresh_tail_budget(base, policy), history)


def _excluded_tokens(effective: EffectiveTokens, excluded: frozenset[int], lo: int, hi: int) -> int:
    return sum(effective[i] for i in excluded if lo <= i < hi)


def _totals(
    policy: Policy, counts: SessionCounts, effective: EffectiveTokens, tail: FreshTail, sent: _Sent
) -> Totals:
    """The request's parts in tokens: messages left out of a sent range (a hole, a sanitised
    pair) count as dropped, not as kept or tail."""
    kept_start, excluded = sent.kept_start, sent.excluded
    prefix = effective.prefix
    n = len(counts)
    out_of_tail = _excluded_tokens(effective, excluded, tail.start, n)
    out_of_kept = _excluded_tokens(effective, excluded, kept_start, tail.start)
    return Totals(
        window=policy.context_window,
        output_reserve=policy.max_tokens,
        system=counts.system_tokens,
        tool_defs=counts.tool_def_tokens,
        summary=counts.summary_tokens,
        history=prefix(n),
        kept=prefix(tail.start) - prefix(kept_start) - out_of_kept,
        tail=tail.tokens - out_of_tail,
        dropped=prefix(kept_start) + out_of_kept + out_of_tail,
        trigger=policy.trigger,
    )


def build_plan(
    session: Session,
    policy: Policy,
    counts: SessionCounts,
    tokenizer: Tokenizer,
    hints: PlanHints = NO_HINTS,
) -> Plan:
    """The plan for ``session`` under ``policy``; the session is never modified. A replay
    passes as ``hints`` the truncated outputs, outputs index and cut bounds it already has
    for these messages."""
    if len(counts) != len(session):
        raise ValueError(
            f"counts cover {len(counts):,} messages but the session has {len(session):,}"
        )
    prepared = _prepare(session, counts, tokenizer, policy, hints)
    budget = history_budget(policy, counts)
    tail = _fresh_tail(session, list_prefix(prepared.prefix), budget, policy, prepared.bounds)
    pruned = _prune(session, policy, prepared.outputs, tail.start, _unpruned(counts, prepared))
    effective = EffectiveTokens(prepared.tokens, prepared.prefix, pruned)
    sent = _sent(prepared, policy, _assemble(prepared, policy, tail, effective.prefix, budget))
    sized = SizedRequest(session, policy, effective, _totals(policy, counts, effective, tail, sent))
    need = compaction_need(sized, tail)
    overflow = forecast_overflow(sized, need, tokenizer) if need.needed else None
    return Plan(
        policy=policy,
        tokenizer=counts.tokenizer,
        message_tokens=counts.message_tokens,
        effective_tokens=effective,
        kept_start=sent.kept_start,
        tail=tail,
        totals=sized.totals,
        compaction=need,
        overflow=overflow,
        pruned=pruned,
        truncated=prepared.truncated,
        warnings=_warnings(session, policy, counts, tail, sent),
        excluded=sent.excluded,
        unpaired=sent.unpaired,
    )
