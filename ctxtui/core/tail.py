"""The fresh tail: the protected newest messages, by tokens (the plan) or by items (PicoClaw).

Both rules work on prefix sums of the effective (post-truncation) token counts and find their
boundary by binary search, so the cost of placing the boundary does not grow with the session.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Sequence

from ctxtui.core.models import Session
from ctxtui.core.plan import FreshTail, TailReason
from ctxtui.core.policy import Policy

Prefix = Callable[[int], int]
"""``prefix(k)`` is Σ tokens of ``messages[:k]``."""


def effective_budget(window: int, max_tokens: int) -> int:
    """The seahorse adapter's budget (§2.4): window less the output reserve, or half the window."""
    budget = window - max_tokens
    return budget if budget > 0 else window // 2


def calculate_fresh_tail_budget(budget: int, policy: Policy) -> int:
    """``clamp(int(budget × ratio), min, max)``, capped at the budget itself (X5)."""
    raw = int(budget * policy.tail_ratio)
    clamped = max(policy.tail_min_tokens, min(raw, policy.tail_max_tokens))
    return max(0, min(clamped, budget))


def suffix_start_within(prefix: Prefix, lo: int, hi: int, limit: int) -> int:
    """The smallest ``s`` in ``[lo, hi]`` with Σ tokens of ``messages[s:hi]`` ≤ ``limit``.

    This is the newest→oldest walk that stops at the first message that does not fit (X1,
    §2.5), done by binary search: suffix sums only grow as ``s`` moves back.
    """
    total = prefix(hi)
    while lo < hi:
        mid = (lo + hi) // 2
        if total - prefix(mid) <= limit:
            hi = mid
        else:
            lo = mid + 1
    return lo


def pair_safe_start(session: Session, start: int, stop: int) -> int:
    """Move ``start`` forward past tool results, so no result is cut off from its call (X4).

    Importers put a call's results right after it, so a boundary that separates a pair always
    lands on a tool message; results whose call is missing (orphans) are skipped the same way.
    """
    messages = session.messages
    while start < stop and messages[start].role == "tool":
        start += 1
    return start


def provider_safe_start(session: Session, start: int, stop: int) -> int:
    """PicoClaw's provider-safe start (§2.5): drop leading tool results and tool-call messages."""
    messages = session.messages
    while start < stop and (messages[start].role == "tool" or messages[start].calls_tools):
        start += 1
    return start


def active_turn_start(session: Session) -> int:
    """Where the active turn begins: the last user message, else the newest call/result unit."""
    starts = session.turn_starts
    if starts:
        return starts[-1]
    last = len(session) - 1
    return session.call_of_result.get(last, last) if last >= 0 else 0


def min_turns_start(session: Session, turns: int) -> int:
    """The latest start that still holds the newest ``turns`` turns (all of them if fewer)."""
    starts = session.turn_starts
    if turns <= 0 or not starts:
        return len(session)
    return starts[max(0, len(starts) - turns)]


def turns_from(session: Session, start: int) -> int:
    """How many turns begin at or after ``start``."""
    starts = session.turn_starts
    return len(starts) - bisect_left(starts, start)


def fresh_tail_by_tokens(
    session: Session, prefix: Prefix, tail_budget: int, policy: Policy
) -> FreshTail:
    """The plan's token-aware tail with X1–X5 fixed.

    Contiguous from the newest message back to the first one that does not fit; never started
    on a tool result; always holding the whole active turn and at least ``tail_min_turns``
    turns, over budget if need be.
    """
    n = len(session)
    min_turns = policy.tail_min_turns
    if n == 0:
        return FreshTail(0, tail_budget, 0, TailReason.EMPTY, 0, min_turns)
    start = suffix_start_within(prefix, 0, n, tail_budget)
    reason = TailReason.WHOLE_SESSION if start == 0 else TailReason.BUDGET
    safe = pair_safe_start(session, start, n)
    if safe != start:
        start, reason = safe, TailReason.TOOL_PAIR
    active = active_turn_start(session)
    floor = min(active, min_turns_start(session, min_turns))
    if start > floor:
        reason = TailReason.ACTIVE_TURN if floor == active else TailReason.MIN_TURNS
        start = floor
    tokens = prefix(n) - prefix(start)
    return FreshTail(
        start=start,
        budget=tail_budget,
        tokens=tokens,
        reason=reason,
        turns=turns_from(session, start),
        min_turns=min_turns,
        over_budget=tokens > tail_budget,
    )


def fresh_tail_by_items(session: Session, prefix: Prefix, budget: int, policy: Policy) -> FreshTail:
    """PicoClaw's tail as shipped: the last N items, then ``trimFreshTailToSafeBudget`` (§2.5).

    ``budget`` is the assembly budget. Over it, the active turn is kept whole (and flagged);
    otherwise the oldest items go until the rest fits, then leading tool results and tool-call
    messages go too (provider-safe start).
    """
    n = len(session)
    min_turns = policy.tail_min_turns
    if n == 0:
        return FreshTail(0, budget, 0, TailReason.EMPTY, 0, min_turns)
    start = max(0, n - policy.tail_items)
    reason = TailReason.WHOLE_SESSION if start == 0 else TailReason.ITEMS
    if prefix(n) - prefix(start) > budget:
        starts = session.turn_starts
        last_user = starts[-1] if starts and starts[-1] >= start else None
        if last_user is not None and prefix(n) - prefix(last_user) > budget:
            start, reason = last_user, TailReason.ACTIVE_TURN
        else:
            start, reason = suffix_start_within(prefix, start, n, budget), TailReason.BUDGET
            safe = provider_safe_start(session, start, n)
            if safe != start:
                start, reason = safe, TailReason.TOOL_PAIR
    tokens = prefix(n) - prefix(start)
    return FreshTail(
        start=start,
        budget=budget,
        tokens=tokens,
        reason=reason,
        turns=turns_from(session, start),
        min_turns=min_turns,
        over_budget=tokens > budget,
    )


def list_prefix(prefix_sums: Sequence[int]) -> Prefix:
    """A ``Prefix`` over a materialised list of prefix sums."""
    return prefix_sums.__getitem__
