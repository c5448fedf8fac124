"""The policy knobs as command-line options: their flags, help text, ranges and effect.

Everything here is read from ``ctxtui.core.policy`` (each field's description, bounds and the
presets' values), so ``--help``, the range named in an error and the policy itself cannot drift
apart. Only the knobs issue #3 puts on the command line are options, plus ``--tail-items``,
without which the picoclaw preset's fresh tail could not be changed at all.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass
from typing import Any

from ctxtui.core.policy import PRESETS, Policy, TailMode


@dataclass(frozen=True, slots=True)
class Knob:
    """One option: its ``argparse`` dest, its ``Policy`` field and its metavar."""

    dest: str
    field: str
    metavar: str

    @property
    def flag(self) -> str:
        return "--" + self.dest.replace("_", "-")


KNOBS: tuple[Knob, ...] = (
    Knob("context_window", "context_window", "N"),
    Knob("max_tokens", "max_tokens", "N"),
    Knob("tail_ratio", "tail_ratio", "F"),
    Knob("tail_min", "tail_min_tokens", "N"),
    Knob("tail_max", "tail_max_tokens", "N"),
    Knob("tail_turns", "tail_min_turns", "N"),
    Knob("tail_items", "tail_items", "N"),
    Knob("chars_per_token", "chars_per_token", "F"),
    Knob("prune_mode", "prune_mode", "MODE"),  # OpenCode's prune is opt-in: --prune-mode tokens
)

POLICY_FLAGS: dict[str, str] = {"tokenizer": "tokenizer", **{k.dest: k.field for k in KNOBS}}
"""``argparse`` dest → ``Policy`` field, for every policy option on the command line."""

TOKENIZER_SPEC = re.compile(
    next(str(m.pattern) for m in Policy.model_fields["tokenizer"].metadata if hasattr(m, "pattern"))
)
"""What ``--tokenizer`` accepts, as the policy validates it."""

TOKEN_TAIL_FIELDS = frozenset(
    {"tail_ratio", "tail_min_tokens", "tail_max_tokens", "tail_min_turns"}
)
"""Knobs of the plan's token-measured tail; an items-measured tail (picoclaw) ignores them."""


_NBSP = "\u00a0"  # keeps "≥ 0" on one line of --help


def knob_choices(field: str) -> tuple[str, ...] | None:
    """The values of a choice knob (an enum field), or ``None`` for a number."""
    kind = Policy.model_fields[field].annotation
    if isinstance(kind, type) and issubclass(kind, enum.Enum):
        return tuple(str(m.value) for m in kind)
    return None


def _number(value: float | str) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, int) or float(value).is_integer():
        return f"{int(value):,}"
    return f"{value:g}"


def knob_range(field: str) -> str:
    """The values a ``Policy`` field accepts, in words: ``256 to 100,000,000``, ``> 0``…"""
    choices = knob_choices(field)
    if choices is not None:
        return "one of " + ", ".join(choices)
    low = high = None
    low_strict = high_strict = False
    for item in Policy.model_fields[field].metadata:
        for attr, strict in (("ge", False), ("gt", True)):
            if getattr(item, attr, None) is not None:
                low, low_strict = getattr(item, attr), strict
        for attr, strict in (("le", False), ("lt", True)):
            if getattr(item, attr, None) is not None:
                high, high_strict = getattr(item, attr), strict
    if low is not None and high is not None:
        if not low_strict and not high_strict:
            return f"{_number(low)} to {_number(high)}"
        lo = f"{'>' if low_strict else '≥'}{_NBSP}{_number(low)}"
        hi = f"{'<' if high_strict else '≤'}{_NBSP}{_number(high)}"
        return f"{lo} and {hi}"
    if low is not None:
        return f"{'>' if low_strict else '≥'}{_NBSP}{_number(low)}"
    if high is not None:
        return f"{'<' if high_strict else '≤'}{_NBSP}{_number(high)}"
    return "any value"


