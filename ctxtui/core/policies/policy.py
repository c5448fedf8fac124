"""The policy: every knob of the budget engine as one table of rows, validated, plus the presets.

Each knob is one row of ``Policy``'s body (``knob(...)``): type, default, bounds, group, unit,
command-line flag, help and the other knob it depends on. ``KNOBS`` is that table as plain data:
the settings panel, the command line's options and ``--help``, and every shell's wording of a
refused value are read from it, so a knob is added by adding its row. A refused value raises
``PolicyError`` holding ``Problem`` records (field, value, bound) that each shell words itself.

A ``Policy`` is immutable; changing a knob makes a new one (``policy.with_changes(...)``), so a
plan depends only on the session and the policy, never on the order knobs were turned in. This
module imports no pydantic: ``ctxtui --help`` reads the table.
"""

from __future__ import annotations

import contextlib
import math
import operator
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from enum import Enum
from fractions import Fraction
from functools import lru_cache
from typing import TYPE_CHECKING, Any, get_type_hints

from ctxtui.core.policies.fit import Derived, session_values
from ctxtui.core.policies.modes import (
    UNCAPPED,
    CompactionStyle,
    PruneMode,
    PruneStub,
    PruneTools,
    TailMode,
    TriggerCheck,
    TriggerCount,
    TruncateStyle,
)
from ctxtui.core.policies.presets import DEFAULT_PRESET, PRESETS, Preset
from ctxtui.core.summaries.summary_template import SummaryTemplate
from ctxtui.core.tokens.specs import TOKENIZER_PATTERN, tokenizer_names

if TYPE_CHECKING:
    from ctxtui.core.policies.windows import WindowSource
    from ctxtui.core.session.models import Session

__all__ = [
    "KNOBS",
    "Knob",
    "Policy",
    "PolicyError",
    "Problem",
    "make_policy",
    "policy_for_session",
    "preset",
    "window_source_of",
]


@dataclass(frozen=True, slots=True)
class Knob:
    """One row of the knob table: what the policy checks and what both shells say of a knob."""

    name: str
    kind: type  # int, float, bool, str or a StrEnum
    default: Any
    group: str  # the settings panel's heading
    help: str  # one line: the panel's tooltip and the start of --help's entry
    low: float | None = None
    high: float | None = None
    low_open: bool = False  # the lowest value is itself refused (> rather than ≥)
    unit: str = ""  # what a number counts: tokens, turns, share of the window
    flag: str | None = None  # its command-line option, when it has one
    applies: tuple[str, tuple[Any, ...]] | None = None  # read only while that knob is one of these
    note: str = ""  # said in --help after a number's defaults, or after a choice's values
    pattern: Any = None  # a compiled pattern a str knob's value must match

    @property
    def numeric(self) -> bool:
        return self.kind in (int, float)

    @property
    def choices(self) -> tuple[str, ...]:
        """A choice knob's values (empty for any other)."""
        kind = self.kind
        return tuple(str(m.value) for m in kind) if issubclass(kind, Enum) else ()

    def accepts(self, value: float) -> bool:
        """Whether ``value`` lies in the knob's own range (NaN never does)."""
        if self.low is not None and not (value > self.low if self.low_open else value >= self.low):
            return False
        return self.high is None or bool(value <= self.high)

    def check(self, value: Any) -> tuple[Any, Problem | None]:
        """``value`` as the knob's type, or the problem with it."""
        kind = self.kind
        if type(value) is not kind:
            value = _as_kind(kind, value)
            if not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
                bound = "choice" if isinstance(value, str) and self.choices else "type"
                return value, Problem(self.name, value, bound)
        if isinstance(value, (int, float)):
            if not self.accepts(value):
                return value, Problem(self.name, value, "range")
        elif self.pattern is not None and not self.pattern.match(value):
            return value, Problem(self.name, value, "choice")
        return value, None


def _as_kind(kind: type, value: Any) -> Any:
    """``value`` converted as the policy converts it: whole floats to int, ints to float, a
    choice's value to its member; anything else is returned as it is, to be refused."""
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value) if abs(value) < 2**1023 else math.inf
    if kind is int and isinstance(value, float) and value.is_integer():
        return int(value)
    if issubclass(kind, Enum) and isinstance(value, str):
        with contextlib.suppress(ValueError):
            return kind(value)
    return value


