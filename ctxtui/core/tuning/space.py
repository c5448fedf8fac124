"""What ``tune`` searches: for each agent, the settings it exposes, within the ranges it
accepts, and a grid of candidate values over them.

A dimension is one of the agent's own settings (its name as the agent spells it), the knob
it moves, the range the agent accepts and the values tried. A candidate is one value per
dimension; its knob values for a session come from the agent's own rules
(``core.tuning.configured``), so a candidate is exactly what the agent would do with those
settings, and what ``--write-config`` writes back. The ``plan`` agent's dimensions are
ctxtui's own knobs: they are searched only with ``--agent plan``.

The grids are small (at most ``GRID_LIMIT`` candidates), so the search is exhaustive: every
candidate is replayed over every session. A sampler (Optuna's multi-objective one) pays only
where the grid is too large to replay whole; none of these is.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ctxtui.core.policies.modes import PruneMode
from ctxtui.core.policies.policy import Policy
from ctxtui.core.tuning.configured import AGENTS, AgentConfig, Setting, configured_values, overlay

GRID_LIMIT = 200
"""The most candidates a grid may hold (each is a replay of every session)."""

Settings = tuple[tuple[str, Any], ...]
"""One candidate: the agent's settings, as (name, value) pairs in the dimensions' order."""


@dataclass(frozen=True, slots=True)
class Dimension:
    """One setting searched: its name in the agent's config, the knob it moves, the range the
    agent accepts and the values tried."""

    key: str
    knob: str
    low: Any
    high: Any
    values: tuple[Any, ...]
    where: str  # where the agent reads it: "settings.json env", "config.toml", ...

    def as_json(self) -> dict[str, Any]:
        return {
            "name": self.knob,
            "agent_key": self.key,
            "range": [self.low, self.high],
            "values": list(self.values),
            "where": self.where,
        }


CODEX_WINDOW = 272_000  # the codex preset's window: the limits tried are shares of it

SPACES: Mapping[str, tuple[Dimension, ...]] = {
    # Claude Code: the override only lowers the trigger (capped at the default threshold,
    # #31806), 1–100 accepted; 85 is above every default threshold's share of a 200,000 window.
    "claude-code": (
        Dimension(
            "CLAUDE_AUTOCOMPACT_PCT_OVERRIDE", "trigger_buffer", 1, 100,
            tuple(range(40, 90, 5)), "~/.claude/settings.json env",
        ),
    ),
    # Codex: any positive limit, at most 90 % of the window (openai_models.rs).
    "codex": (
        Dimension(
            "model_auto_compact_token_limit", "trigger_buffer", 1, CODEX_WINDOW * 9 // 10,
            tuple(CODEX_WINDOW * p // 100 for p in range(40, 91, 5)), "~/.codex/config.toml",
        ),
    ),
    # OpenCode: compaction.reserved and preserve_recent_tokens are non-negative integers,
    # prune a boolean (config.ts).
    "opencode": (
        Dimension(
            "reserved", "trigger_buffer", 0, None, (0, 20_000, 40_000, 60_000),
            "opencode.json compaction",
        ),
        Dimension(
            "preserve_recent_tokens", "tail_max_tokens", 0, None, (4_000, 8_000, 15_000),
            "opencode.json compaction",
        ),
        Dimension("prune", "prune_mode", False, True, (False, True), "opencode.json compaction"),
    ),
    # PicoClaw: summarize_token_percent 1–100, summarize_message_threshold ≥ 1 (0 is its
    # default, 20).
    "picoclaw": (
        Dimension(
            "summarize_token_percent", "summarize_token_percent", 1, 100,
            tuple(range(50, 100, 5)), "config.json agents.defaults",
        ),
        Dimension(
            "summarize_message_threshold", "summarize_message_threshold", 1, None,
            (20, 40, 80), "config.json agents.defaults",
        ),
    ),
    # ctxtui's own plan: its knobs, under their own names.
    "plan": (
        Dimension(
            "compact_trigger_ratio", "compact_trigger_ratio", 0.1, 1.0,
            (0.6, 0.7, 0.8, 0.9, 1.0), "ctxtui",
        ),
        Dimension("tail_ratio", "tail_ratio", 0.0, 1.0, (0.1, 0.25, 0.4), "ctxtui"),
        Dimension(
            "prune_mode", "prune_mode", None, None, (PruneMode.TURNS.value, PruneMode.OFF.value),
            "ctxtui",
        ),
    ),
}  # fmt: skip
"""Each agent's searched settings; ``plan``'s are ctxtui's own knobs."""

TUNABLE: tuple[str, ...] = tuple(SPACES)


def preset_of(agent: str) -> str:
    """The preset a candidate of ``agent`` is laid over."""
    return AGENTS.get(agent, agent)


def grid(dimensions: Sequence[Dimension]) -> list[Settings]:
    """Every combination of the dimensions' values, the first dimension slowest."""
    names = [d.key for d in dimensions]
    combos = itertools.product(*(d.values for d in dimensions))
    out = [tuple(zip(names, combo, strict=True)) for combo in combos]
    if len(out) > GRID_LIMIT:
        raise ValueError(f"{len(out):,} candidates: more than the grid's {GRID_LIMIT:,}")
    return out


def candidate_policy(agent: str, settings: Settings, base: Policy) -> Policy:
    """``base`` (the agent's preset fitted to a session) under one candidate's settings, by
    the agent's own rules."""
    if agent not in AGENTS:
        return base.with_changes(**dict(settings))
    config = AgentConfig(agent, tuple(Setting(k, v, "candidate") for k, v in settings))
    return overlay(base, configured_values(config, base))


def _normal(value: Any) -> Any:
    """A setting as the grid holds it: ``"60"`` (the environment's) as 60."""
    if isinstance(value, str):
        text = value.strip()
        for kind in (int, float):
            try:
                return kind(text)
            except ValueError:
                continue
    return value


def configured_point(agent: str, config: AgentConfig | None) -> Settings | None:
    """The searched settings the agent is configured with now (``None``: none of them)."""
    if config is None or agent not in SPACES:
        return None
    found = []
    for dimension in SPACES[agent]:
        setting = config.get(dimension.key)
        if setting is not None:
            found.append((dimension.key, _normal(setting.value)))
    return tuple(found) or None
