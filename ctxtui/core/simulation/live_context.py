"""The live context of a replay: the prompt at each request, advanced by prefix sums.

Between two simulated compactions the live context is one ``Segment``: optionally a stand-in
summary message, then ``history[start:stop]`` where ``stop`` is the request's message index.
Its prompt is what ``build_plan`` would give for that context (system + tools + summary +
history after truncation and pruning), but computed from the whole history's prefix sums,
tool-output index and cut marks, prepared once: each request costs a few binary searches
instead of a plan. ``live_session`` builds the context as a real ``Session`` for the cases
that need one (a compaction, a cursor asking what the model saw); the tests check that both
agree.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from itertools import accumulate

from ctxtui.core.planning.plan import TruncatedOutput
from ctxtui.core.planning.planner import history_budget, tail_budget
from ctxtui.core.planning.prune import (
    PruneRule,
    StubCost,
    ToolOutputs,
    index_tool_outputs,
    output_size,
)
from ctxtui.core.planning.tail import Boundaries
from ctxtui.core.policies.modes import PruneMode, TailMode
from ctxtui.core.policies.policy import Policy
from ctxtui.core.session.models import Message, Session, SessionIndex
from ctxtui.core.tokens.counts import SessionCounts
from ctxtui.core.tokens.tokenizers import Tokenizer, TokenizerInfo


@dataclass(frozen=True, slots=True)
class Segment:
    """What stands before ``history[start:]`` in the live context after a compaction."""

    start: int  # first history message still in the live context
    stand_in: Message | None = None  # the simulated summary message (style summarize)
    stand_in_tokens: int = 0
    meta_summary: str | None = None  # the out-of-band summary (style drop_oldest_half)
    meta_summary_tokens: int = 0

    @property
    def lead(self) -> int:
        """Messages before ``history[start:]`` in the live context: 1 with a stand-in, else 0."""
        return 1 if self.stand_in is not None else 0


def live_session(
    session: Session, segment: Segment, stop: int, index: SessionIndex | None = None
) -> Session:
    """The live context before message ``stop`` as a ``Session`` (the original is untouched).

    ``index`` is that context's ``SessionIndex`` when the caller has it (``live_index``): it
    is what ``Session.index`` would find, so it takes the cached property's place.
    """
    head = (segment.stand_in,) if segment.stand_in is not None else ()
    meta = session.meta.model_copy(update={"summary": segment.meta_summary})
    live = Session(
        messages=(*head, *session.messages[segment.start : stop]),
        system_prompt=session.system_prompt,
        tools=session.tools,
        meta=meta,
    )
    if index is not None:
        live.__dict__["index"] = index  # where ``cached_property`` keeps it
    return live


def live_counts(counts: SessionCounts, segment: Segment, stop: int) -> SessionCounts:
    """The counts of ``live_session``: nothing is counted again."""
    head = [segment.stand_in_tokens] if segment.stand_in is not None else []
    return SessionCounts(
        tokenizer=counts.tokenizer,
        message_tokens=[*head, *counts.message_tokens[segment.start : stop]],
        system_tokens=counts.system_tokens,
        tool_def_tokens=counts.tool_def_tokens,
        summary_tokens=segment.meta_summary_tokens,
    )


@dataclass(frozen=True, slots=True)
class _IndexFrom:
    """The history's ``SessionIndex`` from message ``c`` on, in a live context's numbering
    (shifted by ``lead - c``): a context ending before ``stop`` takes the part before it."""

    users: tuple[int, ...]
    requests: tuple[int, ...]
    results: tuple[int, ...]
    callers: tuple[int, ...]
    pairs: tuple[tuple[int, int], ...]  # (result, call), by result, calls inside the window

    @classmethod
    def of(cls, whole: SessionIndex, c: int, shift: int) -> _IndexFrom:
        def after(values: Sequence[int]) -> tuple[int, ...]:
            return tuple(v + shift for v in values[bisect_left(values, c) :])

        results = after(whole.tool_results)
        found = whole.call_of_result
        pairs = tuple(
            (r, call + shift)
            for r in results
            if (call := found.get(r - shift)) is not None and call >= c
        )
        return cls(
            after(whole.turn_starts), after(whole.requests), results,
            after(whole.tool_callers), pairs,
        )  # fmt: skip

    def upto(self, end: int, head: Message | None) -> SessionIndex:
        """The index of the live context's rows before ``end`` (``head`` at row 0)."""
        users = self.users[: bisect_left(self.users, end)]
        requests = self.requests[: bisect_left(self.requests, end)]
        if head is not None and head.role == "user":
            users = (0, *users)
        elif head is not None and head.role == "assistant" and not head.injected:
            requests = (0, *requests)
        pairs = self.pairs
        return SessionIndex(
            users,
            self.results[: bisect_left(self.results, end)],
            self.callers[: bisect_left(self.callers, end)],
            dict(pairs[: bisect_left(pairs, (end,))]),
            requests,
        )