def knob(default: Any, group: str, help: str, **row: Any) -> Any:
    """A row of the table, written where ``Policy`` declares the knob's name and type."""
    return field(default=default, metadata={"knob": {"group": group, "help": help, **row}})


@dataclass(frozen=True, slots=True)
class Problem:
    """A value the policy refuses: the knob, the value, and what bounds it.

    ``bound`` is ``range`` (outside the row's bounds), ``type`` (not the row's kind),
    ``choice`` (not one of its values), ``unknown`` (no such knob), ``relation``: then
    ``other`` is the knob it must stay below, with ``other_value``, and ``words`` the rule;
    or ``derived``: ``value`` works ``other`` out to ``other_value``, outside ``other``'s
    range, and ``words`` says how (``4 × the output reserve, ...``).
    """

    field: str
    value: Any
    bound: str
    other: str = ""
    other_value: Any = None
    words: str = ""

    def __str__(self) -> str:
        if self.bound == "relation":
            value, other = _n(self.value), _n(self.other_value)
            return f"{self.field} ({value}) {self.words} {self.other} ({other})"
        if self.bound == "unknown":
            return f"{self.field}: no such knob"
        if self.field == "preset":
            return f"preset: unknown preset {self.value!r} (known: {', '.join(PRESETS)})"
        if self.bound == "derived" and self.other in KNOBS:
            return (
                f"{self.field} ({_n(self.value)}) makes {self.other} {_n(self.other_value)} "
                f"({self.words}), outside {_bounds(KNOBS[self.other])}"
            )
        row = KNOBS.get(self.field)
        if self.bound == "range" and row is not None:
            return f"{self.field}: expected {_bounds(row)}, got {self.value!r}"
        expected = (
            ", ".join(row.choices) if row and row.choices else getattr(row, "kind", str).__name__
        )
        if self.field == "tokenizer":
            expected = ", ".join(tokenizer_names())
        return f"{self.field}: expected {expected}, got {self.value!r}"


def _n(value: Any) -> str:
    return f"{value:,}" if isinstance(value, int) else repr(value)


def _bounds(row: Knob) -> str:
    lo = "" if row.low is None else f"{'>' if row.low_open else '≥'} {_n(row.low)}"
    hi = "" if row.high is None else f"≤ {_n(row.high)}"
    return " and ".join(w for w in (lo, hi) if w)


RELATIONS: tuple[tuple[str, str, str, Callable[[Any, Any], bool]], ...] = (
    ("tail_min_tokens", "must not exceed", "tail_max_tokens", operator.le),
    ("max_tokens", "must be smaller than", "context_window", operator.lt),
)
"""Rules between two knobs: (knob, words, other knob, test that must hold)."""


class PolicyError(ValueError):
    """Knob values the policy refuses; ``problems`` says which, with what bounds each."""

    def __init__(self, problems: tuple[Problem, ...]) -> None:
        super().__init__("; ".join(str(p) for p in problems))
        self.problems = problems


@lru_cache(maxsize=256)
def window_share(ratio: float, window: int) -> int:
    """``floor(window × ratio)`` with the ratio taken as written: ``0.9`` is nine tenths.

    Exact through ``Fraction``, and cached: the trigger is read at every plan and at every
    request of a replay, while a policy's ratio and window rarely change.
    """
    return int(Fraction(str(ratio)) * window)


TOKENIZER_HELP = (
    f"token counter: {', '.join(tokenizer_names(exact=False))} (estimates), "
    f"{', '.join(tokenizer_names(exact=True))} (exact)"
)


