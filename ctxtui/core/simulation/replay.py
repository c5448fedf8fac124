"""Replay: the session over time, one request at a time, under a policy.

A **request** is a call the agent made to the model: the point before each assistant message
it received (an importer already merges the records of one API message into one message;
harness-written assistant messages are not calls). Replay walks the requests in order. At each
one it takes the live context — the history so far, with every earlier simulated compaction
applied (the summary standing in for what it replaced, counted with the same tokenizer) —
and, when the policy's trigger fires, compacts it with the real compactor and goes on. The
prompt sizes over the requests are a sawtooth.

The walk is incremental (``LiveAccount``): a request costs a few binary searches; only a
compaction builds the live context as a session and plans it. The result keeps, per request,
which ``Segment`` it belongs to, so ``Replay.context_at(k)`` can rebuild the context the
model saw at request ``k`` (zones and the stand-in summary row) on demand, in time linear in
that context and not in the session.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cached_property

from ctxtui.core.compacting.compaction import estimate_item_token_count
from ctxtui.core.compacting.simulated import compact_live
from ctxtui.core.errors import StopCheck
from ctxtui.core.planning.picoclaw_legacy import summarize_due
from ctxtui.core.planning.plan import Plan
from ctxtui.core.planning.planner import PlanHints, build_plan
from ctxtui.core.policies.modes import CompactionStyle, TriggerCheck, TriggerCount
from ctxtui.core.policies.policy import Policy
from ctxtui.core.policies.reasons import CompactReason
from ctxtui.core.session.models import Message, Session, Usage
from ctxtui.core.simulation.live_context import (
    Counted,
    LiveAccount,
    Segment,
    live_counts,
    live_session,
)
from ctxtui.core.summaries.seahorse import (
    FRESH_TAIL_COUNT,
    LEAF_CHUNK_TOKENS,
    LEAF_MIN_FANOUT,
    Summary,
    condensed_loop,
)
from ctxtui.core.tokens.counting import Progress, count_summary
from ctxtui.core.tokens.counts import SessionCounts
from ctxtui.core.tokens.tokenizers import Tokenizer

CHECK_EVERY = 256
"""Requests between two progress reports and stop checks."""


class ReplayStoppedError(Exception):
    """The caller's ``should_stop`` said to stop; ``args[0]`` is how many requests were done."""


class EventKind(StrEnum):
    """What happened at a request."""

    COMPACTION = "compaction"  # the simulated policy compacted before sending it
    OVERFLOW = "overflow"  # the simulated prompt exceeds the window even so
    RECORDED_COMPACTION = "recorded_compaction"  # the agent itself had compacted before it


@dataclass(frozen=True, slots=True)
class ReplayEvent:
    kind: EventKind
    reason: str | None = None  # compaction reason, recorded trigger, or None


@dataclass(frozen=True, slots=True)
class Request:
    """One call the agent made, as the policy would have sent it and as the API counted it."""

    index: int
    message_index: int  # the assistant message it produced; the prompt is what precedes it
    simulated_tokens: int  # prompt tokens of the live context (system + tools + history)
    reported: Usage | None  # what the transcript recorded for this call, if anything
    segment: int  # index into ``Replay.segments``: the live context's head
    events: tuple[ReplayEvent, ...] = ()

    @property
    def reported_tokens(self) -> int | None:
        return self.reported.prompt_total if self.reported is not None else None

    def has(self, kind: EventKind) -> bool:
        return any(e.kind is kind for e in self.events)


@dataclass(frozen=True, slots=True)
class SimulatedCompaction:
    """A compaction the policy ran; tokens are prompt tokens (no output reserve)."""

    request: int
    reason: CompactReason
    tokens_before: int
    tokens_after: int
    replaced: tuple[int, int]  # inclusive history indices no longer in the live context
    summary_tokens: int


@dataclass(frozen=True, slots=True)
class RecordedAt:
    """A compaction the agent ran, placed at the first request after it."""

    request: int | None  # None when no request followed it
    message_index: int
    trigger: str | None
    pre_tokens: int | None


@dataclass(frozen=True, slots=True)
class ContextAt:
    """The context as the model saw it at one request: a session, its plan, and the mapping
    of its rows back to the history (row 0 is the stand-in summary when ``stand_in``)."""

    session: Session
    plan: Plan
    start: int  # history index of the first non-stand-in row
    stand_in: bool

    def history_index(self, row: int) -> int | None:
        """The history message shown at ``row``; ``None`` for the stand-in summary."""
        if self.stand_in:
            return None if row == 0 else self.start + row - 1
        return self.start + row


