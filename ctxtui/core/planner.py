"""``build_plan``: truncation, fresh tail, pruning, assembly, compaction need and overflow.

Everything that depends only on the session, the counts and the truncation limits (the
truncated previews, the tool-output index, prefix sums) is prepared once and cached by
identity; a knob change then re-plans with binary searches over prefix sums, so re-planning
100k messages costs about what re-planning 1k does.
"""

from __future__ import annotations

import threading
from bisect import bisect_right
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import accumulate

from ctxtui.core.counts import SessionCounts
from ctxtui.core.errors import OverflowInfo
from ctxtui.core.models import Message, PartKind, Session
from ctxtui.core.plan import (
    CompactionNeed,
    FreshTail,
    Plan,
    TailReason,
    Totals,
    TruncatedOutput,
)
from ctxtui.core.policy import PRESETS, CompactionStyle, Policy, PruneMode, TailMode, fit_reserve
from ctxtui.core.prune import (
    EffectiveTokens,
    PrunedRun,
    StubCost,
    ToolOutputs,
    index_tool_outputs,
    prune_by_tokens,
    prune_by_turns,
)
from ctxtui.core.reasons import CompactReason
from ctxtui.core.tail import (
    Boundaries,
    calculate_fresh_tail_budget,
    effective_budget,
    fresh_tail_by_items,
    fresh_tail_by_tokens,
    list_prefix,
    min_turns_start,
    suffix_start_within,
)
from ctxtui.core.tokenizers import Tokenizer
from ctxtui.core.truncate import byte_size, count_lines, planned_path, render
from ctxtui.core.wording import plural

SUMMARY_CAP = 1_200
"""Seahorse's leaf-summary ceiling: a summary is at most min(1,200, 35 % of its input) tokens."""
SUMMARY_SHARE = 0.35


def with_content(message: Message, content: str) -> Message:
    """``message`` as the model would see it with ``content`` instead of its text parts."""
    parts = tuple(p for p in message.parts if p.kind is not PartKind.TEXT)
    return message.model_copy(update={"content": content, "parts": parts})


@dataclass(frozen=True, slots=True)
class _Prepared:
    """What no knob but the truncation limits can change, kept between re-plans."""

    session: Session
    counts: SessionCounts
    tokenizer: Tokenizer
    truncated: Mapping[int, TruncatedOutput]
    tokens: Sequence[int]  # per message, after truncation
    prefix: Sequence[int]
    outputs: ToolOutputs
    bounds: Boundaries


_Key = tuple[int, int, int, int, int]
_CACHE: OrderedDict[_Key, _Prepared] = OrderedDict()
_CACHE_SIZE = 8
_LOCK = threading.Lock()


def _truncate(
    session: Session, counts: SessionCounts, tokenizer: Tokenizer, max_lines: int, max_bytes: int
) -> dict[int, TruncatedOutput]:
    """Every tool result over the limits, counted as the text the model would see instead.

    A text of at most ``max_lines`` characters cannot have more lines, and one of at most
    ``max_bytes / 4`` characters cannot have more UTF-8 bytes, so most results are passed
    over without counting either.
    """
    out: dict[int, TruncatedOutput] = {}
    short = min(max_lines, max_bytes // 4)
    for i, message in enumerate(session.messages):
        if message.role != "tool" or len(message.content) <= short:
            continue
        text = message.content
        lines, size = count_lines(text), byte_size(text)
        if lines <= max_lines and size <= max_bytes:
            continue
        shown = render(text, max_lines, max_bytes, planned_path(message.tool_name or "tool"))
        after = tokenizer.count_message(with_content(message, shown.text))
        out[i] = TruncatedOutput(
            index=i,
            tokens_before=counts.message_tokens[i],
            tokens_after=after,
            lines=lines,
            bytes=size,
        )
    return out


def _prepare(
    session: Session, counts: SessionCounts, tokenizer: Tokenizer, policy: Policy
) -> _Prepared:
    limits = (
        (policy.truncate_max_lines, policy.truncate_max_bytes)
        if policy.truncate_enabled
        else (0, 0)
    )
    key = (id(session), id(counts), id(tokenizer), *limits)
    with _LOCK:
        hit = _CACHE.get(key)
        if hit is not None and hit.session is session and hit.counts is counts:
            _CACHE.move_to_end(key)
            return hit
    truncated = _truncate(session, counts, tokenizer, *limits) if policy.truncate_enabled else {}
    tokens: Sequence[int] = counts.message_tokens
    prefix: Sequence[int] = counts.prefix
    if truncated:
        adjusted = list(tokens)
        for i, t in truncated.items():
            adjusted[i] = t.tokens_after
        tokens, prefix = adjusted, [0, *accumulate(adjusted)]
    messages = session.messages
    stub_cost = StubCost(tokenizer.count_message)
    outputs = index_tool_outputs(session, tokens, lambda i: stub_cost(messages[i]))
    bounds = Boundaries.of(session)
    prepared = _Prepared(session, counts, tokenizer, truncated, tokens, prefix, outputs, bounds)
    with _LOCK:
        _CACHE[key] = prepared
        while len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)
    return prepared