@dataclass(frozen=True, slots=True)
class Policy:
    """Every knob of the simulated context manager: the table of knobs, one row each."""

    preset: str = DEFAULT_PRESET  # the preset these values started from: a label, not a knob
    # The table, one row per knob, kept dense.
    # fmt: off
    tokenizer: str = knob(
        "plan", "general", TOKENIZER_HELP,
        pattern=TOKENIZER_PATTERN, flag="--tokenizer"
    )
    chars_per_token: float = knob(
        4.0, "general", "the plan estimator's characters per token",
        low=0.1, high=100, unit="characters per token", flag="--chars-per-token",
        applies=("tokenizer", ("plan",))
    )
    tokenizer_from_model: bool = knob(
        False, "general",
        "count with the tokenizer of the session's model when it is known (the agent counts with "
        "the provider's usage)"
    )
    context_window: int = knob(
        131_072, "window", "the model's context window, in tokens",
        low=256, high=100_000_000, unit="tokens", flag="--context-window",
        note=" or the window the session declares"
    )
    max_tokens: int = knob(
        32_768, "window", "output reserve: the tokens each request keeps for the answer",
        low=0, high=100_000_000, unit="tokens", flag="--max-tokens",
        note=", lowered to a quarter of a window it would take half of"
    )
    compact_trigger_ratio: float = knob(
        1.0, "window", "compact proactively from this share of the window (Codex: 0.9)",
        low=0, low_open=True, high=1.0, unit="share of the window"
    )
    reserve_system_and_tools: bool = knob(
        True, "window", "the history budget also reserves the system prompt and tool definitions"
    )
    input_limit: bool = knob(
        False, "window", "the window is the model's input limit (GPT-5: 272,000 of 400,000)"
    )
    unconfigured_window_factor: int = knob(
        0, "window", "with no window configured the agent budgets N × its reserve (PicoClaw 4)",
        low=0, unit="× the output reserve"
    )
    output_from_model: bool = knob(
        False, "window",
        "the output reserve is the model's maximum output, at most the preset's reserve"
    )
    assembly_budget: bool = knob(
        True, "window",
        "history that does not fit the budget is left out of the request; off: the whole history "
        "is sent until a compaction (PicoClaw legacy, OpenCode, Codex, Claude Code)"
    )
    sanitize_history: bool = knob(
        False, "window",
        "PicoClaw's request builder drops leading and unmatched tool messages before sending"
    )
    context_left_baseline: int = knob(
        0, "window",
        "'context left' discounts this many tokens of prompts and tools (Codex 12,000)",
        low=0, unit="tokens"
    )
    trigger_output_cap: int = knob(
        UNCAPPED, "trigger",
        "the trigger reserves the output reserve up to this many tokens (Claude Code 20,000, "
        "OpenCode 32,000, Codex 0)",
        low=0, unit="tokens"
    )
    trigger_buffer_output_cap: int = knob(
        0, "trigger", "a further buffer of min(N, the reserved output) (OpenCode 20,000)",
        low=0, unit="tokens"
    )
    trigger_buffer: int = knob(
        0, "trigger", "a further fixed buffer below the trigger (Claude Code 13,000)",
        low=0, unit="tokens"
    )
    trigger_input_reserve_cap: int = knob(
        UNCAPPED, "trigger", "with an input limit, reserve only min(N, out) (OpenCode 20,000)",
        low=0, unit="tokens"
    )
    auto_compact: bool = knob(
        True, "trigger", "compact proactively at the trigger; off: only when asked"
    )
    auto_compact_needs_window: bool = knob(
        False, "trigger",
        "no auto-compaction when the agent's own registry has no window for the model (Codex)"
    )
    trigger_check: TriggerCheck = knob(
        TriggerCheck.REQUEST, "trigger", "check before every call, or once a turn (PicoClaw)"
    )
    trigger_count: TriggerCount = knob(
        TriggerCount.LOCAL, "trigger", "replay compares the local count or reported usage"
    )
    compact_after_turn: bool = knob(
        False, "trigger", "one compaction after every turn, whatever the trigger (seahorse)"
    )
    trigger_inclusive: bool = knob(
        False, "trigger",
        "compact when the prompt reaches the trigger; off: only when it exceeds it"
    )
    summarize_message_threshold: int = knob(
        0, "trigger",
        "PicoClaw legacy: summarize after a turn when the history has more messages (0: never)",
        low=0, unit="messages"
    )
    summarize_token_percent: int = knob(
        75, "trigger", "PicoClaw legacy: or when the history exceeds this percentage of the window",
        low=1, high=100, unit="% of the window"
    )
    tail_mode: TailMode = knob(TailMode.TOKENS, "fresh tail", "tail measured in tokens or items")
    tail_ratio: float = knob(
        0.25, "fresh tail", "share of the budget (window − output reserve) for the tail",
        low=0, high=1, unit="share of the budget", flag="--tail-ratio",
        applies=("tail_mode", ("tokens",))
    )
    tail_min_tokens: int = knob(
        2_000, "fresh tail", "never protect fewer tokens",
        low=0, unit="tokens", flag="--tail-min", applies=("tail_mode", ("tokens",))
    )
    tail_max_tokens: int = knob(
        8_000, "fresh tail", "never protect more tokens",
        low=0, unit="tokens", flag="--tail-max", applies=("tail_mode", ("tokens",))
    )
    tail_min_turns: int = knob(
        2, "fresh tail", "always protect at least this many turns",
        low=0, unit="turns", flag="--tail-turns", applies=("tail_mode", ("tokens",))
    )
    tail_max_turns: int = knob(
        0, "fresh tail", "the tail holds at most this many turns (0: no limit; OpenCode 2)",
        low=0, unit="turns", applies=("tail_mode", ("tokens",))
    )
    tail_keep_active_turn: bool = knob(
        True, "fresh tail", "the tail holds the whole active turn, over its budget if need be"
    )
    tail_of_trigger: bool = knob(
        False, "fresh tail",
        "the tail's share is of the trigger (OpenCode's usable size), not of the budget"
    )
    tail_items: int = knob(
        32, "fresh tail", "items/messages mode: protect the last N items or messages",
        low=1, unit="items", flag="--tail-items", applies=("tail_mode", ("items", "messages"))
    )
    prune_mode: PruneMode = knob(
        PruneMode.TURNS, "prune", "how old tool outputs are pruned",
        flag="--prune-mode",
        note="; OpenCode's prune is opt-in (--preset opencode --prune-mode tokens)"
    )
    prune_stub: PruneStub = knob(
        PruneStub.PLAN, "prune", "the text a pruned output becomes",
        applies=("prune_mode", ("turns", "tokens", "results"))
    )
    prune_tools: PruneTools = knob(
        PruneTools.ALL, "prune", "whose outputs may be pruned",
        applies=("prune_mode", ("turns", "tokens", "results"))
    )
    prune_protected_turns: int = knob(
        2, "prune", "turns and tokens modes: tool outputs in the newest N turns are kept",
        low=0, unit="turns", applies=("prune_mode", ("turns", "tokens"))
    )
    prune_trigger_tokens: int = knob(
        0, "prune", "prune from a prompt of N tokens (Claude Code 100,000, inferred)",
        low=0, unit="tokens", flag="--prune-after",
        applies=("prune_mode", ("turns", "tokens", "results"))
    )
    prune_threshold: int = knob(
        1, "prune", "turns mode: prune only when at least this many outputs are stubbed",
        low=0, unit="tool outputs", applies=("prune_mode", ("turns",))
    )
    prune_protect_tokens: int = knob(
        40_000, "prune", "tokens mode: the newest N tokens of tool output are kept",
        low=0, unit="tokens", applies=("prune_mode", ("tokens",))
    )
    prune_minimum_tokens: int = knob(
        20_000, "prune", "tokens mode: prune only when more than N tokens are freed",
        low=0, unit="tokens", applies=("prune_mode", ("tokens",))
    )
    prune_size_output_text: bool = knob(
        False, "prune", "tokens mode: size an output by its text (OpenCode)",
        applies=("prune_mode", ("tokens",))
    )
    prune_keep_results: int = knob(
        3, "prune", "results mode: the newest N tool results are kept",
        low=0, unit="tool results", flag="--prune-keep", applies=("prune_mode", ("results",))
    )
    truncate_enabled: bool = knob(True, "truncate", "truncate huge tool outputs")
    truncate_max_lines: int = knob(
        2_000, "truncate", "tool outputs longer than this many lines are truncated",
        low=1, unit="lines", applies=("truncate_enabled", (True,))
    )
    truncate_max_bytes: int = knob(
        51_200, "truncate", "tool outputs larger than this many bytes are truncated",
        low=1, unit="bytes", applies=("truncate_enabled", (True,))
    )
    truncate_from_model: bool = knob(
        False, "truncate", "the model's tool-output limit (Codex gpt-5-codex: 40,000 bytes)"
    )
    truncate_style: TruncateStyle = knob(
        TruncateStyle.HEAD, "truncate",
        "keep the head of an output, its head and tail, its whole head lines, or the harness's cap",
        applies=("truncate_enabled", (True,))
    )
    structured_summaries: bool = knob(
        True, "compaction", "summaries fill the template's sections (off: free text)"
    )
    summary_template: SummaryTemplate = knob(
        SummaryTemplate.PLAN, "compaction", "whose summary template a compaction uses"
    )
    compaction_style: CompactionStyle = knob(
        CompactionStyle.SUMMARIZE, "compaction",
        "summarize the history before the tail, drop half, keep user messages, or a leaf"
    )
    compact_user_message_tokens: int = knob(
        20_000, "compaction", "Codex's compaction: the recent user messages it keeps, in tokens",
        low=0, unit="tokens", applies=("compaction_style", ("user_messages",))
    )
    # fmt: on

    reserve_lowered_from: int = 0  # the reserve fitting lowered, when it did: a record

    def __post_init__(self) -> None:
        problems: list[Problem] = []
        for row in KNOBS.values():
            value, problem = row.check(getattr(self, row.name))
            if problem is not None:
                problems.append(problem)
            elif value is not getattr(self, row.name):
                object.__setattr__(self, row.name, value)
        if not problems:
            for name, words, other, holds in RELATIONS:
                mine, theirs = getattr(self, name), getattr(self, other)
                if not holds(mine, theirs):
                    problems.append(Problem(name, mine, "relation", other, theirs, words))
        if problems:
            raise PolicyError(tuple(problems))

    @property
    def budget(self) -> int:
        """Tokens available for the prompt: the window less the output reserve."""
        return self.context_window - self.max_tokens

    @property
    def trigger_reserve(self) -> int:
        """What the trigger keeps below its share of the window: output and buffers.

        ``out = min(max_tokens, trigger_output_cap)``, then ``min(trigger_buffer_output_cap,
        out)`` and ``trigger_buffer`` on top — OpenCode's ``out``, Claude Code's ``min(out,
        20,000) + 13,000``, the plan's whole reserve, Codex's nothing. Where the window is an
        input limit, only ``min(trigger_input_reserve_cap, out)``: OpenCode's
        ``input − min(20,000, out)``.
        """
        out = min(self.max_tokens, self.trigger_output_cap)
        if self.input_limit and self.trigger_input_reserve_cap < UNCAPPED:
            return min(self.trigger_input_reserve_cap, out)
        return out + min(self.trigger_buffer_output_cap, out) + self.trigger_buffer

    @property
    def trigger_threshold(self) -> int:
        """The figure the prompt is compared with: ``floor(window × ratio) − trigger_reserve``.

        The ratio is taken as written (``0.9`` is nine tenths), so Codex's integer
        ``window · 9 / 10`` comes out exact.
        """
        share = window_share(self.compact_trigger_ratio, self.context_window)
        return max(0, share - self.trigger_reserve)

    @property
    def headroom(self) -> int:
        """The room the trigger keeps at the top of the window: ``window − trigger_threshold``.

        The gap between the window and the largest prompt the trigger lets through (strict
        triggers) or the prompt it fires at (inclusive ones): the plan's whole output reserve,
        Claude Code's 33,000 of 200,000 (``/context``'s "autocompact buffer").
        """
        return max(0, self.context_window - self.trigger_threshold)

    @property
    def trigger(self) -> int | None:
        """The smallest prompt (system, tools, summary and history) at which this policy compacts.

        Inclusive triggers (``count ≥ usable``) compact at the threshold itself; the plan's and
        PicoClaw's strict ``prompt + max_tokens > window`` one token above it. ``None`` without
        auto-compaction.
        """
        if not self.auto_compact:
            return None
        threshold = self.trigger_threshold
        return threshold if self.trigger_inclusive else threshold + 1

    @property
    def unconfigured_window(self) -> int | None:
        """The window the agent itself would use with none configured (PicoClaw's
        ``max_tokens · 4``), or ``None`` when it always knows its model's."""
        if not self.unconfigured_window_factor:
            return None
        return self.unconfigured_window_factor * (self.reserve_lowered_from or self.max_tokens)

    def context_left(self, tokens: int) -> float:
        """The share of the window left, in percent, as the agent's status line shows it.

        Codex: ``effective = window − baseline``, ``used = max(0, tokens − baseline)``,
        ``(effective − used) / effective``, clamped to 0–100; 130,000 of 272,000 → 54.6 %.
        With no baseline it is simply the share of the window the prompt leaves.
        """
        effective = self.context_window - self.context_left_baseline
        if effective <= 0:
            return 0.0
        used = max(0, tokens - self.context_left_baseline)
        return max(0.0, min(100.0, (effective - used) / effective * 100))

    def compacts(self, prompt_tokens: int) -> bool:
        """Whether a prompt of this size makes the policy compact proactively."""
        trigger = self.trigger
        return trigger is not None and prompt_tokens >= trigger

    def as_dict(self) -> dict[str, Any]:
        """Every field by name, in the table's order (choice knobs as their enum members)."""
        return {name: getattr(self, name) for name in FIELDS}

    def as_json(self) -> dict[str, Any]:
        """Every field by name with choice knobs as their values, for a JSON document."""
        return {k: getattr(v, "value", v) for k, v in self.as_dict().items()}

    def with_changes(self, **changes: Any) -> Policy:
        """A new, validated policy with some knobs changed (raises ``PolicyError``).

        Changing the window or the reserve ends the record that the reserve was lowered.
        """
        if "max_tokens" in changes or "context_window" in changes:
            changes.setdefault("reserve_lowered_from", 0)
        return make_policy({**self.as_dict(), **changes})


