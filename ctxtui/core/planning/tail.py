"""The fresh tail: the protected newest messages, by tokens (the plan) or by items (PicoClaw).

Both rules binary-search prefix sums of the effective token counts. Where a boundary may sit
with respect to tool calls is precomputed per session (``Boundaries``), pairing by id, so the
rules hold whatever order the results come in.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ctxtui.core.planning.plan import FreshTail, TailReason
from ctxtui.core.policies.policy import Policy
from ctxtui.core.session.models import Session

Prefix = Callable[[int], int]
"""``prefix(k)`` is Σ tokens of ``messages[:k]``."""

_YES = 1


@dataclass(frozen=True, slots=True)
class Boundaries:
    """Where a cut before message ``b`` (``0 ≤ b ≤ n``) leaves a request providers accept:
    ``pair[b]`` when no call before ``b`` has a result from ``b`` on (X4) and ``b`` is not a
    tool result (an orphan would lead the request); ``b = n`` always."""

    pair: bytearray

    @classmethod
    def of(cls, session: Session) -> Boundaries:
        """Mark every allowed cut: the spans ``[call + 1, result]`` of all pairs, merged, are
        cleared slice by slice, so the cost does not grow with a pair's distance."""
        index = session.index
        n = len(session.messages)
        pair = bytearray(b"\x01") * (n + 1)
        spans = sorted((call + 1, result + 1) for result, call in index.call_of_result.items())
        lo = hi = 0
        for start, stop in spans:
            if start > hi:
                pair[lo:hi] = bytes(hi - lo)
                lo = start
            hi = max(hi, stop)
        pair[lo:hi] = bytes(hi - lo)
        for i in index.tool_results:
            pair[i] = 0
        return cls(pair)

    def pair_forward(self, start: int, stop: int) -> int:
        """The first pair-safe cut in ``[start, stop)``, else ``stop`` (the tail shrinks)."""
        found = self.pair.find(_YES, start, stop)
        return stop if found < 0 else found

    def pair_backward(self, start: int) -> int:
        """The last pair-safe cut at or before ``start``, else 0 (the tail grows)."""
        return max(0, self.pair.rfind(_YES, 0, start + 1))


def effective_budget(window: int, max_tokens: int) -> int:
    """The seahorse adapter's budget: window less the output reserve, or half the window."""
    budget = window - max_tokens
    return budget if budget > 0 else window // 2


def calculate_fresh_tail_budget(budget: int, policy: Policy) -> int:
    """``clamp(int(budget × ratio), min, max)``, capped at the budget itself (X5)."""
    raw = int(budget * policy.tail_ratio)
    clamped = max(policy.tail_min_tokens, min(raw, policy.tail_max_tokens))
    return max(0, min(clamped, budget))


def suffix_start_within(prefix: Prefix, lo: int, hi: int, limit: int) -> int:
    """The smallest ``s`` in ``[lo, hi]`` with Σ tokens of ``messages[s:hi]`` ≤ ``limit``: the
    newest→oldest walk that stops at the first message that does not fit (X1), by bisection."""
    total = prefix(hi)
    while lo < hi:
        mid = (lo + hi) // 2
        if total - prefix(mid) <= limit:
            hi = mid
        else:
            lo = mid + 1
    return lo


def max_turns_start(session: Session, turns: int) -> int:
    """The earliest start a tail of at most ``turns`` turns may take (0: no limit), as
    OpenCode's ``select`` considers only the newest ``DEFAULT_TAIL_TURNS`` turns."""
    starts = session.turn_starts
    if turns <= 0 or len(starts) < turns:
        return 0
    return starts[-turns]


def active_turn_start(session: Session) -> int:
    """Where the active turn begins: the last user message, else the newest call/result unit."""
    starts = session.turn_starts
    if starts:
        return starts[-1]
    last = len(session) - 1
    return session.call_of_result.get(last, last) if last >= 0 else 0


def min_turns_start(session: Session, turns: int) -> int:
    """The latest start that holds the newest ``turns`` turns (all if fewer); turns, not
    messages (X24), and ``turns ≤ 0`` holds nothing (X28)."""
    starts = session.turn_starts
    if turns <= 0 or not starts:
        return len(session)
    return starts[max(0, len(starts) - turns)]


def turns_from(session: Session, start: int) -> int:
    """How many turns begin at or after ``start``."""
    starts = session.turn_starts
    return len(starts) - bisect_left(starts, start)


@dataclass(frozen=True, slots=True)
class _Measured:
    """A session and its messages' prefix sums: what a tail's tokens and turns are read from."""

    session: Session
    prefix: Prefix

    def tail(self, start: int, budget: int, reason: TailReason, min_turns: int = 0) -> FreshTail:
        """The tail from ``start``, measured; over budget when its tokens exceed ``budget``."""
        tokens = self.prefix(len(self.session)) - self.prefix(start)
        return FreshTail(
            start=start,
            budget=budget,
            tokens=tokens,
            reason=reason,
            turns=turns_from(self.session, start),
            min_turns=min_turns,
            over_budget=tokens > budget,
        )


