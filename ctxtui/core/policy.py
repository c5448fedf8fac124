"""The policy: every knob of the budget engine, validated, plus the named presets.

A ``Policy`` is immutable; changing a knob makes a new one (``policy.with_changes(...)``), so a
plan depends only on the session and the policy, never on the order knobs were turned in.
Each field carries a description and a ``group`` so that the app and ``--help`` can present
the knobs without restating them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from ctxtui.core._compat import StrEnum
from ctxtui.core.models import Session


class TailMode(StrEnum):
    """How the fresh tail is measured."""

    TOKENS = "tokens"  # the plan: clamp(ratio × budget, min, max) tokens, ≥ min turns
    ITEMS = "items"  # PicoClaw seahorse as shipped: the last N items, trimmed to the budget


class PruneMode(StrEnum):
    """How old tool outputs are pruned (replaced by the plan's stub)."""

    OFF = "off"
    TURNS = "turns"  # the plan's rule, fixed: protect the newest N *turns*, stub the rest
    TOKENS = "tokens"  # token-aware: protect the newest N tokens of output, prune only if ≥ M freed


class CompactionStyle(StrEnum):
    """What a compaction does to the history outside the fresh tail."""

    SUMMARIZE = "summarize"  # the plan: replace everything before the tail with one summary
    DROP_OLDEST_HALF = "drop_oldest_half"  # PicoClaw legacy forceCompression


def _knob(default: Any, group: str, description: str, **constraints: Any) -> Any:
    return Field(
        default=default,
        description=description,
        json_schema_extra={"group": group},
        **constraints,
    )


class Policy(BaseModel):
    """Every knob of the simulated context manager."""

    model_config = ConfigDict(frozen=True, extra="forbid", validate_default=True)

    preset: str = _knob("plan", "general", "the preset these values started from")
    tokenizer: str = _knob(
        "plan",
        "general",
        "token counter: plan, picoclaw (estimates), tiktoken:ENCODING, llama3, qwen2 (exact)",
        pattern=r"^(plan|picoclaw|tiktoken:[A-Za-z0-9_.-]+|llama3|qwen2)$",
    )
    chars_per_token: float = _knob(
        4.0, "general", "the plan estimator's characters per token", ge=0.1, le=100
    )  # ≥ 0.1: characters ÷ a tinier figure can overflow a float (1e-310 does)
    context_window: int = _knob(
        131_072, "window", "the model's context window, in tokens", ge=256, le=100_000_000
    )
    max_tokens: int = _knob(
        32_768, "window", "output reserve: the request's max_tokens", ge=0, le=100_000_000
    )
    compact_trigger_ratio: float = _knob(
        1.0,
        "window",
        "compact proactively when the request exceeds this share of the window",
        gt=0,
        le=1.0,
    )
    reserve_system_and_tools: bool = _knob(
        True,
        "window",
        "the history budget also reserves the system prompt and tool definitions (fixes X42)",
    )
    tail_mode: TailMode = _knob(TailMode.TOKENS, "fresh tail", "tail measured in tokens or items")
    tail_ratio: float = _knob(
        0.25, "fresh tail", "share of the budget (window − max_tokens) for the tail", ge=0, le=1
    )
    tail_min_tokens: int = _knob(2_000, "fresh tail", "never protect fewer tokens", ge=0)
    tail_max_tokens: int = _knob(8_000, "fresh tail", "never protect more tokens", ge=0)
    tail_min_turns: int = _knob(2, "fresh tail", "always protect at least this many turns", ge=0)
    tail_items: int = _knob(32, "fresh tail", "items mode: protect the last N items", ge=1)
    prune_mode: PruneMode = _knob(PruneMode.TURNS, "prune", "how old tool outputs are pruned")
    prune_protected_turns: int = _knob(
        2, "prune", "turns mode: tool outputs in the newest N turns are kept", ge=0
    )
    prune_threshold: int = _knob(
        1, "prune", "turns mode: prune only when at least this many outputs are stubbed", ge=0
    )
    prune_protect_tokens: int = _knob(
        40_000, "prune", "tokens mode: the newest N tokens of tool output are kept", ge=0
    )
    prune_minimum_tokens: int = _knob(
        20_000, "prune", "tokens mode: prune only when at least N tokens are freed", ge=0
    )
    truncate_enabled: bool = _knob(True, "truncate", "truncate huge tool outputs")
    truncate_max_lines: int = _knob(
        2_000, "truncate", "tool outputs longer than this many lines are truncated", ge=1
    )
    truncate_max_bytes: int = _knob(
        51_200, "truncate", "tool outputs larger than this many bytes are truncated", ge=1
    )
    structured_summaries: bool = _knob(
        True, "compaction", "summaries use the plan's six-section template"
    )
    compaction_style: CompactionStyle = _knob(
        CompactionStyle.SUMMARIZE, "compaction", "summarize the evictable history or drop half"
    )

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

    def with_changes(self, **changes: Any) -> Policy:
        """A new, validated policy with some knobs changed (raises ``PolicyError``)."""
        return make_policy({**self.model_dump(), **changes})


PRESETS: dict[str, dict[str, Any]] = {
    # The plan's seven improvements with its sketch's defects fixed (algorithms.md §1, §3.8).
    "plan": {
        "preset": "plan",
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
    # PicoClaw main as shipped (algorithms.md §2): 2.5 chars/token estimator, 32-item tail,
    # no pruning or generic truncation, legacy forceCompression.
    "picoclaw": {
        "preset": "picoclaw",
        "tokenizer": "picoclaw",
        "chars_per_token": 2.5,
        "context_window": 131_072,
        "max_tokens": 32_768,
        "compact_trigger_ratio": 1.0,
        "reserve_system_and_tools": False,
        "tail_mode": TailMode.ITEMS,
        "tail_items": 32,
        "tail_min_turns": 0,
        "prune_mode": PruneMode.OFF,
        "truncate_enabled": False,
        "structured_summaries": False,
        "compaction_style": CompactionStyle.DROP_OLDEST_HALF,
    },
}

PresetName = Literal["plan", "picoclaw"]


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


def knob_names() -> tuple[str, ...]:
    """The knobs a user may set, in display order (``preset`` is a label, not a knob)."""
    return tuple(n for n in Policy.model_fields if n != "preset")


def fit_reserve(window: int, reserve: int) -> int:
    """The output reserve to use for ``window``: the preset's, unless it is too big for it.

    A reserve of half the window or more would leave the history less room than the model's
    answer (a 32,768 reserve in a 32k window leaves none), so it drops to a quarter of the
    window; 131,072 with 32,768 and larger windows keep the preset's figure untouched.
    """
    return reserve if reserve < window // 2 else window // 4


def policy_for_session(
    preset_name: str, session: Session, overrides: Mapping[str, Any] | None = None
) -> Policy:
    """The preset for one session: its own context window, and a reserve that fits it.

    The session's ``meta.context_window`` is used unless the user set ``context_window``; the
    output reserve is fitted to the window (``fit_reserve``) unless the user set ``max_tokens``.
    The planner warns when the reserve was lowered, so the change is never silent.
    """
    if preset_name not in PRESETS:
        preset(preset_name)  # raises the PolicyError naming the known presets
    values: dict[str, Any] = {**PRESETS[preset_name], **(overrides or {})}
    given = overrides or {}
    if "context_window" not in given and session.meta.context_window is not None:
        values["context_window"] = session.meta.context_window
    if "max_tokens" not in given:
        window = int(values.get("context_window", Policy.model_fields["context_window"].default))
        reserve = int(values.get("max_tokens", Policy.model_fields["max_tokens"].default))
        values["max_tokens"] = fit_reserve(window, reserve)
    return make_policy(values)
