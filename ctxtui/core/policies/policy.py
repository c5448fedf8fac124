"""The policy: every knob of the budget engine, validated, plus the named presets.

A ``Policy`` is immutable; changing a knob makes a new one (``policy.with_changes(...)``), so a
plan depends only on the session and the policy, never on the order knobs were turned in.
Each field carries a description and a ``group`` so that the app and ``--help`` can present
the knobs without restating them.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from functools import lru_cache
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from ctxtui.core.policies.fit import fit_reserve, session_values
from ctxtui.core.policies.modes import (
    UNCAPPED,
    CompactionStyle,
    PruneMode,
    PruneStub,
    PruneTools,
    SummaryTemplate,
    TailMode,
    TriggerCheck,
    TriggerCount,
    TruncateStyle,
)
from ctxtui.core.policies.presets import PRESET_LINES, PRESETS, PresetName
from ctxtui.core.policies.windows import WindowSource, window_source
from ctxtui.core.session.models import Session

__all__ = [
    "NOT_KNOBS",
    "PRESETS",
    "PRESET_LINES",
    "CompactionStyle",
    "Policy",
    "PolicyError",
    "PresetName",
    "PruneMode",
    "PruneStub",
    "PruneTools",
    "SummaryTemplate",
    "TailMode",
    "TriggerCheck",
    "TriggerCount",
    "TruncateStyle",
    "WindowSource",
    "fit_reserve",
    "knob_names",
    "make_policy",
    "policy_for_session",
    "preset",
    "window_source_of",
]


def _knob(default: Any, group: str, description: str, **constraints: Any) -> Any:
    return Field(
        default=default,
        description=description,
        json_schema_extra={"group": group},
        **constraints,
    )


@lru_cache(maxsize=256)
def window_share(ratio: float, window: int) -> int:
    """``floor(window × ratio)`` with the ratio taken as written: ``0.9`` is nine tenths.

    Exact through ``Fraction``, which costs ~40 µs a call, and the trigger is read at every
    plan and at every request of a replay; a policy's ratio and window rarely change.
    """
    return int(Fraction(str(ratio)) * window)


class Policy(BaseModel):
    """Every knob of the simulated context manager."""

    model_config = ConfigDict(frozen=True, extra="forbid", validate_default=True, defer_build=True)

    preset: str = _knob("plan", "general", "the preset these values started from")
    tokenizer: str = _knob(
        "plan",
        "general",
        "token counter: plan, picoclaw, opencode (estimates), tiktoken:ENCODING, llama3, qwen2 "
        "(exact)",
        pattern=r"^(plan|picoclaw|opencode|tiktoken:[A-Za-z0-9_.-]+|llama3|qwen2)$",
    )
    chars_per_token: float = _knob(
        4.0, "general", "the plan estimator's characters per token", ge=0.1, le=100
    )  # ≥ 0.1: characters ÷ a tinier figure can overflow a float (1e-310 does)
    tokenizer_from_model: bool = _knob(
        False,
        "general",
        "count with the tokenizer of the session's model when it is known (the agent counts "
        "with the provider's usage)",
    )
    context_window: int = _knob(
        131_072, "window", "the model's context window, in tokens", ge=256, le=100_000_000
    )
    max_tokens: int = _knob(
        32_768,
        "window",
        "output reserve: the tokens each request keeps for the answer",
        ge=0,
        le=100_000_000,
    )
    compact_trigger_ratio: float = _knob(
        1.0,
        "window",
        "compact proactively from this share of the window (Codex: 0.9)",
        gt=0,
        le=1.0,
    )
    reserve_system_and_tools: bool = _knob(
        True,
        "window",
        "the history budget also reserves the system prompt and tool definitions",
    )
    input_limit: bool = _knob(
        False, "window", "the window is the model's input limit (GPT-5: 272,000 of 400,000)"
    )
    unconfigured_window_factor: int = _knob(
        0,
        "window",
        "with no window configured the agent budgets N × its reserve (PicoClaw 4)",
        ge=0,
    )
    output_from_model: bool = _knob(
        False,
        "window",
        "the output reserve is the model's maximum output, at most the preset's reserve",
    )
    assembly_budget: bool = _knob(
        True,
        "window",
        "history that does not fit the budget is left out of the request; off: the whole "
        "history is sent until a compaction (PicoClaw legacy, OpenCode, Codex, Claude Code)",
    )
    sanitize_history: bool = _knob(
        False,
        "window",
        "PicoClaw's request builder drops leading and unmatched tool messages before sending",
    )
    context_left_baseline: int = _knob(
        0,
        "window",
        "'context left' discounts this many tokens of prompts and tools (Codex 12,000)",
        ge=0,
    )
    trigger_output_cap: int = _knob(
        UNCAPPED,
        "trigger",
        "the trigger reserves the output reserve up to this many tokens (Claude Code 20,000, "
        "OpenCode 32,000, Codex 0)",
        ge=0,
    )
    trigger_buffer_output_cap: int = _knob(
        0,
        "trigger",
        "a further buffer of min(N, the reserved output) (OpenCode 20,000)",
        ge=0,
    )
    trigger_buffer: int = _knob(
        0, "trigger", "a further fixed buffer below the trigger (Claude Code 13,000)", ge=0
    )
    trigger_input_reserve_cap: int = _knob(
        UNCAPPED, "trigger", "with an input limit, reserve only min(N, out) (OpenCode 20,000)", ge=0
    )
    auto_compact: bool = _knob(
        True, "trigger", "compact proactively at the trigger; off: only when asked"
    )
    auto_compact_needs_window: bool = _knob(
        False, "trigger", "no auto-compaction when no window is known for the model (Codex)"
    )
    trigger_check: TriggerCheck = _knob(
        TriggerCheck.REQUEST, "trigger", "check before every call, or once a turn (PicoClaw)"
    )
    trigger_count: TriggerCount = _knob(
        TriggerCount.LOCAL, "trigger", "replay compares the local count or reported usage"
    )
    compact_after_turn: bool = _knob(
        False, "trigger", "one compaction after every turn, whatever the trigger (seahorse)"
    )
    trigger_inclusive: bool = _knob(
        False,
        "trigger",
        "compact when the prompt reaches the trigger; off: only when it exceeds it",
    )
    summarize_message_threshold: int = _knob(
        0,
        "trigger",
        "PicoClaw legacy: summarize after a turn when the history has more messages (0: never)",
        ge=0,
    )
    summarize_token_percent: int = _knob(
        75,
        "trigger",
        "PicoClaw legacy: or when the history exceeds this percentage of the window",
        ge=1,
        le=100,
    )
    tail_mode: TailMode = _knob(TailMode.TOKENS, "fresh tail", "tail measured in tokens or items")
    tail_ratio: float = _knob(
        0.25, "fresh tail", "share of the budget (window − output reserve) for the tail", ge=0, le=1
    )
    tail_min_tokens: int = _knob(2_000, "fresh tail", "never protect fewer tokens", ge=0)
    tail_max_tokens: int = _knob(8_000, "fresh tail", "never protect more tokens", ge=0)
    tail_min_turns: int = _knob(2, "fresh tail", "always protect at least this many turns", ge=0)
    tail_max_turns: int = _knob(
        0, "fresh tail", "the tail holds at most this many turns (0: no limit; OpenCode 2)", ge=0
    )
    tail_keep_active_turn: bool = _knob(
        True, "fresh tail", "the tail holds the whole active turn, over its budget if need be"
    )
    tail_of_trigger: bool = _knob(
        False,
        "fresh tail",
        "the tail's share is of the trigger (OpenCode's usable size), not of the budget",
    )
    tail_items: int = _knob(
        32, "fresh tail", "items/messages mode: protect the last N items or messages", ge=1
    )
    prune_mode: PruneMode = _knob(PruneMode.TURNS, "prune", "how old tool outputs are pruned")
    prune_stub: PruneStub = _knob(PruneStub.PLAN, "prune", "the text a pruned output becomes")
    prune_tools: PruneTools = _knob(PruneTools.ALL, "prune", "whose outputs may be pruned")
    prune_protected_turns: int = _knob(
        2, "prune", "turns and tokens modes: tool outputs in the newest N turns are kept", ge=0
    )
    prune_trigger_tokens: int = _knob(
        0, "prune", "prune from a prompt of N tokens (Claude Code 100,000, inferred)", ge=0
    )
    prune_threshold: int = _knob(
        1, "prune", "turns mode: prune only when at least this many outputs are stubbed", ge=0
    )
    prune_protect_tokens: int = _knob(
        40_000, "prune", "tokens mode: the newest N tokens of tool output are kept", ge=0
    )
    prune_minimum_tokens: int = _knob(
        20_000, "prune", "tokens mode: prune only when more than N tokens are freed", ge=0
    )
    prune_size_output_text: bool = _knob(
        False, "prune", "tokens mode: size an output by its text (OpenCode)"
    )
    prune_keep_results: int = _knob(
        3, "prune", "results mode: the newest N tool results are kept", ge=0
    )
    truncate_enabled: bool = _knob(True, "truncate", "truncate huge tool outputs")
    truncate_max_lines: int = _knob(
        2_000, "truncate", "tool outputs longer than this many lines are truncated", ge=1
    )
    truncate_max_bytes: int = _knob(
        51_200, "truncate", "tool outputs larger than this many bytes are truncated", ge=1
    )
    truncate_from_model: bool = _knob(
        False, "truncate", "the model's tool-output limit (Codex gpt-5-codex: 40,000 bytes)"
    )
    truncate_style: TruncateStyle = _knob(
        TruncateStyle.HEAD, "truncate", "keep the head of an output, or its head and tail"
    )
    structured_summaries: bool = _knob(
        True, "compaction", "summaries fill the template's sections (off: free text)"
    )
    summary_template: SummaryTemplate = _knob(
        SummaryTemplate.PLAN, "compaction", "whose summary template a compaction uses"
    )
    compaction_style: CompactionStyle = _knob(
        CompactionStyle.SUMMARIZE,
        "compaction",
        "summarize the history before the tail, drop half, keep user messages, or a leaf",
    )
    compact_user_message_tokens: int = _knob(
        20_000,
        "compaction",
        "Codex's compaction: the recent user messages it keeps, in tokens",
        ge=0,
    )

    reserve_lowered_from: int = Field(default=0, ge=0, description="the reserve fitting lowered")

    @model_validator(mode="after")
    def _check_relations(self) -> Policy:
        if self.tail_min_tokens > self.tail_max_tokens:
            raise ValueError(
                f"tail_min_tokens ({self.tail_min_tokens:,}) must not exceed "
                f"tail_max_tokens ({self.tail_max_tokens:,})"
            )
        if self.max_tokens >= self.context_window:
            raise ValueError(
                f"max_tokens ({self.max_tokens:,}) must be smaller than "
                f"context_window ({self.context_window:,})"
            )
        return self

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

    def with_changes(self, **changes: Any) -> Policy:
        """A new, validated policy with some knobs changed (raises ``PolicyError``).

        Changing the window or the reserve ends the record that the reserve was lowered.
        """
        if "max_tokens" in changes or "context_window" in changes:
            changes.setdefault("reserve_lowered_from", 0)
        return make_policy({**self.model_dump(), **changes})


class PolicyError(ValueError):
    """A knob out of range; the message names the knob and what it accepts."""


def _explain(err: ValidationError) -> str:
    parts: list[str] = []
    for e in err.errors():
        knob = ".".join(str(x) for x in e["loc"]) or "policy"
        msg = str(e["msg"]).removeprefix("Value error, ")
        parts.append(f"{knob}: {msg}" if e["loc"] else msg)
    return "; ".join(parts)


def make_policy(values: dict[str, Any]) -> Policy:
    """Validate knob values into a ``Policy``, turning pydantic's errors into one line."""
    try:
        return Policy.model_validate(values)
    except ValidationError as err:
        raise PolicyError(_explain(err)) from None