def _table() -> dict[str, Knob]:
    types = get_type_hints(Policy)
    return {
        f.name: Knob(f.name, types[f.name], f.default, **f.metadata["knob"])
        for f in fields(Policy)
        if "knob" in f.metadata
    }


KNOBS: Mapping[str, Knob] = _table()
"""The knob table by name, in ``Policy``'s order: everything a user may set."""

FIELDS: tuple[str, ...] = tuple(f.name for f in fields(Policy))
"""Every field of a policy: the knobs, the preset's name and the reserve-lowered record."""


def make_policy(values: Mapping[str, Any]) -> Policy:
    """Validate knob values into a ``Policy`` (raises ``PolicyError`` naming each problem)."""
    unknown = [Problem(k, v, "unknown") for k, v in values.items() if k not in FIELDS]
    if unknown:
        raise PolicyError(tuple(unknown))
    return Policy(**values)


def preset(name: str, **overrides: Any) -> Policy:
    """The named preset, with optional knob overrides."""
    return make_policy({**_preset(name).values, **overrides})


def _preset(name: str) -> Preset:
    try:
        return PRESETS[name]
    except KeyError:
        raise PolicyError((Problem("preset", name, "choice"),)) from None


def policy_for_session(
    preset_name: str, session: Session, overrides: Mapping[str, Any] | None = None
) -> Policy:
    """The preset for one session: its model's window, output and tokenizer, unless given
    (the rules are ``core.policies.fit.session_values``)."""
    row = _preset(preset_name)
    defaults = (KNOBS["context_window"].default, KNOBS["max_tokens"].default)
    values, derived = session_values(row.values, session, overrides or {}, defaults)
    try:
        return make_policy(values)
    except PolicyError as err:
        if not derived:
            raise
        raise PolicyError(_blame_sources(err.problems, derived, values)) from None


