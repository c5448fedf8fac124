"""What an agent is configured with, as knob values: each agent's own rules for its settings.

The readers (``ctxtui.agent_config``) find each setting where the agent reads it and say where
it came from; the rules here turn the settings into knob values the way the agent combines
them, each with its origin and, where the agent bends the value, a note saying how. A rule is
written with its source (docs/tune.md gives each in full):

* Claude Code (closed source; anthropics/claude-code issues #31806, #36381, #57567, #63627,
  #82761, #24589, #38483): ``CLAUDE_AUTOCOMPACT_PCT_OVERRIDE`` is a percentage (0 < pct ≤ 100,
  else ignored) of the effective window ``window − min(max output, 20,000)``, capped at the
  default threshold ``effective − 13,000``: it can only lower the trigger (#31806).
  ``CLAUDE_CODE_AUTO_COMPACT_WINDOW`` / ``autoCompactWindow`` is clamped to 100,000–1,000,000
  and never exceeds the model's window; with both set the smaller wins. ``DISABLE_AUTO_COMPACT``
  (truthy) or ``autoCompactEnabled: false`` turns auto-compaction off.
* Codex (``openai/codex``, ``codex-rs/protocol/src/openai_models.rs``,
  ``ModelInfo::auto_compact_token_limit``): ``model_context_window`` replaces the model's
  window; ``model_auto_compact_token_limit`` (when > 0) is the trigger, at most
  ``window · 9 / 10``.
* OpenCode (``anomalyco/opencode``, ``packages/opencode/src/config/config.ts`` ``compaction``
  and ``session/overflow.ts``): ``auto``, ``prune``, ``reserved`` (core v2: ``buffer``) the room
  kept below the window, ``tail_turns`` (0: no tail), ``preserve_recent_tokens`` (core v2:
  ``keep.tokens``) the tail's whole budget; ``OPENCODE_DISABLE_AUTOCOMPACT`` and
  ``OPENCODE_DISABLE_PRUNE`` turn those off.
* PicoClaw (``sipeed/picoclaw``, ``pkg/config/config.go`` ``AgentDefaults``,
  ``pkg/agent/instance.go``): ``agents.defaults.max_tokens``, ``context_window`` (0: max_tokens
  × 4), ``summarize_message_threshold`` (0: 20), ``summarize_token_percent`` (0: 75); a
  ``PICOCLAW_AGENTS_DEFAULTS_*`` variable overrides the file (``env.Parse`` after the load).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ctxtui.core.policies.modes import UNCAPPED, PruneMode, TailMode
from ctxtui.core.policies.policy import KNOBS, Policy, PolicyError

AGENTS: Mapping[str, str] = {
    "claude-code": "claude-code",
    "codex": "codex",
    "opencode": "opencode",
    "picoclaw": "picoclaw",
}
"""Each agent whose settings ctxtui reads, and the preset its settings are laid over."""

CLAUDE_SUMMARY_OUTPUT_CAP = 20_000  # MAX_OUTPUT_TOKENS_FOR_SUMMARY (docs/presets.md#claude-code)
CLAUDE_AUTOCOMPACT_BUFFER = 13_000  # AUTOCOMPACT_BUFFER_TOKENS
CLAUDE_WINDOW_RANGE = (100_000, 1_000_000)  # autoCompactWindow's clamp
CODEX_TRIGGER_SHARE = (9, 10)  # window · 9 / 10
PICOCLAW_DEFAULT_MAX_TOKENS = 8_192  # instance.go: max_tokens 0
PICOCLAW_WINDOW_FACTOR = 4  # instance.go: context_window 0 → max_tokens · 4
TRUTHY = frozenset({"1", "true", "yes", "on"})


@dataclass(frozen=True, slots=True)
class Setting:
    """One setting as the agent would read it: its name in the rules, the value as read (a
    string from the environment, a JSON or TOML value from a file), and where it was read
    (file and key, or the environment and the variable)."""

    key: str
    value: Any
    origin: str


@dataclass(frozen=True, slots=True)
class AgentConfig:
    """The settings of one agent that decide its compaction, the winning value of each.

    ``problems`` names each file that exists but could not be read, one line each.
    """

    agent: str
    settings: tuple[Setting, ...] = ()
    problems: tuple[str, ...] = ()

    def get(self, key: str) -> Setting | None:
        return next((s for s in self.settings if s.key == key), None)

    def number(self, key: str) -> tuple[int, Setting] | None:
        """``key``'s value as the agent parses an integer, with its setting; ``None`` when it
        is not set or is no integer (the agent then ignores it too)."""
        setting = self.get(key)
        value = _as_int(setting.value) if setting is not None else None
        return None if setting is None or value is None else (value, setting)

    def positive(self, key: str) -> tuple[int, Setting] | None:
        """``number(key)`` when it is above 0: what every agent here takes a count or a
        window to be; 0 or less is its own default."""
        found = self.number(key)
        return found if found is not None and found[0] > 0 else None


@dataclass(frozen=True, slots=True)
class Configured:
    """A knob value the agent's settings give, where it came from, and how the agent bent
    the setting to get it (capped, clamped, ignored), when it did."""

    knob: str
    value: Any
    origin: str
    note: str = ""
    label: str = ""  # the setting in a few words, for a sentence: "60 %", "limit 150,000"

    def as_json(self) -> dict[str, Any]:
        value = getattr(self.value, "value", self.value)
        out: dict[str, Any] = {"knob": self.knob, "value": value, "origin": self.origin}
        if self.note:
            out["note"] = self.note
        return out


Rule = Callable[[AgentConfig, Policy], list[Configured]]


def configured_values(config: AgentConfig, policy: Policy) -> tuple[Configured, ...]:
    """The knob values ``config`` gives over ``policy`` (the agent's preset fitted to a
    session), in the order the agent applies them; a value the knob refuses is left out."""
    rule = RULES.get(config.agent)
    return tuple(rule(config, policy)) if rule is not None else ()


def overlay(policy: Policy, values: Iterable[Configured]) -> Policy:
    """``policy`` with the configured values laid over it (the preset keeps its name)."""
    changes = {c.knob: c.value for c in values}
    return policy.with_changes(**changes) if changes else policy


# -- reading a value ----------------------------------------------------------------------


def _as_int(value: Any) -> int | None:
    """An integer as the agents parse one: a JSON/TOML integer, or a string of digits."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str):
        try:
            return int(value.strip())
        except ValueError:
            return None
    return None


