"""The ``Plan``: everything the budget engine decided about one session under one policy.

The planner builds it; everything else only reads it. Zones are contiguous (dropped prefix,
kept middle, fresh-tail suffix), so a plan stores two boundaries, plus the few ``excluded``
messages the request still leaves out: seahorse's hole and what PicoClaw's sanitizer drops.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from ctxtui.core.errors import OverflowInfo
from ctxtui.core.policies.policy import Policy
from ctxtui.core.policies.reasons import CompactReason
from ctxtui.core.tokens.tokenizers import TokenizerInfo
from ctxtui.core.wording import plural


class Zone(StrEnum):
    """Where a message ends up in the next request."""

    TAIL = "tail"  # protected fresh tail: sent verbatim, never pruned
    KEPT = "kept"  # older history that still fits: sent (possibly pruned/truncated)
    DROPPED = "dropped"  # does not fit: dropped or replaced by a summary on compaction


class TailReason(StrEnum):
    """Why the fresh-tail boundary sits where it does."""

    BUDGET = "budget"  # the next older message did not fit the tail budget
    MIN_TURNS = "min_turns"  # extended past the budget to hold the minimum number of turns
    MAX_TURNS = "max_turns"  # stopped at the most turns the tail may hold (OpenCode: 2)
    TOOL_PAIR = "tool_pair"  # moved so an assistant tool call stays with its results
    ACTIVE_TURN = "active_turn"  # the newest turn alone exceeds the budget and is kept anyway
    ITEMS = "items"  # items mode (PicoClaw): the last N items fit the budget
    TURN_START = "turn_start"  # messages mode (PicoClaw legacy): last N messages from a turn start
    NO_TAIL = "no_tail"  # the policy keeps no verbatim tail (Codex, Claude Code)
    WHOLE_SESSION = "whole_session"  # every message fits in the tail
    EMPTY = "empty"  # the session has no messages

    @property
    def words(self) -> str:
        """Why the boundary is there, for people (the value is the code ``--json`` gives)."""
        return _TAIL_WORDS[self]


_TAIL_WORDS: dict[TailReason, str] = {
    TailReason.BUDGET: "as far as its budget holds",
    TailReason.MIN_TURNS: "widened to hold the minimum turns",
    TailReason.MAX_TURNS: "as many turns as it may hold",
    TailReason.TOOL_PAIR: "moved to keep a tool call with its results",
    TailReason.ACTIVE_TURN: "the whole active turn",
    TailReason.ITEMS: "the last items",
    TailReason.TURN_START: "the last messages, from a turn start",
    TailReason.NO_TAIL: "this preset keeps no fresh tail",
    TailReason.WHOLE_SESSION: "every message fits in it",
    TailReason.EMPTY: "no messages",
}


class Pressure(StrEnum):
    """How close the request is to the window, for gauge colours."""

    OK = "ok"
    WARNING = "warning"  # past the policy's compaction trigger (or 90 % of it)
    ERROR = "error"  # past the window itself


@dataclass(frozen=True, slots=True)
class FreshTail:
    """The protected suffix ``messages[start:]`` and why it starts there."""

    start: int
    budget: int
    tokens: int
    reason: TailReason
    turns: int
    min_turns: int
    over_budget: bool = False

    def label(self) -> str:
        """The boundary rule's text, e.g. ``fresh tail · 7,840 / 8,000 tok · min 2 turns``."""
        turns = plural(self.min_turns, "turn")
        text = f"fresh tail · {self.tokens:,} / {self.budget:,} tok · min {turns}"
        if self.over_budget:
            text += f" · over budget ({self.reason.value.replace('_', ' ')})"
        return text


@dataclass(frozen=True, slots=True)
class PrunedOutput:
    """A tool output the plan would replace by the stub; the original stays in the session."""

    index: int
    tokens_before: int
    tokens_after: int

    @property
    def tokens_freed(self) -> int:
        return self.tokens_before - self.tokens_after