def preset(name: str, **overrides: Any) -> Policy:
    """The named preset, with optional knob overrides."""
    try:
        base = PRESETS[name]
    except KeyError:
        known = ", ".join(PRESETS)
        raise PolicyError(f"preset: unknown preset {name!r} (known: {known})") from None
    return make_policy({**base, **overrides})


NOT_KNOBS = frozenset({"preset", "reserve_lowered_from"})
"""Policy fields that record where the values came from; no user sets them."""


def knob_names() -> tuple[str, ...]:
    """The knobs a user may set, in display order (``preset`` is a label, not a knob)."""
    return tuple(n for n in Policy.model_fields if n not in NOT_KNOBS)


def policy_for_session(
    preset_name: str, session: Session, overrides: Mapping[str, Any] | None = None
) -> Policy:
    """The preset for one session: its model's window, output and tokenizer, unless given
    (the rules are ``core.policies.fit.session_values``)."""
    if preset_name not in PRESETS:
        preset(preset_name)  # raises the PolicyError naming the known presets
    fields = Policy.model_fields
    defaults = (int(fields["context_window"].default), int(fields["max_tokens"].default))
    return make_policy(session_values(PRESETS[preset_name], session, overrides or {}, defaults))


def window_source_of(policy: Policy, session: Session) -> WindowSource:
    """Where ``policy``'s window came from for ``session`` (``model_windows.window_source``)."""
    base = PRESETS.get(policy.preset, {}).get(
        "context_window", Policy.model_fields["context_window"].default
    )
    return window_source(
        policy.context_window, int(base), session.meta.context_window, session.meta.model
    )