@dataclass(frozen=True)
class Replay:
    """Every request of a session under one policy, with the compactions on the way."""

    session: Session
    policy: Policy
    counts: SessionCounts
    tokenizer: Tokenizer
    requests: tuple[Request, ...]
    compactions: tuple[SimulatedCompaction, ...]
    recorded: tuple[RecordedAt, ...]
    segments: tuple[Segment, ...] = field(repr=False)
    account: LiveAccount | None = field(default=None, repr=False, compare=False)
    """The walk's prefix sums and tool-output index (``None`` for an exact walk): a context
    is planned with the truncation and tool outputs it already measured."""

    def __len__(self) -> int:
        return len(self.requests)

    @property
    def peak_tokens(self) -> int:
        return max((r.simulated_tokens for r in self.requests), default=0)

    @property
    def trigger_tokens(self) -> int | None:
        """The prompt size past which the policy compacts (``Policy.trigger`` is the first
        size that does); ``None`` when it never compacts by itself."""
        trigger = self.policy.trigger
        return None if trigger is None else trigger - 1

    def request_of_message(self, index: int) -> int | None:
        """The first request whose prompt holds message ``index`` (``None`` after the last)."""
        k = bisect_right(self.points, index)
        return k if k < len(self.requests) else None

    @cached_property
    def points(self) -> tuple[int, ...]:
        """Each request's message index, in order."""
        return tuple(r.message_index for r in self.requests)

    def context_at(self, k: int) -> ContextAt:
        """The live context of request ``k`` (after any compaction at it), planned."""
        request = self.requests[k]
        segment = self.segments[request.segment]
        stop = request.message_index
        counts = live_counts(self.counts, segment, stop)
        account = self.account
        if account is None:
            session = live_session(self.session, segment, stop)
            plan = build_plan(session, self.policy, counts, self.tokenizer)
        else:
            index = account.live_index(segment, stop)
            session = live_session(self.session, segment, stop, index)
            hints = PlanHints(
                account.live_truncated(segment, stop),
                account.live_outputs(segment, stop),
                account.live_bounds(segment, stop),
            )
            plan = build_plan(session, self.policy, counts, self.tokenizer, hints)
        return ContextAt(session, plan, segment.start, segment.stand_in is not None)


def shown_offset(history: Session, shown: Session) -> int | None:
    """Where ``shown`` begins inside ``history``, or ``None`` when it is not its tail.

    A transcript read with its full history (``full_history=True``) holds the session as
    normally read (from the agent's last own compaction on) as its last messages; a view
    replaying the history maps a request back to the normally read session by this offset.
    """
    offset = len(history.messages) - len(shown.messages)
    if offset < 0 or history.messages[offset:] != shown.messages:
        return None
    return offset


def place_recorded(session: Session, points: Sequence[int]) -> tuple[RecordedAt, ...]:
    """Each recorded compaction at the first request at or after the message it preceded."""
    out = []
    for rc in session.meta.recorded_compactions:
        k = bisect_left(points, rc.message_index)
        out.append(
            RecordedAt(k if k < len(points) else None, rc.message_index, rc.trigger, rc.pre_tokens)
        )
    return tuple(out)


