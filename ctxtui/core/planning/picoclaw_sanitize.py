"""PicoClaw's request sanitizer, and the unpaired tool messages it would still send.

Before every call PicoClaw ``main`` cleans the history in two passes
(``sanitizeHistoryForProvider``, ``pkg/agent/context.go``; docs/presets.md, "picoclaw"). The
first compares roles: system messages go; a tool message goes when it would lead the history or
when the nearest message before it (skipping other tool messages) is not an assistant tool
call; an assistant tool call goes when it would lead the history or follow anything but a user
or tool message. The second compares ids over what the first kept: in the block of tool
messages after an assistant tool call, a result without an id, for an id the call did not make,
or a second result for one id goes; when the call's ids are not all answered in its block (or
one is empty) the call goes with its whole block; a tool message outside any block goes.

The first pass has six states, so the whole session is run once (``SanitizerRun``) and a run
starting elsewhere is simulated only until it meets that run's state; the second pass agrees
with the whole-session run from the next kept message that is not a tool result, up to the last
such message of the range. So re-planning does not grow with the session.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from ctxtui.core.session.models import Message, Session

EMPTY, USER, TOOL, CALLS, PLAIN, OTHER = range(6)
"""The kind of the last message the sanitizer kept (``EMPTY``: none yet)."""


def step(state: int, message: Message) -> tuple[bool, int]:
    """Whether the sanitizer keeps ``message`` after ``state``, and the state that follows."""
    role = message.role
    if role == "system":
        return False, state
    if role == "tool":
        return (True, TOOL) if state in (TOOL, CALLS) else (False, state)
    if role == "assistant" and message.tool_calls:
        return (True, CALLS) if state in (USER, TOOL) else (False, state)
    if role == "assistant":
        return True, PLAIN
    if role == "user":
        return True, USER
    return True, OTHER


@dataclass(slots=True)
class _Blocks:
    """The second pass fed one kept message at a time: the open block and what it dropped."""

    messages: Sequence[Message]
    dropped: list[int] = field(default_factory=list)
    call: int = -1  # the assistant tool call whose block is open, or -1
    expected: frozenset[str] = frozenset()
    invalid: bool = False  # the call has an empty id
    members: list[int] = field(default_factory=list)
    seen: set[str] = field(default_factory=set)

    def feed(self, i: int) -> None:
        message = self.messages[i]
        if message.role == "tool":
            tool_id = message.tool_call_id or ""
            if self.call < 0 or not tool_id or tool_id not in self.expected or tool_id in self.seen:
                self.dropped.append(i)  # outside a block, no id, unexpected or duplicate
                return
            self.seen.add(tool_id)
            self.members.append(i)
            return
        if self.call >= 0:
            self.close()
        if message.tool_calls and message.role == "assistant":
            ids = [c.id for c in message.tool_calls]
            self.call, self.expected = i, frozenset(x for x in ids if x)
            self.invalid = "" in ids

    def feed_all(self, indices: Iterable[int]) -> None:
        for i in indices:
            self.feed(i)

    def close(self) -> None:
        """End the open block: its call and results go unless every id was answered."""
        if self.call >= 0 and (self.invalid or self.seen != self.expected):
            self.dropped.append(self.call)
            self.dropped.extend(self.members)
        self.call, self.expected, self.invalid = -1, frozenset(), False
        self.members, self.seen = [], set()


@dataclass(frozen=True, slots=True)
class SanitizerRun:
    """The sanitizer over the whole session from its first message: states and drops."""

    states: bytes  # first pass: state after each message
    drops: Sequence[int]  # messages the whole-session first pass drops, ascending
    anchors: Sequence[int]  # what it keeps that is not a tool message, ascending
    pair_drops: Sequence[int]  # what the whole-session second pass drops, ascending

    @classmethod
    def of(cls, session: Session) -> SanitizerRun:
        state = EMPTY
        states = bytearray(len(session))
        drops: list[int] = []
        anchors: list[int] = []
        blocks = _Blocks(session.messages)
        for i, message in enumerate(session.messages):
            keep, state = step(state, message)
            states[i] = state
            if not keep:
                drops.append(i)
                continue
            blocks.feed(i)
            if message.role != "tool":
                anchors.append(i)
        blocks.close()
        return cls(bytes(states), drops, anchors, sorted(blocks.dropped))

    def drops_between(self, start: int, stop: int) -> Sequence[int]:
        """The whole-session first pass's drops in ``[start, stop)``."""
        return _between(self.drops, start, stop)

    def kept_between(self, start: int, stop: int) -> Iterable[int]:
        """What the whole-session first pass keeps in ``[start, stop)``."""
        gone = set(self.drops_between(start, stop))
        return (i for i in range(start, stop) if i not in gone)


