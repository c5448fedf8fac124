"""PicoClaw's request sanitizer, and the unpaired tool messages ``main`` would still send.

Before every call PicoClaw ``main`` cleans the history (``BuildMessages``; docs/presets.md,
"picoclaw"): system messages go; a tool message goes when it would lead the history or when
the nearest message before it (skipping other tool messages) is not an assistant tool call; an
assistant tool call goes when it would lead the history or follow anything but a user or tool
message. It compares roles, not ids, so a result whose call was left out can survive behind
another call, and a call whose results were left out survives: providers reject both. The
planner marks them rather than fixing them, because that is what ``main`` sends.

The sanitizer has six states, so the whole session is run once (``SanitizerRun``) and a run
starting elsewhere is simulated only until it meets that run's state: from there on both decide
alike, so re-planning does not grow with the session.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

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


@dataclass(frozen=True, slots=True)
class SanitizerRun:
    """The sanitizer over the whole session from its first message: states and drops."""

    states: bytes  # state after each message
    drops: Sequence[int]  # messages the whole-session run drops, ascending

    @classmethod
    def of(cls, session: Session) -> SanitizerRun:
        state = EMPTY
        states = bytearray(len(session))
        drops: list[int] = []
        for i, message in enumerate(session.messages):
            keep, state = step(state, message)
            states[i] = state
            if not keep:
                drops.append(i)
        return cls(bytes(states), drops)

    def drops_between(self, start: int, stop: int) -> Sequence[int]:
        """The whole-session run's drops in ``[start, stop)``."""
        lo = bisect_left(self.drops, start)
        hi = bisect_left(self.drops, stop, lo)
        return self.drops[lo:hi]


def sanitize_ranges(
    session: Session, run: SanitizerRun, ranges: Sequence[tuple[int, int]]
) -> list[int]:
    """The messages the sanitizer drops from the history made of ``ranges``, ascending
    ``[start, stop)`` runs sent one after the other."""
    messages = session.messages
    dropped: list[int] = []
    state = EMPTY
    for start, stop in ranges:
        i = start
        while i < stop:
            keep, state = step(state, messages[i])
            if not keep:
                dropped.append(i)
            if state == run.states[i]:  # converged: the rest is the whole-session run's
                dropped.extend(run.drops_between(i + 1, stop))
                state = run.states[stop - 1]
                break
            i += 1
    return dropped


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