class _Walk:
    """The mutable state of one replay; ``run`` returns the immutable ``Replay``."""

    def __init__(
        self,
        counted: Counted,
        first_plan: Plan,
        exact: bool,
        on_progress: Progress | None = None,
        should_stop: StopCheck | None = None,
    ) -> None:
        session, counts = counted.session, counted.counts
        self.session, self.policy, self.counts = session, counted.policy, counts
        self.tokenizer = counted.tokenizer
        self.on_progress, self.should_stop = on_progress, should_stop
        self.account = LiveAccount(counted, first_plan.truncated)
        self.exact = exact
        summary = session.meta.summary
        self.segments = [Segment(0, None, 0, summary, counts.summary_tokens)]
        self.compactions: list[SimulatedCompaction] = []
        self.stuck = -1  # a segment whose leaf pass can never succeed again
        self.futile = (-1, -1)  # the segment and turn of a compaction that did not shrink
        self.leaves: list[list[Summary]] = [[]]  # per segment: seahorse's summaries in it
        self.pending: list[Summary] = []  # the summaries of the segment being added
        self.summaries = [i for i, m in enumerate(session.messages) if m.is_summary]

    def prompt(self, stop: int) -> int:
        segment = self.segments[-1]
        if self.exact or not self.account.covers(segment, stop):
            return self.plan(stop).totals.tokens
        return self.account.prompt(segment, stop)

    def plan(self, stop: int) -> Plan:
        segment = self.segments[-1]
        return build_plan(
            live_session(self.session, segment, stop),
            self.policy,
            live_counts(self.counts, segment, stop),
            self.tokenizer,
        )

    def compact(
        self, k: int, stop: int, before: int, reason: CompactReason, upto: int | None = None
    ) -> bool:
        """Compact the live context before request ``k``; False when nothing could go.

        ``upto`` ends the history the compaction sees (PicoClaw compacts before the turn's
        user message joins it); the prompt after is the one at ``stop``.
        """
        segment = self.segments[-1]
        summarize = self.policy.compaction_style is CompactionStyle.SUMMARIZE
        end = stop if upto is None else upto
        if self._blocked(segment, end, stop, summarize):
            return False
        session = live_session(self.session, segment, end)
        counts = live_counts(self.counts, segment, end)
        if self.exact:
            plan = build_plan(session, self.policy, counts, self.tokenizer)
        else:
            hints = PlanHints(
                self.account.live_truncated(segment, end), self.account.live_outputs(segment, end)
            )
            plan = build_plan(session, self.policy, counts, self.tokenizer, hints)
        result = compact_live(session, plan, reason, self.tokenizer, self.exact)
        if result is None:
            return False
        start = segment.start + result.replaced[1] + 1 - segment.lead
        if start <= segment.start:
            return False  # only the summary itself would be summarised again
        leaf = self.policy.compaction_style is CompactionStyle.LEAF
        self.pending = []
        if not summarize and not leaf:
            note = result.meta_summary
            tokens = count_summary(self.tokenizer, note)
            kept, kept_tokens = None, 0
            if result.replaced[0] > 0:  # forceCompression kept a lone earlier user message
                kept, kept_tokens = session.messages[0], counts.message_tokens[0]
            new = Segment(start, kept, kept_tokens, note, tokens)
        elif leaf and result.stand_in is not None:
            new = self._with_leaf(segment, start, end, result.stand_in, result.summary_tokens)
        else:
            new = Segment(
                start, result.stand_in, result.summary_tokens,
                segment.meta_summary, segment.meta_summary_tokens,
            )  # fmt: skip
        self.segments.append(new)
        self.leaves.append(self.pending)
        after = self.prompt(stop)
        if self._grew(before, after):
            self.segments.pop()
            self.leaves.pop()
            self.futile = (len(self.segments) - 1, self._turn(stop))
            return False
        if leaf and len(self.segments) > 1:
            self._forget_text(len(self.segments) - 2)
        first = max(segment.start, segment.start + result.replaced[0] - segment.lead)
        replaced = (first, start - 1)
        self.compactions.append(
            SimulatedCompaction(k, reason, before, after, replaced, new.stand_in_tokens)
        )
        return True

    def _with_leaf(
        self, segment: Segment, start: int, end: int, leaf: Message, tokens: int
    ) -> Segment:
        """Seahorse keeps every leaf summary: the new one joins the live context's summaries,
        which its condensed pass then merges while the context is over the window
        (``Compact``'s phase 2, ``Budget`` the window: ``short_compaction.go``)."""
        summaries = [*self.leaves[-1], Summary(leaf.content, tokens)]
        prefix = self.account.prefix
        history = prefix[end] - prefix[start]
        if sum(x.tokens for x in summaries) + history > self.policy.context_window:
            count = self.tokenizer.count_text
            summaries = condensed_loop(summaries, end - start, count, history)
        self.pending = summaries
        joined = leaf.model_copy(update={"content": "\n\n".join(x.text for x in summaries)})
        return Segment(
            start, joined, sum(x.tokens for x in summaries),
            segment.meta_summary, segment.meta_summary_tokens,
        )  # fmt: skip

    def _forget_text(self, i: int) -> None:
        """Keep an earlier seahorse segment's summaries as a short note, their tokens as they
        were: each segment holding every summary's text would grow with the square of the
        compactions (a later context shows the summaries' text, an earlier one the note)."""
        segment, summaries = self.segments[i], self.leaves[i]
        if segment.stand_in is None or not summaries:
            return
        depths = sorted({x.depth for x in summaries})
        note = f"[{len(summaries):,} seahorse summaries, depth {depths[0]}–{depths[-1]}]"
        light = segment.stand_in.model_copy(update={"content": note})
        self.segments[i] = Segment(
            segment.start, light, segment.stand_in_tokens,
            segment.meta_summary, segment.meta_summary_tokens,
        )  # fmt: skip

    def _blocked(self, segment: Segment, end: int, stop: int, summarize: bool) -> bool:
        """Whether no compaction can run here: the fresh tail holds everything (no summary
        would be written), seahorse's leaf pass is stuck, or one did not shrink the prompt
        earlier in this turn."""
        if summarize and self.account.tail_starts_after_head(segment, end) is False:
            return True
        here = len(self.segments) - 1
        if self.stuck == here or self.futile == (here, self._turn(stop)):
            return True
        if not self.exact and self._leaf_stuck(segment, end):
            self.stuck = here
            return True
        return False

    def _turn(self, stop: int) -> int:
        return bisect_left(self.session.turn_starts, stop) - 1

    def _grew(self, before: int, after: int) -> bool:
        """Whether a compaction left the prompt no smaller: it is then not simulated, and not
        tried again in that turn (a summary or note bigger than what it replaced would
        otherwise compact every turn). Only where the trigger counts locally: a reported
        count describes a context ctxtui's offline summary does not stand for."""
        return self.policy.trigger_count is TriggerCount.LOCAL and after >= before

    def _leaf_stuck(self, segment: Segment, end: int) -> bool:
        """Whether seahorse's leaf pass can never succeed again in this segment.

        ``compactLeaf`` takes the oldest run of messages outside the 32-item tail, stopping at
        ``LEAF_CHUNK_TOKENS``; a run that reaches them with fewer than ``LEAF_MIN_FANOUT``
        messages is refused, and later messages cannot change that run (seahorse then never
        compacts the session again). Checked by bisection, so a stuck session costs no plan
        per request.
        """
        if self.policy.compaction_style is not CompactionStyle.LEAF:
            return False
        c = segment.start
        prefix = self.account.prefix
        j = bisect_left(prefix, prefix[c] + LEAF_CHUNK_TOKENS, c + 1, end + 1)
        if j > end or j - c >= LEAF_MIN_FANOUT:
            return False  # the run has not reached the cap yet, or holds enough messages
        if bisect_left(self.summaries, c) < bisect_left(self.summaries, j):
            return False  # a summary inside the run starts a new one
        live = end - c + segment.lead
        return j - 1 - c + segment.lead < live - FRESH_TAIL_COUNT

    def check(self, done: int, total: int) -> None:
        """Report progress, and stop here if the caller asked to (a newer replay superseded it)."""
        if self.on_progress is not None:
            self.on_progress(done, total)
        if self.should_stop is not None and self.should_stop():
            raise ReplayStoppedError(done)

    def counted(self, requests: Sequence[Request], stop: int, tokens: int, valid: bool) -> int:
        """The figure the trigger compares before the request at ``stop`` (``trigger_count``).

        OpenCode compares the previous call's reported total (input + output), Codex that plus
        its estimate of the items added since the last model output (each item's JSON bytes
        / 4, ``estimate_item_token_count``, not the tokenizer's count). The reported prompt is
        used while the transcript's usage describes the live context (``valid``: no compaction
        yet); after one, the previous call's simulated prompt stands in for it, so the rule
        stays "the previous call's count" for every later compaction too.
        """
        mode = self.policy.trigger_count
        if mode is TriggerCount.LOCAL or not requests:
            return tokens
        previous = requests[-1]
        usage = previous.reported
        if usage is None or usage.prompt_total is None:
            return tokens
        prompt = usage.prompt_total if valid else previous.simulated_tokens
        total = prompt + (usage.output or 0)
        if mode is TriggerCount.REPORTED_PLUS_NEW:
            new = self.session.messages[previous.message_index + 1 : stop]
            total += sum(estimate_item_token_count(m) for m in new)
        return total

    def summary_due(self, end: int) -> bool:
        """Whether PicoClaw legacy summarizes after the turn that ended before message ``end``:
        its history then holds more than ``summarize_message_threshold`` messages or more than
        ``summarize_token_percent`` % of the window (``maybeSummarize``, as the planner's
        ``compaction_need`` reads it)."""
        policy = self.policy
        if policy.summarize_message_threshold <= 0:
            return False
        segment = self.segments[-1]
        prefix = self.account.prefix
        history = segment.stand_in_tokens + prefix[end] - prefix[segment.start]
        return summarize_due(
            end - segment.start + segment.lead,
            history,
            policy.context_window,
            policy.summarize_message_threshold,
            policy.summarize_token_percent,
        )

    def refused(self, tokens: int) -> bool:
        """OpenCode learns of a prompt over the window from the API's refusal, and compacts at
        that request (its loop turns a context-overflow error into a compaction); a policy that
        decides from the previous call's reported count does the same."""
        return (
            self.policy.trigger_count is TriggerCount.REPORTED
            and tokens > self.policy.context_window
        )

    def run(self) -> Replay:
        policy = self.policy
        window = policy.context_window
        trigger = policy.trigger  # a property worked out with a Fraction: once, not per request
        points = self.session.index.requests
        recorded = place_recorded(self.session, points)
        by_request: dict[int, list[ReplayEvent]] = {}
        for rc in recorded:
            if rc.request is not None:
                event = ReplayEvent(EventKind.RECORDED_COMPACTION, rc.trigger)
                by_request.setdefault(rc.request, []).append(event)
        first_recorded = min(
            (rc.request for rc in recorded if rc.request is not None), default=None
        )
        requests: list[Request] = []
        messages = self.session.messages
        turns = self.session.turn_starts
        per_turn = policy.trigger_check is TriggerCheck.TURN
        last_turn = -2
        for k, stop in enumerate(points):
            if k % CHECK_EVERY == 0:
                self.check(k, len(points))
            turn = bisect_left(turns, stop) - 1  # the turn this request belongs to
            first_of_turn, last_turn = turn != last_turn, turn
            upto = turns[turn] if per_turn and turn >= 0 else stop
            if upto <= self.segments[-1].start:
                upto = stop
            events: list[ReplayEvent] = []
            after_turn = first_of_turn and k and stop > self.segments[-1].start
            if after_turn and (policy.compact_after_turn or self.summary_due(upto)):
                before = self.prompt(stop)  # the turn before this one ended: its summary
                if self.compact(k, stop, before, CompactReason.PROACTIVE, upto):
                    events.append(ReplayEvent(EventKind.COMPACTION, CompactReason.PROACTIVE.value))
            tokens = self.prompt(stop)
            valid = not self.compactions and (first_recorded is None or k <= first_recorded)
            due = (first_of_turn or not per_turn) and trigger is not None
            if due and stop > self.segments[-1].start:
                assert trigger is not None
                if self.counted(requests, stop, tokens, valid) >= trigger or self.refused(tokens):
                    reason = CompactReason.OVERFLOW if tokens > window else CompactReason.PROACTIVE
                    if self.compact(k, stop, tokens, reason, upto):
                        tokens = self.compactions[-1].tokens_after
                        events.append(ReplayEvent(EventKind.COMPACTION, reason.value))
            if tokens > window:
                events.append(ReplayEvent(EventKind.OVERFLOW, CompactReason.OVERFLOW.value))
            events.extend(by_request.get(k, ()))
            segment = len(self.segments) - 1
            usage = messages[stop].usage
            requests.append(Request(k, stop, tokens, usage, segment, tuple(events)))
        return Replay(
            self.session, policy, self.counts, self.tokenizer, tuple(requests),
            tuple(self.compactions), recorded, tuple(self.segments),
            None if self.exact else self.account,
        )  # fmt: skip


def replay(
    counted: Counted,
    first_plan: Plan | None = None,
    *,
    exact: bool = False,
    on_progress: Progress | None = None,
    should_stop: StopCheck | None = None,
) -> Replay:
    """Replay ``counted``: its session under its policy, counted under its tokenizer.

    ``first_plan`` (the whole session's plan, which an open already has) supplies the
    truncated outputs; ``exact`` plans every request instead of advancing by prefix sums (the
    reference the fast path is tested against). ``on_progress(done, total)`` is called every
    ``CHECK_EVERY`` requests, and ``should_stop`` there too: when it says so the walk raises
    ``ReplayStoppedError`` (a worker whose result is no longer wanted ends early).
    """
    plan = first_plan
    if plan is None:
        plan = build_plan(counted.session, counted.policy, counted.counts, counted.tokenizer)
    walk = _Walk(counted, plan, exact, on_progress, should_stop)
    return walk.run()