def _between(values: Sequence[int], start: int, stop: int) -> Sequence[int]:
    lo = bisect_left(values, start)
    return values[lo : bisect_left(values, stop, lo)]


@dataclass(frozen=True, slots=True)
class Sanitized:
    """What the sanitizer drops from a history, by pass (each ascending)."""

    by_role: Sequence[int]
    by_pairing: Sequence[int]

    @property
    def dropped(self) -> frozenset[int]:
        return frozenset(self.by_role) | frozenset(self.by_pairing)


def sanitize_ranges(
    session: Session, run: SanitizerRun, ranges: Sequence[tuple[int, int]]
) -> Sanitized:
    """What the sanitizer drops from the history made of ``ranges``, ascending ``[start, stop)``
    runs sent one after the other."""
    messages = session.messages
    dropped: list[int] = []
    blocks = _Blocks(messages)
    state = EMPTY
    for start, stop in ranges:
        i = start
        while i < stop:
            keep, state = step(state, messages[i])
            if not keep:
                dropped.append(i)
            else:
                blocks.feed(i)
            if state == run.states[i]:  # converged: the rest is the whole-session run's
                dropped.extend(run.drops_between(i + 1, stop))
                state = run.states[stop - 1]
                _pairing_after_convergence(run, blocks, i + 1, stop)
                break
            i += 1
    blocks.close()
    return Sanitized(dropped, sorted(blocks.dropped))


def _pairing_after_convergence(run: SanitizerRun, blocks: _Blocks, lo: int, stop: int) -> None:
    """Feed the second pass ``[lo, stop)``, where the first pass is the whole-session run's:
    explicitly up to the first kept non-tool message and from the last one, whose block may
    run into the next range; between them the whole-session second pass decides alike."""
    anchors = _between(run.anchors, lo, stop)
    if len(anchors) < 2:
        blocks.feed_all(run.kept_between(lo, stop))
        return
    first, last = anchors[0], anchors[-1]
    blocks.feed_all(run.kept_between(lo, first))
    blocks.close()
    blocks.dropped.extend(_between(run.pair_drops, first, last))
    blocks.feed_all(run.kept_between(last, stop))


@dataclass(frozen=True, slots=True)
class PairIndex:
    """Tool calls and results as arrays, for finding pairs a cut separates near the cut."""

    results: Sequence[int]  # every paired result, ascending
    calls: Sequence[int]  # the call of each, aligned with ``results``
    reach: int  # the largest distance from a call to one of its results
    unpaired: Sequence[int]  # results with no call anywhere in the session
    call_of: Mapping[int, int]  # result → call
    results_of: Mapping[int, tuple[int, ...]]  # call → results

    @classmethod
    def of(cls, session: Session) -> PairIndex:
        pairs = sorted(session.call_of_result.items())
        reach = max((r - c for r, c in pairs), default=0)
        return cls(
            [r for r, _ in pairs],
            [c for _, c in pairs],
            reach,
            list(session.orphan_results),
            session.call_of_result,
            session.results_of_call,
        )


def unpaired_sent(
    index: PairIndex, ranges: Sequence[tuple[int, int]], dropped: frozenset[int]
) -> dict[int, str]:
    """Tool messages in the sent history whose partner is not sent, with why; only pairs near
    a range's edge, partners of dropped messages and unpaired results can be, so only those
    are examined."""

    def sent(i: int) -> bool:
        return any(a <= i < b for a, b in ranges) and i not in dropped

    out: dict[int, str] = {}
    for a, b in ranges:
        for r in index.unpaired[bisect_left(index.unpaired, a) : bisect_left(index.unpaired, b)]:
            if r not in dropped:
                out[r] = "a tool result whose call is not in the session"
        for edge in (a, b):
            _split_at(index, edge, sent, out)
    for d in dropped:
        call = index.call_of.get(d)
        if call is not None and sent(call):
            out.setdefault(call, f"a tool call whose result (#{d:,}) is not sent")
        for r in index.results_of.get(d, ()):
            if sent(r):
                out[r] = f"a tool result whose call (#{d:,}) is not sent"
    for i in dropped:
        out.pop(i, None)
    return out


def _split_at(
    index: PairIndex, edge: int, sent: Callable[[int], bool], out: dict[int, str]
) -> None:
    """Note in ``out`` each call/result pair that straddles ``edge`` with one side unsent."""
    lo = bisect_left(index.results, edge)
    hi = bisect_left(index.results, edge + index.reach + 1)
    for k in range(lo, hi):
        r, c = index.results[k], index.calls[k]
        if c >= edge:
            continue
        if sent(r) and not sent(c):
            out[r] = f"a tool result whose call (#{c:,}) is not sent"
        elif sent(c) and not sent(r):
            out.setdefault(c, f"a tool call whose result (#{r:,}) is not sent")