def _as_float(value: Any) -> float | None:
    """A number as JavaScript's ``parseFloat`` reads the start of a string (NaN: ``None``)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        number = float(value)
    elif isinstance(value, str):
        text = value.strip()
        end = len(text)
        while end:
            try:
                number = float(text[:end])
                break
            except ValueError:
                end -= 1
        else:
            return None
    else:
        return None
    return number if math.isfinite(number) else None


def _as_bool(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        return value.strip().lower() in TRUTHY
    return None


def _accepted(knob: str, value: Any) -> bool:
    return KNOBS[knob].check(value)[1] is None


class _Builder:
    """The values so far and the policy they make, so a later rule reads the earlier ones
    (the Codex limit's 90 % is of the configured window)."""

    def __init__(self, policy: Policy) -> None:
        self.policy = policy
        self.values: list[Configured] = []

    def add(self, knob: str, value: Any, origin: str, note: str = "", label: str = "") -> None:
        if not _accepted(knob, value):
            return
        try:
            self.policy = self.policy.with_changes(**{knob: value})
        except PolicyError:
            return  # refused against another knob (a reserve over the window): not applied
        self.values = [v for v in self.values if v.knob != knob]
        self.values.append(Configured(knob, value, origin, note, label))

    def take(self, knob: str, found: tuple[int, Setting] | None) -> None:
        """``knob`` from a setting read (``AgentConfig.positive``), when it was."""
        if found is not None:
            self.add(knob, found[0], found[1].origin)

    def trigger_at(self, trigger: int, origin: str, note: str, label: str) -> None:
        """Move the trigger to ``trigger`` through the further buffer below it."""
        policy = self.policy
        if policy.input_limit and policy.trigger_input_reserve_cap < UNCAPPED:
            room = max(0, policy.context_window - trigger)
            self.add("trigger_input_reserve_cap", room, origin, note, label)
            return
        buffer = policy.trigger_buffer + policy.trigger_threshold - trigger
        self.add("trigger_buffer", max(0, buffer), origin, note, label)


# -- the agents -----------------------------------------------------------------------------


def _claude_code(config: AgentConfig, policy: Policy) -> list[Configured]:
    build = _Builder(policy)
    _claude_window(config, build)
    pct = config.get("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE")
    if pct is not None:
        _claude_pct(pct, build)
    disable = config.get("DISABLE_AUTO_COMPACT")
    enabled = config.get("autoCompactEnabled")
    if disable is not None and _as_bool(disable.value):
        build.add("auto_compact", False, disable.origin)
    elif enabled is not None and isinstance(enabled.value, bool):
        build.add("auto_compact", enabled.value, enabled.origin)
    return build.values


def _claude_window(config: AgentConfig, build: _Builder) -> None:
    low, high = CLAUDE_WINDOW_RANGE
    asked = []
    for key in ("CLAUDE_CODE_AUTO_COMPACT_WINDOW", "autoCompactWindow"):
        found = config.positive(key)
        if found is not None:
            asked.append(found)
    if not asked:
        return
    value, setting = min(asked, key=lambda pair: pair[0])
    window = min(max(value, low), high)
    notes = []
    if window != value:
        notes.append(f"clamped to {low:,}–{high:,}")
    model = build.policy.context_window
    if window > model:
        window = model
        notes.append(f"at most the model's window {model:,}")
    build.add("context_window", window, setting.origin, "; ".join(notes))


def _claude_pct(setting: Setting, build: _Builder) -> None:
    pct = _as_float(setting.value)
    if pct is None or not 0 < pct <= 100:
        return  # ignored by the agent: not a percentage it accepts
    policy = build.policy
    effective = policy.context_window - min(policy.max_tokens, CLAUDE_SUMMARY_OUTPUT_CAP)
    default = effective - CLAUDE_AUTOCOMPACT_BUFFER
    asked = math.floor(effective * pct / 100)
    trigger = min(asked, default)
    note = f"{pct:g} % of {effective:,} = {asked:,}"
    if asked > default:
        note += f", capped at the default threshold {default:,}"
    build.trigger_at(trigger, setting.origin, note, f"{pct:g} %")


def _codex(config: AgentConfig, policy: Policy) -> list[Configured]:
    build = _Builder(policy)
    build.take("context_window", config.positive("model_context_window"))
    found = config.positive("model_auto_compact_token_limit")
    if found is not None:
        asked, limit = found
        num, den = CODEX_TRIGGER_SHARE
        ceiling = build.policy.context_window * num // den
        note = f"capped at 90 % of the window, {ceiling:,}" if asked > ceiling else ""
        build.trigger_at(min(asked, ceiling), limit.origin, note, f"limit {asked:,}")
    return build.values


def _opencode(config: AgentConfig, policy: Policy) -> list[Configured]:
    build = _Builder(policy)
    for key, knob, on, off in (
        ("auto", "auto_compact", True, False),
        ("prune", "prune_mode", PruneMode.TOKENS, PruneMode.OFF),
    ):
        setting = config.get(key)
        flag = _as_bool(setting.value) if setting is not None else None
        if setting is not None and flag is not None:
            build.add(knob, on if flag else off, setting.origin)
        disable = config.get(f"OPENCODE_DISABLE_{'AUTOCOMPACT' if key == 'auto' else 'PRUNE'}")
        if disable is not None and _as_bool(disable.value):
            build.add(knob, off, disable.origin)
    found = config.number("reserved")
    if found is not None and found[0] >= 0:
        room, reserved = found
        policy = build.policy
        out = min(policy.max_tokens, policy.trigger_output_cap)
        usable = policy.context_window - room - (0 if policy.input_limit else out)
        note = f"{room:,} tokens kept below the window"
        build.trigger_at(max(0, usable), reserved.origin, note, f"reserved {room:,}")
    _opencode_tail(config, build)
    return build.values


def _opencode_tail(config: AgentConfig, build: _Builder) -> None:
    found = config.number("tail_turns")
    if found is not None:
        count, turns = found
        if count <= 0:
            build.add("tail_mode", TailMode.NONE, turns.origin, "0: no tail")
        else:
            build.add("tail_max_turns", count, turns.origin)
    kept = config.number("preserve_recent_tokens")
    if kept is not None and kept[0] >= 0:
        tokens, keep = kept
        # The tail's whole budget: min and max both, so no share of the window moves it.
        build.add("tail_min_tokens", min(tokens, build.policy.tail_min_tokens), keep.origin)
        build.add("tail_max_tokens", tokens, keep.origin)
        build.add("tail_min_tokens", tokens, keep.origin)


def _picoclaw(config: AgentConfig, policy: Policy) -> list[Configured]:
    build = _Builder(policy)
    out = config.number("max_tokens")
    build.take("max_tokens", config.positive("max_tokens"))
    window = config.positive("context_window")
    if window is not None:
        build.take("context_window", window)
    elif out is not None:
        tokens = out[0] if out[0] > 0 else PICOCLAW_DEFAULT_MAX_TOKENS
        build.add(
            "context_window",
            tokens * PICOCLAW_WINDOW_FACTOR,
            out[1].origin,
            f"no context_window: max_tokens × {PICOCLAW_WINDOW_FACTOR}",
        )
    for key in ("summarize_message_threshold", "summarize_token_percent"):
        build.take(key, config.positive(key))
    return build.values


RULES: Mapping[str, Rule] = {
    "claude-code": _claude_code,
    "codex": _codex,
    "opencode": _opencode,
    "picoclaw": _picoclaw,
}
