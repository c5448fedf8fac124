"""The policy's choice knobs: how the tail is measured, what pruning and compaction do.

Each mode is a ``StrEnum`` so the settings panel offers its values and the report prints them.
"""

from __future__ import annotations

from enum import StrEnum


class TailMode(StrEnum):
    """How the fresh tail is measured."""

    TOKENS = "tokens"  # the plan, OpenCode: clamp(ratio × base, min, max) tokens
    ITEMS = "items"  # PicoClaw seahorse as shipped: the last N items, trimmed to the budget
    MESSAGES = "messages"  # PicoClaw legacy: the last N messages, snapped back to a turn start
    NONE = "none"  # Codex, Claude Code: a compaction keeps no verbatim tail


class PruneMode(StrEnum):
    """How old tool outputs are pruned (replaced by a stub)."""

    OFF = "off"
    TURNS = "turns"  # the plan's rule, fixed: protect the newest N *turns*, stub the rest
    TOKENS = "tokens"  # OpenCode: protect the newest N tokens of output, prune only if > M freed
    RESULTS = "results"  # Claude Code's microcompact: keep the newest N results, stub the rest


class PruneStub(StrEnum):
    """The text a pruned output is replaced with; the value is the stub, byte for byte."""

    PLAN = "[Tool output pruned — use expand for details]"  # the plan (em dash)
    CLEARED = "[Old tool result content cleared]"  # OpenCode and Claude Code


class PruneTools(StrEnum):
    """Which tools' outputs pruning may touch (the lists live in ``core.planning.prune``)."""

    ALL = "all"
    ALL_BUT_SKILL = "all_but_skill"  # OpenCode's PRUNE_PROTECTED_TOOLS = ["skill"]
    CLAUDE_CODE = "claude_code"  # Read, Bash, Grep, Glob, Edit, Write, WebFetch, WebSearch


class TriggerCheck(StrEnum):
    """When the proactive trigger is looked at."""

    REQUEST = "request"  # before every call (the plan, OpenCode, Codex, Claude Code)
    TURN = "turn"  # once per turn, before its first call (PicoClaw's pipeline_setup)


class TriggerCount(StrEnum):
    """Which figure the proactive trigger compares."""

    LOCAL = "local"  # the next prompt as counted here
    REPORTED = "reported"  # the previous call's reported total, input + output (OpenCode)
    REPORTED_PLUS_NEW = "reported_plus_new"  # that, plus what was added since, counted (Codex)


class TruncateStyle(StrEnum):
    """Which part of an over-limit tool output the model keeps."""

    HEAD = "head"  # the plan: the first lines, then a notice naming the saved file
    HEAD_TAIL = "head_tail"  # Codex: half the line budget from each end, a marker between
    WHOLE_LINES = "whole_lines"  # OpenCode: whole lines from the head, to the first over
    HARNESS_CAP = "harness_cap"  # Claude Code: Bash alone, head and tail within 30,000 chars


class CompactionStyle(StrEnum):
    """What a compaction does to the history outside the fresh tail."""

    SUMMARIZE = "summarize"  # the plan: replace everything before the tail with one summary
    DROP_OLDEST_HALF = "drop_oldest_half"  # PicoClaw legacy forceCompression
    USER_MESSAGES = "user_messages"  # Codex: recent user messages + one summary user message
    LEAF = "leaf"  # PicoClaw seahorse: the oldest run outside the tail becomes a leaf summary


UNCAPPED = 100_000_000
"""A cap no window reaches: the whole figure counts."""