@dataclass(frozen=True, slots=True)
class Counted:
    """A session counted under one policy's tokenizer: what a replay walks and every live
    context of it is measured from."""

    session: Session
    policy: Policy
    counts: SessionCounts
    tokenizer: Tokenizer


_BUDGET_ONLY = TokenizerInfo("plan", "plan")
"""Counts that only carry the fixed parts ``history_budget`` reads; no message is counted."""


class LiveAccount:
    """Prompt tokens of any live context of one session under one policy, without a plan.

    A context costs a few binary searches and, for the tool-pair cut, a byte scan in C.

    It mirrors the planner's token-measured fresh tail (budget, turn cap, tool-pair cut, active
    turn and minimum turns) or its empty one, and the three pruning rules with the prune
    threshold on a window of the history. Items- and messages-mode tails with pruning are not
    mirrored (``supported`` is false): the caller plans those contexts.
    """

    def __init__(self, counted: Counted, truncated: Mapping[int, TruncatedOutput]) -> None:
        session, policy, counts = counted.session, counted.policy, counted.counts
        tokenizer = counted.tokenizer
        self.policy = policy
        self.session = session
        self._windows: dict[tuple[int, int], _IndexFrom] = {}
        self.truncated = truncated
        self.truncated_at = sorted(truncated)
        tokens = list(counts.message_tokens)
        for i, t in truncated.items():
            tokens[i] = t.tokens_after
        self.prefix: Sequence[int] = [0, *accumulate(tokens)]
        self.fixed = counts.system_tokens + counts.tool_def_tokens
        self.turns = session.turn_starts
        self.call_of_result = session.call_of_result
        self.pruning = policy.prune_mode is not PruneMode.OFF
        self._tail_budgets: dict[int, int] = {}
        self.supported = _mirrored(policy)
        self.tails = policy.tail_mode is TailMode.TOKENS
        if self.tails or self.pruning:
            self.bounds = Boundaries.of(session)
            self.reach = _result_reach(session)
        if self.pruning and self.supported:
            messages = session.messages
            text = policy.prune_stub.value
            stub = StubCost(tokenizer.count_message, text)
            self.outputs = index_tool_outputs(
                session,
                tokens,
                lambda i: stub(messages[i]),
                PruneRule(
                    text,
                    policy.prune_tools.value,
                    output_size(policy, tokenizer, messages, tokens, truncated),
                ),
            )

    def live_outputs(self, segment: Segment, stop: int) -> ToolOutputs | None:
        """The tool-output index of the live context, when this account holds the one the
        planner would build (pruning on, a mirrored policy); else ``None``."""
        if not (self.pruning and self.supported):
            return None
        return self.outputs.window(segment.start, stop, segment.lead - segment.start)

    def live_index(self, segment: Segment, stop: int) -> SessionIndex | None:
        """``SessionIndex.of`` the live context, cut from the history's own index; ``None``
        when the stand-in is a tool call or result (its pairing would need the walk).

        A tool result inside the window pairs, in the history, with the latest earlier call
        of its id; when that call is inside the window too it is the latest there, and when
        it is not the window has no such call: the result is an orphan in the live context.
        The history's index from the segment's start on is shifted once per segment.
        """
        head = segment.stand_in
        if head is not None and (head.tool_calls or head.role == "tool"):
            return None
        c, lead = segment.start, segment.lead
        window = self._windows.get((c, lead))
        if window is None:
            window = _IndexFrom.of(self.session.index, c, lead - c)
            self._windows[(c, lead)] = window
        return window.upto(stop - c + lead, head)

    def live_bounds(self, segment: Segment, stop: int) -> Boundaries | None:
        """The live context's cut marks, cut from the history's when no tool pair crosses
        the window's edges (``_marks_hold``) and the stand-in makes no call; else ``None``.

        Within such a window every pair is the history's, so each mark is the history's;
        the stand-in leads (a cut before it is always allowed) and a cut after the last
        message is too.
        """
        head = segment.stand_in
        if head is not None and (head.tool_calls or head.role == "tool"):
            return None
        if not (self.tails or self.pruning) or not self._marks_hold(segment, stop):
            return None
        c, lead = segment.start, b"\x01" * segment.lead
        return Boundaries(bytearray(lead + self.bounds.pair[c:stop] + b"\x01"))

    def live_truncated(self, segment: Segment, stop: int) -> dict[int, TruncatedOutput]:
        """The whole history's truncated outputs inside the live context, in its indices.

        Truncation reads one message, so a window of the history truncates as the whole did;
        the exact walk measures every window again, and the property tests compare the two.
        """
        shift = segment.lead - segment.start
        at = self.truncated_at
        window = at[bisect_left(at, segment.start) : bisect_left(at, stop)]
        return {i + shift: replace(self.truncated[i], index=i + shift) for i in window}

    def covers(self, segment: Segment, stop: int) -> bool:
        """Whether ``prompt`` is exact for this context (else the caller plans it).

        The cut marks are the whole history's. They hold for a window unless a tool call
        inside it has its result at or after ``stop`` (not yet in the live context), or a call
        before ``segment.start`` has its result inside it: real agents answer a call before
        their next request, and a compaction cuts between pairs, so this is rare.
        """
        if not self.supported:
            return False
        if not self.pruning:
            return True
        return self._marks_hold(segment, stop)

    def tail_starts_after_head(self, segment: Segment, stop: int) -> bool | None:
        """Whether the fresh tail leaves any history message to summarise; ``None`` if unknown.

        A summarising compaction replaces what precedes the tail; when that is at most the
        stand-in, trying would only summarise the summary again, so the walk skips the try.
        """
        if not self.tails or not self._marks_hold(segment, stop):
            return None
        s = segment.lead
        return self._tail_start(segment, stop, s, self._starts(segment.start, stop)) > s

    def _marks_hold(self, segment: Segment, stop: int) -> bool:
        c = segment.start
        return bool(self.bounds.pair[stop]) and self.reach[c] < c

    def prompt(self, segment: Segment, stop: int) -> int:
        """Prompt tokens of the live context before ``stop``, as ``build_plan`` counts them."""
        unpruned = self._unpruned(segment, stop)
        first, last = self._pruned(segment, stop, unpruned)
        if first == last:
            return unpruned
        return unpruned - (self.outputs.cum_freed[last] - self.outputs.cum_freed[first])

    def pruned(self, segment: Segment, stop: int) -> tuple[tuple[int, int], int] | None:
        """The outputs the plan of this context prunes, as ``outputs.prunable[first:last]``
        (history indices), and its prompt; ``None`` when this account does not know
        (``covers``)."""
        if not (self.pruning and self.covers(segment, stop)):
            return None
        unpruned = self._unpruned(segment, stop)
        first, last = self._pruned(segment, stop, unpruned)
        freed = self.outputs.cum_freed[last] - self.outputs.cum_freed[first]
        return (first, last), unpruned - freed

    def _unpruned(self, segment: Segment, stop: int) -> int:
        history = segment.stand_in_tokens + self.prefix[stop] - self.prefix[segment.start]
        return self.fixed + segment.meta_summary_tokens + history

    def _pruned(self, segment: Segment, stop: int, unpruned: int) -> tuple[int, int]:
        if self.pruning and stop > segment.start and unpruned >= self.policy.prune_trigger_tokens:
            return self._prune_range(segment, stop)
        return 0, 0

    # --- the live window in its own coordinates: 0 is the stand-in when there is one -------

    def _prune_range(self, seg: Segment, stop: int) -> tuple[int, int]:
        s = seg.lead
        c = seg.start
        starts = self._starts(c, stop)  # once per request: three rules read them
        # Without a fresh tail it starts at the end.
        tail = self._tail_start(seg, stop, s, starts) if self.tails else stop - c + s
        if self.policy.prune_mode is PruneMode.RESULTS:
            return self._prune_results(c, stop, max(c, c + tail - s))
        protected = self._min_turns_start(c, stop, s, self.policy.prune_protected_turns, starts)
        boundary = max(c, c + min(tail, protected) - s)
        if self.policy.prune_mode is PruneMode.TURNS:
            return self._prune_turns(c, boundary)
        return self._prune_tokens(c, boundary)

    def _starts(self, c: int, stop: int) -> tuple[int, int]:
        """The history turn starts inside ``[c, stop)`` as a range of ``self.turns``."""
        return bisect_left(self.turns, c), bisect_left(self.turns, stop)

    def _min_turns_start(
        self, c: int, stop: int, s: int, turns: int, starts: tuple[int, int]
    ) -> int:
        """``min_turns_start`` of the live session, in live coordinates."""
        lo, hi = starts
        count = hi - lo + s
        if turns <= 0 or count == 0:
            return stop - c + s
        k = max(0, count - turns)  # index among live starts; live start 0 is the stand-in
        if s and k == 0:
            return 0
        return self.turns[lo + k - s] - c + s

    def _active_turn_start(self, c: int, stop: int, s: int, starts: tuple[int, int]) -> int:
        lo, hi = starts
        if hi > lo:
            return self.turns[hi - 1] - c + s
        if s:
            return 0
        last = stop - 1
        call = self.call_of_result.get(last, last)
        return (call if call >= c else last) - c

    def _pair_forward(self, c: int, s: int, start: int, n: int) -> int:
        if start < s:
            return start
        found = self.bounds.pair.find(1, c + start - s, c + n - s)
        return n if found < 0 else found - c + s

    def _pair_backward(self, c: int, s: int, start: int) -> int:
        if start >= s:
            found = self.bounds.pair.rfind(1, c, c + start - s + 1)
            if found >= 0:
                return found - c + s
        return 0

    def _tail_start(self, seg: Segment, stop: int, s: int, starts: tuple[int, int]) -> int:
        """``fresh_tail_by_tokens`` on the live window (the budget rule, then the floors)."""
        c = seg.start
        n = stop - c + s
        limit = self._tail_budget(seg)
        prefix = self.prefix
        lo = self._max_turns_start(c, s, starts)
        if lo == 0 and s and seg.stand_in_tokens + prefix[stop] - prefix[c] <= limit:
            start = 0  # the whole live context, stand-in included, fits
        else:  # the budget walk of ``suffix_start_within``, as a bisection of the prefix sums
            first = c + max(0, lo - s)
            start = bisect_left(prefix, prefix[stop] - limit, first, stop) - c + s
        start = self._pair_forward(c, s, start, n)
        floor = self._min_turns_start(c, stop, s, self.policy.tail_min_turns, starts)
        if self.policy.tail_keep_active_turn:
            floor = min(floor, self._active_turn_start(c, stop, s, starts))
        if floor >= n:
            return start
        return min(start, self._pair_backward(c, s, floor))

    def _max_turns_start(self, c: int, s: int, starts: tuple[int, int]) -> int:
        """``max_turns_start`` of the live session, in live coordinates."""
        turns = self.policy.tail_max_turns
        lo, hi = starts
        if turns <= 0 or hi - lo + s < turns:
            return 0
        k = hi - lo + s - turns  # index among live starts; live start 0 is the stand-in
        if s and k == 0:
            return 0
        return self.turns[lo + k - s] - c + s

    def _tail_budget(self, seg: Segment) -> int:
        """The tail budget, which depends on the segment only through its out-of-band summary."""
        key = seg.meta_summary_tokens
        budget = self._tail_budgets.get(key)
        if budget is None:
            counts = SessionCounts(
                tokenizer=_BUDGET_ONLY,
                message_tokens=(),
                system_tokens=self.fixed,
                summary_tokens=key,
            )
            budget = tail_budget(self.policy, history_budget(self.policy, counts))
            self._tail_budgets[key] = budget
        return budget

    def _prune_turns(self, c: int, boundary: int) -> tuple[int, int]:
        o = self.outputs
        lo = bisect_left(o.prunable, c)
        hi = max(lo, bisect_left(o.prunable, boundary))
        count = hi - lo
        if count == 0 or count < self.policy.prune_threshold:
            return 0, 0
        return lo, hi

    def _prune_results(self, c: int, stop: int, boundary: int) -> tuple[int, int]:
        """``prune_by_results`` on the live context ``[c, stop)``: all but its newest
        ``prune_keep_results`` results are stubbed, those before ``boundary`` only."""
        o = self.outputs
        lo = bisect_left(o.indices, c)
        count = bisect_left(o.indices, stop) - lo
        position = count - self.policy.prune_keep_results
        if position < 0:
            return 0, 0
        cut = o.indices[lo + position] if position < count else boundary
        first = bisect_left(o.prunable, c)
        last = max(first, bisect_left(o.prunable, min(cut, boundary)))
        return first, last

    def _prune_tokens(self, c: int, boundary: int) -> tuple[int, int]:
        """``prune_by_tokens`` restricted to outputs at or after ``c``."""
        o = self.outputs
        hi = bisect_left(o.indices, boundary)
        stubs = bisect_left(o.stubbed, boundary)
        floor = max(c, o.stubbed[stubs - 1] + 1 if stubs else 0)
        lo = bisect_left(o.indices, floor, 0, hi)
        cum = o.cum_tokens
        q = bisect_left(cum, cum[hi] - self.policy.prune_protect_tokens, lo, hi + 1)
        if q <= lo:
            return 0, 0
        first = bisect_left(o.prunable, o.indices[lo])
        last = bisect_right(o.prunable, o.indices[q - 1])
        if last <= first or cum[q] - cum[lo] <= self.policy.prune_minimum_tokens:
            return 0, 0
        return first, last


def _mirrored(policy: Policy) -> bool:
    """Whether ``LiveAccount`` mirrors the planner under ``policy`` (else contexts are planned).

    Without pruning the prompt is the whole history whatever the tail (assembly and the
    request sanitizer change what is sent, not the prompt a plan reports). With it, the
    token-measured tail or none, with any stub and tool list, are mirrored.
    """
    if policy.prune_mode is PruneMode.OFF:
        return True
    return policy.tail_mode in (TailMode.TOKENS, TailMode.NONE)


def _result_reach(session: Session) -> list[int]:
    """``reach[c]``: the latest tool result whose call comes before message ``c`` (−1 if none)."""
    n = len(session)
    latest = [-1] * (n + 1)
    for result, call in session.call_of_result.items():
        latest[call + 1] = max(latest[call + 1], result)
    for i in range(1, n + 1):
        latest[i] = max(latest[i], latest[i - 1])
    return latest
