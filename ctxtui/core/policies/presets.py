"""The presets: each agent's policy as knob values, with where every figure comes from.

A preset is a row of knob values, never a special case in the planner. The comment above each
row names its section of docs/presets.md, which gives every figure and its origin.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

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
from ctxtui.core.summaries.summary_template import SummaryTemplate


@dataclass(frozen=True, slots=True)
class Preset:
    """One preset: its name, the line ``ctxtui presets`` prints, and the knobs it sets
    (a knob it does not name keeps the policy's default)."""

    name: str
    line: str
    knobs: Mapping[str, Any]
    note: str = ""  # said after its name in --preset's help
    compared: bool = True  # among the presets compare shows when none are named

    @property
    def values(self) -> dict[str, Any]:
        """The knobs it sets, with its name as the policy's ``preset``."""
        return {"preset": self.name, **self.knobs}


ROWS: tuple[Preset, ...] = (
    # The plan's seven improvements with its sketch's defects fixed (docs/presets.md#plan).
    Preset(
        "plan",
        "the context-window plan: budgeted tail, turn pruning, summary",
        note="the context-window plan for PicoClaw, as designed",
        knobs={
            "tokenizer": "plan",
            "chars_per_token": 4.0,
            "context_window": 131_072,
            "max_tokens": 32_768,
            "compact_trigger_ratio": 1.0,
            "reserve_system_and_tools": True,
            "tail_mode": TailMode.TOKENS,
            "tail_ratio": 0.25,
            "tail_min_tokens": 2_000,
            "tail_max_tokens": 8_000,
            "tail_min_turns": 2,
            "prune_mode": PruneMode.TURNS,
            "prune_protected_turns": 2,
            "prune_threshold": 1,
            "truncate_enabled": True,
            "structured_summaries": True,
            "compaction_style": CompactionStyle.SUMMARIZE,
        },
    ),
    # PicoClaw main's default context manager, legacy (docs/presets.md#picoclaw): the whole
    # history after meta.skip is sent; once per turn, before its first call, prompt +
    # max_tokens > window runs forceCompression; after a turn, > 20 messages or history > 75 %
    # of the window summarizes all but the newest ~4 messages (snapped to a turn start).
    Preset(
        "picoclaw",
        "PicoClaw main, legacy: whole history, after-turn summary",
        note="PicoClaw main's legacy manager",
        knobs={
            "tokenizer": "picoclaw",
            "chars_per_token": 2.5,
            "context_window": 131_072,  # context_window 0 → max_tokens · 4
            "max_tokens": 32_768,  # DefaultConfig
            "unconfigured_window_factor": 4,  # instance.go: contextWindow = maxTokens * 4
            "trigger_check": TriggerCheck.TURN,  # pipeline_setup.go, before the turn's first call
            "reserve_system_and_tools": False,
            "assembly_budget": False,
            "sanitize_history": True,
            "summarize_message_threshold": 20,
            "summarize_token_percent": 75,
            "tail_mode": TailMode.MESSAGES,
            "tail_items": 4,
            "tail_min_turns": 0,
            "prune_mode": PruneMode.OFF,
            "truncate_enabled": False,
            "structured_summaries": False,
            "summary_template": SummaryTemplate.PICOCLAW,
            "compaction_style": CompactionStyle.DROP_OLDEST_HALF,
        },
    ),
    # PicoClaw main's seahorse manager (docs/presets.md#picoclaw-seahorse): Assemble keeps the
    # last 32 items, trimmed only when over window − max_tokens, and fills the rest newest-first
    # up to the first item that does not fit; a compaction is one leaf pass, run after every
    # turn (short_compaction.go) and by the per-turn proactive check.
    Preset(
        "picoclaw-seahorse",
        "PicoClaw main, seahorse: 32-item tail, leaf summaries",
        compared=False,
        knobs={
            "tokenizer": "picoclaw",
            "chars_per_token": 2.5,
            "context_window": 131_072,
            "max_tokens": 32_768,
            "unconfigured_window_factor": 4,
            "trigger_check": TriggerCheck.TURN,
            "compact_after_turn": True,
            "reserve_system_and_tools": False,
            "sanitize_history": True,
            "tail_mode": TailMode.ITEMS,
            "tail_items": 32,
            "tail_min_turns": 0,
            "prune_mode": PruneMode.OFF,
            "truncate_enabled": False,
            "structured_summaries": False,
            "summary_template": SummaryTemplate.PICOCLAW,
            "compaction_style": CompactionStyle.LEAF,
        },
    ),
    # OpenCode (docs/presets.md#opencode): round(len/4) estimator; after every step, the
    # step's reported usage ≥ usable compacts, usable = input − min(20,000, out) for a model
    # with an input limit, else window − out, out = min(model output, 32,000); tail: of the
    # newest 2 turns, clamp(25 % of usable, 2,000, 15,000) tokens, split inside a turn; prune
    # opt-in (prune_mode tokens); 2,000 lines / 51,200 bytes truncation.
    Preset(
        "opencode",
        "OpenCode: compacts at window − out (input − min(20k, out))",
        knobs={
            "tokenizer": "opencode",
            "context_window": 200_000,
            "max_tokens": 32_000,  # OUTPUT_TOKEN_MAX
            "output_from_model": True,
            "assembly_budget": False,
            "reserve_system_and_tools": False,
            "trigger_output_cap": 32_000,
            "trigger_input_reserve_cap": 20_000,  # COMPACTION_BUFFER
            "trigger_inclusive": True,
            "trigger_count": TriggerCount.REPORTED,
            "tail_mode": TailMode.TOKENS,
            "tail_ratio": 0.25,
            "tail_min_tokens": 2_000,
            "tail_max_tokens": 15_000,
            "tail_min_turns": 0,
            "tail_max_turns": 2,  # DEFAULT_TAIL_TURNS
            "tail_keep_active_turn": False,
            "tail_of_trigger": True,
            "prune_mode": PruneMode.OFF,  # compaction.prune defaults to false
            "prune_stub": PruneStub.CLEARED,
            "prune_tools": PruneTools.ALL_BUT_SKILL,
            "prune_protected_turns": 2,
            "prune_protect_tokens": 40_000,  # PRUNE_PROTECT
            "prune_minimum_tokens": 20_000,  # PRUNE_MINIMUM
            "prune_size_output_text": True,  # Token.estimate(part.state.output)
            "truncate_enabled": True,
            "truncate_max_lines": 2_000,
            "truncate_max_bytes": 51_200,
            "truncate_style": TruncateStyle.WHOLE_LINES,  # Truncate.output: whole lines
            "structured_summaries": True,
            "summary_template": SummaryTemplate.OPENCODE,
            "compaction_style": CompactionStyle.SUMMARIZE,
        },
    ),
    # Codex CLI (docs/presets.md#codex): compacts when the last reported usage reaches
    # window · 9/10 (its importer reads the window back from the 95 % rollouts record); a
    # model without a known window never
    # auto-compacts; a compaction keeps the recent user messages (20,000 tokens, bytes / 4)
    # and one summary user message; tool outputs reach the model cut, head and tail.
    Preset(
        "codex",
        "Codex CLI: compacts at 90 %, keeps user messages + a summary",
        knobs={
            "tokenizer": "tiktoken:o200k_base",
            "tokenizer_from_model": True,
            "context_window": 272_000,
            "max_tokens": 0,  # 272,000 is the input limit: the output has its own room
            "assembly_budget": False,
            "reserve_system_and_tools": False,
            "compact_trigger_ratio": 0.9,
            "auto_compact_needs_window": True,
            "trigger_count": TriggerCount.REPORTED_PLUS_NEW,
            "context_left_baseline": 12_000,  # BASELINE_TOKENS
            "trigger_output_cap": 0,
            "trigger_inclusive": True,
            "tail_mode": TailMode.NONE,
            "tail_min_turns": 0,
            "prune_mode": PruneMode.OFF,
            "truncate_enabled": True,
            "truncate_max_lines": UNCAPPED,  # cut by bytes only: TruncationPolicy
            "truncate_max_bytes": 10_000,  # Bytes(10_000), the default family's policy
            "truncate_from_model": True,  # gpt-5-codex: Tokens(10_000)
            "truncate_style": TruncateStyle.HEAD_TAIL,
            "structured_summaries": True,
            "summary_template": SummaryTemplate.CODEX,
            "compaction_style": CompactionStyle.USER_MESSAGES,
            "compact_user_message_tokens": 20_000,
        },
    ),
    # Claude Code (docs/presets.md#claude-code): compacts at window − min(max output, 20,000)
    # − 13,000; past a threshold (inferred: 100,000) old results of its built-in tools are
    # cleared but the newest 3; the 9-section summary replaces the whole conversation.
    Preset(
        "claude-code",
        "Claude Code: compacts at window − min(out, 20k) − 13k",
        knobs={
            "tokenizer": "tiktoken:cl100k_base",  # a stand-in: Claude's tokenizer is not public
            "tokenizer_from_model": True,
            "context_window": 200_000,
            "max_tokens": 32_000,  # Claude Code's default output ceiling
            "output_from_model": True,
            "assembly_budget": False,
            "reserve_system_and_tools": False,
            "trigger_output_cap": 20_000,  # MAX_OUTPUT_TOKENS_FOR_SUMMARY
            "trigger_buffer": 13_000,  # AUTOCOMPACT_BUFFER_TOKENS
            "trigger_inclusive": True,
            "tail_mode": TailMode.NONE,
            "tail_min_turns": 0,
            "prune_mode": PruneMode.RESULTS,
            "prune_stub": PruneStub.CLEARED,
            "prune_tools": PruneTools.CLAUDE_CODE,
            "prune_keep_results": 3,
            "prune_trigger_tokens": 100_000,  # inferred: the API's clear_tool_uses default
            "truncate_enabled": True,  # BASH_MAX_OUTPUT_LENGTH: its format row's output_cap
            "truncate_max_lines": UNCAPPED,
            "truncate_max_bytes": 30_000,  # characters: the claude-code row's Bash output_cap
            "truncate_style": TruncateStyle.HARNESS_CAP,
            "structured_summaries": True,
            "summary_template": SummaryTemplate.CLAUDE_CODE,
            "compaction_style": CompactionStyle.SUMMARIZE,
        },
    ),
)

PRESETS: Mapping[str, Preset] = {p.name: p for p in ROWS}
"""The presets by name, in the order ``ctxtui presets``, ``--help`` and the app list them."""

DEFAULT_PRESET = "plan"

COMPARED: tuple[str, ...] = tuple(p.name for p in ROWS if p.compared)
"""What ``compare`` and the compare view show when no presets are named."""