def _blame_sources(
    problems: tuple[Problem, ...], derived: Mapping[str, Derived], values: Mapping[str, Any]
) -> tuple[Problem, ...]:
    """``problems`` with a worked-out knob's range put on the knob it was worked out from.

    The user gave that one, not the other: ``--max-tokens 10`` under PicoClaw is refused for
    the window of 40 it makes, never as a ``--context-window`` no one typed. A source refused
    on its own already says what is wrong, so its consequence is not said twice.
    """
    refused = {p.field for p in problems}
    out: list[Problem] = []
    for p in problems:
        how = derived.get(p.field)
        if how is None or p.bound != "range":
            out.append(p)
        elif how.source not in refused:
            source = values.get(how.source, KNOBS[how.source].default)
            out.append(Problem(how.source, source, "derived", p.field, p.value, how.words))
    return tuple(out)


def registry_alternative(policy: Policy, session: Session) -> dict[str, int | None]:
    """For an agent that never looks the model up (PicoClaw), the registry's window for the
    session's model, shown beside the window the agent budgets; empty for the others."""
    from ctxtui.core.policies.windows import lookup

    if not policy.unconfigured_window_factor:
        return {}
    entry = lookup(session.meta.model)
    return {"window_registry": entry.window if entry is not None else None}


def window_source_of(policy: Policy, session: Session) -> WindowSource:
    """Where ``policy``'s window came from for ``session`` (``model_windows.window_source``)."""
    from ctxtui.core.policies.windows import window_source

    row = PRESETS.get(policy.preset)
    base = (row.knobs if row else {}).get("context_window", KNOBS["context_window"].default)
    return window_source(
        policy.context_window, int(base), session.meta.context_window, session.meta.model
    )