def range_problem(field: str, value: float | str) -> str | None:
    """``expected 0 to 1, got 7`` when ``value`` is outside the field's own bounds, else ``None``.

    Checks one knob alone, before any session is loaded (relations such as max_tokens below
    the window depend on the session and are left to the policy).
    """
    choices = knob_choices(field)
    if choices is not None:
        return None if str(value) in choices else f"expected {knob_range(field)}, got {value}"
    for item in Policy.model_fields[field].metadata:
        ge, gt = getattr(item, "ge", None), getattr(item, "gt", None)
        le, lt = getattr(item, "le", None), getattr(item, "lt", None)
        if (
            (ge is not None and not value >= ge)
            or (gt is not None and not value > gt)
            or (le is not None and not value <= le)
            or (lt is not None and not value < lt)
        ):
            return f"expected {knob_range(field)}, got {_number(value)}"
    return None


def unused_reason(field: str, values: dict[str, Any]) -> str | None:
    """Why a knob has no effect under a policy's other values, or ``None`` when it counts."""
    tail_mode = TailMode(values.get("tail_mode", TailMode.TOKENS))
    preset = values.get("preset", "this")
    if field in TOKEN_TAIL_FIELDS and tail_mode in (TailMode.ITEMS, TailMode.MESSAGES):
        return f"the {preset} preset's fresh tail is the last N items (--tail-items)"
    if field in TOKEN_TAIL_FIELDS | {"tail_items"} and tail_mode is TailMode.NONE:
        return f"the {preset} preset keeps no fresh tail"
    if field == "tail_items" and tail_mode is TailMode.TOKENS:
        return f"the {preset} preset's fresh tail is measured in tokens (--tail-ratio and co.)"
    tokenizer = values.get("tokenizer", "plan")
    if field == "chars_per_token" and tokenizer != "plan":
        return f"only the plan tokenizer divides by it, and tokens are counted with {tokenizer}"
    return None


def _defaults(field: str) -> str:
    """Each preset's default for a knob: ``4 (plan), unused by picoclaw``, or one value."""
    shown: dict[str, str] = {}
    for name, values in PRESETS.items():
        if unused_reason(field, values) is not None:
            shown[name] = f"unused by {name}"
        else:
            shown[name] = _number(values.get(field, Policy.model_fields[field].default))
    if len(set(shown.values())) == 1 and not next(iter(shown.values())).startswith("unused"):
        return next(iter(shown.values()))
    return ", ".join(v if v.startswith("unused") else f"{v} ({n})" for n, v in shown.items())


def knob_help(knob: Knob) -> str:
    """``--help`` text: the field's description, its range, and each preset's default."""
    info = Policy.model_fields[knob.field]
    extra = info.json_schema_extra if isinstance(info.json_schema_extra, dict) else {}
    description = str(info.description or knob.field)
    if extra.get("group") == "fresh tail" and "tail" not in description:
        description = f"fresh tail: {description}"
    description = description.replace("items mode: ", "")
    text = f"{description}; {knob_range(knob.field)}; default: {_defaults(knob.field)}"
    if knob.field == "context_window":
        text += " or the window the session declares"
    if knob.field == "max_tokens":
        text += ", lowered to a quarter of a window it would take half of"
    return text.replace("%", "%%")  # argparse formats help with %


def flag_of(field: str) -> str:
    """The option that sets a ``Policy`` field (the field name itself when there is none)."""
    for dest, name in POLICY_FLAGS.items():
        if name == field:
            return "--" + dest.replace("_", "-")
    return field


_PYDANTIC_BOUND = re.compile(r"^Input should be (?:greater|less) than")


def explain_policy_error(message: str, given: dict[str, Any]) -> str:
    """A ``PolicyError`` in the user's terms: the flags they typed, the range, their value.

    ``tail_ratio: Input should be less than or equal to 1`` becomes
    ``--tail-ratio: expected 0 to 1, got 1.5``; relations between knobs name both flags.
    """
    parts: list[str] = []
    for part in message.split("; "):
        field, sep, rest = part.partition(": ")
        if sep and field in Policy.model_fields:
            if field == "tokenizer":
                parts.append("--tokenizer: expected plan, picoclaw, opencode or tiktoken:ENCODING")
                continue
            got = given.get(field)
            if _PYDANTIC_BOUND.match(rest):
                rest = f"expected {knob_range(field)}"
            shown = f", got {_number(got)}" if isinstance(got, (int, float)) else ""
            parts.append(f"{flag_of(field)}: {rest}{shown}")
            continue
        for name in sorted(Policy.model_fields, key=len, reverse=True):
            if name in POLICY_FLAGS.values():
                part = re.sub(rf"\b{name}\b", flag_of(name), part)
        parts.append(part)
    return "; ".join(parts)
