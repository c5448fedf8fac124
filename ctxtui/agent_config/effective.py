"""The effective policy: a preset, the agent's own settings over it, then ctxtui's config and
the flags, each knob with the layer it came from.

The layers, lowest first: the preset (fitted to the session: its window, output and
tokenizer), the agent's configured values (only when the preset is that agent's: the
``claude-code`` preset takes ``~/.claude/settings.json``), ctxtui's own config, the flags. A
knob a higher layer sets is not taken from a lower one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ctxtui.agent_config import read_agent_config
from ctxtui.core.policies.policy import KNOBS, Policy, policy_for_session, preset
from ctxtui.core.policies.presets import PRESETS
from ctxtui.core.session.models import RecordedCompaction, Session
from ctxtui.core.tuning.configured import (
    AGENTS,
    AgentConfig,
    Configured,
    configured_values,
    overlay,
)
from ctxtui.core.tuning.observed import Observed, agreement, observe

FITTED = ("context_window", "max_tokens", "tokenizer")
"""The knobs a preset fitted to a session may take from the session itself."""


@dataclass(frozen=True, slots=True)
class Effective:
    """The policy in force, the configured values laid over its preset, and each knob's origin
    (``preset claude-code``, a file and key, ``ctxtui config``, ``--flag``, ``the session``,
    ``default``)."""

    policy: Policy
    configured: tuple[Configured, ...] = ()
    origins: Mapping[str, str] = field(default_factory=dict)
    config: AgentConfig | None = None
    preset_policy: Policy | None = None  # before the configured values: the preset's own rule

    def observed(self, recorded: Sequence[RecordedCompaction]) -> Observed:
        """The band of ``recorded``'s automatic compactions, its window under the preset's
        own rule (the configured values are what the band is checked against)."""
        return observe(recorded, self.preset_policy or self.policy)

    def agreement(self, observed: Observed) -> str | None:
        return agreement(observed, self.policy, self.configured)

    def configured_json(self) -> list[dict[str, Any]]:
        return [c.as_json() for c in self.configured]

    def rows(self) -> list[dict[str, Any]]:
        """Every knob as ``{"knob", "value", "origin"}``, in the table's order."""
        values = self.policy.as_json()
        return [{"knob": k, "value": values[k], "origin": self.origins[k]} for k in KNOBS]


def agent_of(preset_name: str) -> str | None:
    """The agent whose settings lay over ``preset_name`` (``None`` for ctxtui's own presets)."""
    return next((a for a, p in AGENTS.items() if p == preset_name), None)


@dataclass(frozen=True, slots=True)
class Given:
    """What the user set over a preset: ``ctxtui_config`` (ctxtui's own config), then
    ``flags`` over it, each flag named in the origins by ``flag_names`` (else ``flag``)."""

    flags: Mapping[str, Any] | None = None
    flag_names: Mapping[str, str] | None = None
    ctxtui_config: Mapping[str, Any] | None = None


NOTHING_GIVEN = Given()


def effective_policy(
    preset_name: str,
    session: Session | None = None,
    given: Given = NOTHING_GIVEN,
    *,
    preset_origin: str | None = None,
    read: Callable[[str], AgentConfig] | None = None,
) -> Effective:
    """``preset_name`` (from ``preset_origin``: ``preset NAME`` unless said) with its agent's
    configured values (``read(agent)``, by default from this user's files and environment),
    then what the user ``given`` (ctxtui's config, then the flags).

    Raises ``PolicyError`` for a flag or config value the policy refuses, as
    ``options.build_policy`` does; a configured value it refuses is left out.
    """
    knobs = {**(given.ctxtui_config or {}), **(given.flags or {})}
    base = (
        policy_for_session(preset_name, session, knobs) if session else preset(preset_name, **knobs)
    )
    agent = agent_of(preset_name)
    config = (read or _read_default)(agent) if agent is not None else None
    values: tuple[Configured, ...] = ()
    if config is not None:
        values = tuple(c for c in configured_values(config, base) if c.knob not in knobs)
    policy = overlay(base, values)
    origins = _origins(preset_name, preset_origin, session is not None, values, given)
    return Effective(policy, values, origins, config, base)


def _read_default(agent: str) -> AgentConfig:
    return read_agent_config(agent)


def _origins(
    preset_name: str,
    preset_origin: str | None,
    fitted: bool,
    values: tuple[Configured, ...],
    given: Given,
) -> dict[str, str]:
    flags, ctxtui_config = given.flags, given.ctxtui_config
    row = PRESETS[preset_name].knobs
    origin = preset_origin or f"preset {preset_name}"
    configured = {c.knob: c.origin for c in values}
    out: dict[str, str] = {}
    for knob in KNOBS:
        if flags and knob in flags:
            out[knob] = (given.flag_names or {}).get(knob, "flag")
        elif ctxtui_config and knob in ctxtui_config:
            out[knob] = "ctxtui config"
        elif knob in configured:
            out[knob] = configured[knob]
        elif fitted and knob in FITTED:
            out[knob] = f"{origin}, fitted to the session" if knob in row else "the session"
        elif knob in row:
            out[knob] = origin
        else:
            out[knob] = "default"
    return out