@dataclass(frozen=True, slots=True)
class TruncatedOutput:
    """A tool output over the truncation limits: the model would see a preview."""

    index: int
    tokens_before: int
    tokens_after: int
    lines: int
    bytes: int

    @property
    def tokens_freed(self) -> int:
        return self.tokens_before - self.tokens_after


@dataclass(frozen=True, slots=True)
class Totals:
    """The window split into its parts, all in tokens of the tokenizer used."""

    window: int
    output_reserve: int
    system: int
    tool_defs: int
    summary: int  # a summary the source keeps outside the messages (PicoClaw meta.summary)
    history: int  # every message, after pruning and truncation
    kept: int
    tail: int
    dropped: int
    trigger: int | None = 0  # the smallest prompt (``tokens``) it compacts at; None: never

    @property
    def budget(self) -> int:
        """The window less the output reserve."""
        return self.window - self.output_reserve

    @property
    def tokens(self) -> int:
        """Prompt tokens of the request as it stands: system + tools + summary + history."""
        return self.system + self.tool_defs + self.summary + self.history

    @property
    def requested(self) -> int:
        """What the request asks of the window: prompt tokens plus the output reserve."""
        return self.tokens + self.output_reserve

    @property
    def used_ratio(self) -> float:
        return self.requested / self.window if self.window else 0.0

    def free_under(self, top: int) -> int:
        """The one rule for "free": the window neither the prompt nor ``top`` tokens kept at
        its top take (the gauge's output reserve, the report's trigger headroom)."""
        return max(0, self.window - self.tokens - top)

    @property
    def free(self) -> int:
        return self.free_under(self.output_reserve)

    @property
    def over_by(self) -> int:
        """How far the request runs past the window (0 when it fits)."""
        return max(0, self.requested - self.window)


@dataclass(frozen=True, slots=True)
class CompactionNeed:
    """Whether the request needs compacting, for which reason, and what would be replaced."""

    needed: bool
    reason: CompactReason | None
    replaced: tuple[int, int] | None  # inclusive [first, last] message indices
    tokens_before: int  # tokens of the replaced messages
    trigger_tokens: int | None  # the smallest prompt (Totals.tokens) compacted; None: never
    post_turn: bool = False  # PicoClaw legacy's after-turn summarize trigger fired, not the window


@dataclass(frozen=True, slots=True)
class Plan:
    """The engine's decision for one session under one policy."""

    policy: Policy
    tokenizer: TokenizerInfo
    message_tokens: Sequence[int]  # per message, as counted
    effective_tokens: Sequence[int]  # per message, after pruning and truncation
    kept_start: int  # messages[:kept_start] are dropped
    tail: FreshTail
    totals: Totals
    compaction: CompactionNeed
    overflow: OverflowInfo | None = None
    pruned: Mapping[int, PrunedOutput] = field(default_factory=dict)
    truncated: Mapping[int, TruncatedOutput] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()
    excluded: frozenset[int] = frozenset()  # inside kept or tail, yet not sent
    unpaired: Mapping[int, str] = field(default_factory=dict)  # sent without their partner

    def __len__(self) -> int:
        return len(self.message_tokens)

    def tail_words(self) -> str:
        """Where the fresh tail starts, ``tail #35``, or ``no tail`` when it holds nothing
        (an index past the last message names no message)."""
        if self.tail.start >= len(self):
            return "no tail"
        return f"tail #{self.tail.start:,}"

    def zone(self, index: int) -> Zone:
        if index in self.excluded:
            return Zone.DROPPED
        if index >= self.tail.start:
            return Zone.TAIL
        if index >= self.kept_start:
            return Zone.KEPT
        return Zone.DROPPED

    @property
    def tokens_freed_by_pruning(self) -> int:
        return sum(p.tokens_freed for p in self.pruned.values())

    @property
    def pressure(self) -> Pressure:
        ratio = self.totals.used_ratio
        if ratio > 1.0:
            return Pressure.ERROR
        if ratio > self.policy.compact_trigger_ratio * 0.9:
            return Pressure.WARNING
        return Pressure.OK