def _floor(session: Session, policy: Policy, bounds: Boundaries) -> int:
    """The latest pair-safe start holding the active turn (if kept whole) and the minimum
    turns; ``len(session)`` when the policy asks for neither."""
    floor = min_turns_start(session, policy.tail_min_turns)
    if policy.tail_keep_active_turn:
        floor = min(floor, active_turn_start(session))
    return bounds.pair_backward(floor) if floor < len(session) else floor


def _floor_reason(session: Session, min_turns: int) -> TailReason:
    """Which floor rule reaches further back: the minimum turns or the active turn."""
    active = active_turn_start(session)
    if min_turns_start(session, min_turns) < active:
        return TailReason.MIN_TURNS
    return TailReason.ACTIVE_TURN


def fresh_tail_by_tokens(
    session: Session,
    prefix: Prefix,
    tail_budget: int,
    policy: Policy,
    bounds: Boundaries | None = None,
) -> FreshTail:
    """The plan's token-aware tail with X1–X5 fixed: contiguous back to the first message that
    does not fit (X1), never starting inside a tool pair or on a result (X4), always holding the
    active turn (X2) and ``tail_min_turns`` turns (X3), over budget if need be."""
    n = len(session)
    min_turns = policy.tail_min_turns
    if n == 0:
        return FreshTail(0, tail_budget, 0, TailReason.EMPTY, 0, min_turns)
    bounds = bounds or Boundaries.of(session)
    lo = max_turns_start(session, policy.tail_max_turns)
    start = suffix_start_within(prefix, lo, n, tail_budget)
    reason = TailReason.WHOLE_SESSION if start == 0 else TailReason.BUDGET
    if start == lo > 0 and prefix(n) - prefix(start - 1) <= tail_budget:
        reason = TailReason.MAX_TURNS
    safe = bounds.pair_forward(start, n)
    if safe != start:
        start, reason = safe, TailReason.TOOL_PAIR
    floor = _floor(session, policy, bounds)
    if start > floor:
        start, reason = floor, _floor_reason(session, min_turns)
    return _Measured(session, prefix).tail(start, tail_budget, reason, min_turns)


def fresh_tail_by_items(
    session: Session,
    prefix: Prefix,
    budget: int,
    policy: Policy,
    bounds: Boundaries | None = None,
) -> FreshTail:
    """Seahorse's tail as ``main`` ships it: the last N items, ``trimFreshTailToSafeBudget``.

    A tail within ``budget`` stays where the count put it, even on an orphaned tool result (the
    sanitizer deals with it). Over it, an active turn over on its own is kept whole (flagged);
    else the oldest items go until the rest fits, and the start moves past tool messages.
    """
    n = len(session)
    min_turns = policy.tail_min_turns
    if n == 0:
        return FreshTail(0, budget, 0, TailReason.EMPTY, 0, min_turns)
    bounds = bounds or Boundaries.of(session)
    start = max(0, n - policy.tail_items)
    reason = TailReason.WHOLE_SESSION if start == 0 else TailReason.ITEMS
    if prefix(n) - prefix(start) > budget:
        starts = session.turn_starts
        last_user = starts[-1] if starts and starts[-1] >= start else None
        if last_user is not None and prefix(n) - prefix(last_user) > budget:
            start, reason = last_user, TailReason.ACTIVE_TURN
        else:
            start = suffix_start_within(prefix, start, n, budget)
            safe = provider_safe_start(session, start)
            reason = TailReason.BUDGET if safe == start else TailReason.TOOL_PAIR
            start = safe
    return _Measured(session, prefix).tail(start, budget, reason, min_turns)


def provider_safe_start(session: Session, start: int) -> int:
    """``trimFreshTailToSafeBudget`` step 3: past leading tool results and tool calls, by role
    only as in ``main`` (a user message between a call and its result is a safe start)."""
    messages = session.messages
    while start < len(messages) and (messages[start].role == "tool" or messages[start].calls_tools):
        start += 1
    return start


def find_safe_boundary(session: Session, target: int) -> int:
    """PicoClaw's ``findSafeBoundary``: last turn start ≤ target if > 0, else the next."""
    starts = session.turn_starts
    i = bisect_right(starts, target)
    if i > 0 and starts[i - 1] > 0:
        return starts[i - 1]
    if i < len(starts):
        return starts[i]
    return 0


def fresh_tail_by_messages(session: Session, prefix: Prefix, budget: int, keep: int) -> FreshTail:
    """PicoClaw legacy's kept history after a summary: ``findSafeBoundary(len − keep)``; the
    whole history when it has ``keep`` messages or fewer or the cut snaps to 0."""
    n = len(session)
    if n == 0:
        return FreshTail(0, budget, 0, TailReason.EMPTY, 0, 0)
    cut = find_safe_boundary(session, n - keep) if n > keep else 0
    reason = TailReason.WHOLE_SESSION if cut == 0 else TailReason.TURN_START
    return _Measured(session, prefix).tail(cut, budget, reason)


def no_fresh_tail(session: Session, prefix: Prefix, budget: int) -> FreshTail:
    """A policy whose compaction keeps nothing verbatim: the tail is empty, at the end."""
    n = len(session)
    reason = TailReason.EMPTY if n == 0 else TailReason.NO_TAIL
    return _Measured(session, prefix).tail(n, budget, reason)


def list_prefix(prefix_sums: Sequence[int]) -> Prefix:
    """A ``Prefix`` over a materialised list of prefix sums."""
    return prefix_sums.__getitem__