def _prune(session: Session, policy: Policy, outputs: ToolOutputs, tail_start: int) -> PrunedRun:
    """Prune by the policy's rule, never inside the fresh tail."""
    if policy.prune_mode is PruneMode.TURNS:
        protected = min_turns_start(session, policy.prune_protected_turns)
        return prune_by_turns(outputs, min(tail_start, protected), policy.prune_threshold)
    if policy.prune_mode is PruneMode.TOKENS:
        return prune_by_tokens(
            outputs, tail_start, policy.prune_protect_tokens, policy.prune_minimum_tokens
        )
    return PrunedRun(outputs)


def find_safe_boundary(session: Session, target: int) -> int:
    """PicoClaw's ``findSafeBoundary`` (§2.9): last turn start ≤ target if > 0, else the next."""
    starts = session.turn_starts
    i = bisect_right(starts, target)
    if i > 0 and starts[i - 1] > 0:
        return starts[i - 1]
    if i < len(starts):
        return starts[i]
    return 0


def force_compression_cut(session: Session) -> int:
    """Where PicoClaw's legacy ``forceCompression`` cuts: about half of the turns go (§2.9).

    When its cut would be 0 it keeps only the last user message; the cut is then that message.
    """
    n = len(session)
    if n <= 2:
        return 0
    starts = session.turn_starts
    mid = starts[len(starts) // 2] if len(starts) >= 2 else find_safe_boundary(session, n // 2)
    if mid <= 0:
        return starts[-1] if starts else 0
    return mid


def emergency_note(dropped: int) -> str:
    """The note PicoClaw's ``forceCompression`` appends to the summary, byte for byte (§2.9)."""
    return f"[Emergency compression dropped {dropped} oldest messages due to context limit]"


def is_over_context_budget(
    prompt_tokens: int, max_tokens: int, window: int, trigger_ratio: float = 1.0
) -> bool:
    """PicoClaw's proactive check (§2.8): prompt + reserve ``>`` the trigger, strictly."""
    return prompt_tokens + max_tokens > int(trigger_ratio * window)


def _compaction_need(
    session: Session, policy: Policy, totals: Totals, tail: FreshTail, effective: EffectiveTokens
) -> CompactionNeed:
    """Whether the request is over the trigger (strict ``>``, §2.8) and what would be replaced."""
    ratio, window = policy.compact_trigger_ratio, policy.context_window
    trigger = int(ratio * window)
    needed = is_over_context_budget(totals.tokens, totals.output_reserve, window, ratio)
    if policy.compaction_style is CompactionStyle.DROP_OLDEST_HALF:
        cut = force_compression_cut(session)
    else:
        cut = tail.start
    replaced = (0, cut - 1) if cut > 0 else None
    return CompactionNeed(
        needed=needed,
        reason=CompactReason.PROACTIVE if needed else None,
        replaced=replaced,
        tokens_before=effective.prefix(cut),
        trigger_tokens=trigger,
    )


def _overflow(
    session: Session,
    policy: Policy,
    totals: Totals,
    need: CompactionNeed,
    effective: EffectiveTokens,
    tokenizer: Tokenizer,
) -> OverflowInfo | None:
    """The request after compaction, if it still exceeds the window (X9 and X12 fixed)."""
    cut = need.replaced[1] + 1 if need.replaced is not None else 0
    rest = effective.prefix(len(session)) - effective.prefix(cut)
    if policy.compaction_style is CompactionStyle.DROP_OLDEST_HALF:
        label = "remaining history"
        summary = totals.summary + (tokenizer.count_text(emergency_note(cut)) if cut else 0)
    else:
        label = "fresh tail"
        estimate = min(SUMMARY_CAP, int(SUMMARY_SHARE * need.tokens_before))
        summary = estimate if cut else totals.summary
    fixed = totals.system + totals.tool_defs + totals.output_reserve
    requested = fixed + summary + rest
    window = totals.window
    if requested <= window:
        return None
    if fixed > window:
        reason = (
            f"system prompt ({totals.system:,}) + tool definitions ({totals.tool_defs:,}) + "
            f"output reserve ({totals.output_reserve:,}) exceed the window on their own"
        )
    elif fixed + rest > window:
        reason = (
            f"the {label} ({rest:,} tokens) does not fit beside the system prompt, tool "
            f"definitions and output reserve ({fixed:,} tokens)"
        )
    else:
        reason = (
            f"the summary (~{summary:,} tokens) takes the {label} ({rest:,} tokens) "
            f"{requested - window:,} tokens past the window"
        )
    return OverflowInfo(
        model=session.meta.model or "unknown",
        context_window=window,
        requested_tokens=requested,
        reason=reason,
    )


def _warnings(
    session: Session, policy: Policy, tail: FreshTail, reserved: int, history: int
) -> tuple[str, ...]:
    """Facts worth a line in the app: over-budget tails, orphans, budgets that do not add up."""
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
    budget = effective_budget(policy.context_window, policy.max_tokens)
    if policy.tail_mode is TailMode.TOKENS and policy.tail_min_tokens > history:
        out.append(
            f"tail_min_tokens ({policy.tail_min_tokens:,}) exceeds the history budget "
            f"({history:,}); the fresh tail is capped at it"
        )
    if reserved and reserved >= budget:
        out.append(
            f"system prompt, tool definitions and summary ({reserved:,} tokens) leave no room "
            "for history"
        )
    base = PRESETS.get(policy.preset, {}).get("max_tokens")
    if (
        isinstance(base, int)
        and base != policy.max_tokens
        and policy.max_tokens == fit_reserve(policy.context_window, base)
    ):
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
    """The plan's tail budget: ``clamp(ratio × (window − reserve))``, capped at the history budget.

    The ratio applies to the adapter budget as in the plan (§1.4); the cap is X5's check that
    the tail fits what assembly has, which after X42's reserve is the history budget, not
    ``window − reserve``: a large system prompt must shrink the tail, not overflow the request.
    """
    base = calculate_fresh_tail_budget(
        effective_budget(policy.context_window, policy.max_tokens), policy
    )
    return min(base, history)


def build_plan(
    session: Session, policy: Policy, counts: SessionCounts, tokenizer: Tokenizer
) -> Plan:
    """The plan for ``session`` under ``policy``; the session is never modified."""
    if len(counts) != len(session):
        raise ValueError(
            f"counts cover {len(counts):,} messages but the session has {len(session):,}"
        )
    prepared = _prepare(session, counts, tokenizer, policy)
    n = len(session)
    budget = history_budget(policy, counts)
    counted = list_prefix(prepared.prefix)
    bounds = prepared.bounds
    items = policy.tail_mode is TailMode.ITEMS
    if items:
        tail = fresh_tail_by_items(session, counted, budget, policy, bounds)
    else:
        tail = fresh_tail_by_tokens(session, counted, tail_budget(policy, budget), policy, bounds)
    pruned = _prune(session, policy, prepared.outputs, tail.start)
    effective = EffectiveTokens(prepared.tokens, prepared.prefix, pruned)
    prefix = effective.prefix
    remaining = max(0, budget - tail.tokens)
    kept_start = suffix_start_within(prefix, 0, tail.start, remaining)
    safe_forward = bounds.clean_forward if items else bounds.pair_forward
    kept_start = safe_forward(kept_start, tail.start)
    totals = Totals(
        window=policy.context_window,
        output_reserve=policy.max_tokens,
        system=counts.system_tokens,
        tool_defs=counts.tool_def_tokens,
        summary=counts.summary_tokens,
        history=prefix(n),
        kept=prefix(tail.start) - prefix(kept_start),
        tail=tail.tokens,
        dropped=prefix(kept_start),
    )
    need = _compaction_need(session, policy, totals, tail, effective)
    overflow = (
        _overflow(session, policy, totals, need, effective, tokenizer) if need.needed else None
    )
    return Plan(
        policy=policy,
        tokenizer=counts.tokenizer,
        message_tokens=counts.message_tokens,
        effective_tokens=effective,
        kept_start=kept_start,
        tail=tail,
        totals=totals,
        compaction=need,
        overflow=overflow,
        pruned=pruned,
        truncated=prepared.truncated,
        warnings=_warnings(session, policy, tail, reserved_tokens(policy, counts), budget),
    )
