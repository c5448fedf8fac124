"""What every shell shares about options: exit codes, the knobs' ranges and wording, and
"preset + overrides → Policy".

The CLI, the headless commands and the app all read this module, so a knob's range, the words
that describe it and the way a preset becomes a policy are written once. It sits between the
shells and the core: it imports the core only, and never argparse's or Textual's machinery.
Everything about a knob is read from ``ctxtui.core.policies.policy`` (each field's description,
bounds and the presets' values), so ``--help``, the range named in an error and the policy itself
cannot drift apart; the app's settings panel finds its words here too (``knobs()``, with
``Knob.label`` and ``Knob.range_sentence``).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ctxtui.core.policies.policy import Policy
    from ctxtui.core.session.models import Session

# The policy (and pydantic under it) is imported by the functions that need it, so that the
# exit codes and ``clip`` cost the CLI nothing: ``ctxtui --version`` stays instant.

from ctxtui.echo import ECHO_LIMIT as ECHO_LIMIT
from ctxtui.echo import clip as clip
from ctxtui.echo import clip_path as clip_path
from ctxtui.echo import show_number as show_number

# -- exit codes ------------------------------------------------------------------------------

EXIT_OK = 0
EXIT_OVER = 1  # report --fail-over: the request is over the given ratio of the window
EXIT_USAGE = 2  # bad input or usage: one line on stderr
EXIT_INTERNAL = 3  # an unexpected exception: a bug in ctxtui, not in the input
EXIT_INTERRUPTED = 130  # Ctrl-C: the shell's usual 128 + SIGINT

EXIT_CODES_HELP = (
    "Exit codes: 0 ok, 1 over the --fail-over ratio (report), 2 bad input or usage, "
    "3 an internal error (a bug: run again with CTXTUI_DEBUG=1 for the traceback and report "
    "it), 130 interrupted."
)


def debugging() -> bool:
    """``CTXTUI_DEBUG=1``: let an unexpected exception show its traceback instead of one line."""
    import os

    return os.environ.get("CTXTUI_DEBUG", "").strip() not in ("", "0")


# -- the knobs -------------------------------------------------------------------------------

FLAGS: dict[str, str] = {
    "context_window": "--context-window",
    "max_tokens": "--max-tokens",
    "tail_ratio": "--tail-ratio",
    "tail_min_tokens": "--tail-min",
    "tail_max_tokens": "--tail-max",
    "tail_min_turns": "--tail-turns",
    "tail_items": "--tail-items",
    "chars_per_token": "--chars-per-token",
    "prune_keep_results": "--prune-keep",
    "prune_trigger_tokens": "--prune-after",
}
"""``Policy`` field → command-line option, in ``--help`` order. Only the knobs a script tunes
are options, plus ``--tail-items``, without which the picoclaw preset's tail could not move,
and Claude Code's inferred clearing knobs (``--prune-keep``, ``--prune-after``)."""


@functools.cache
def tokenizer_spec() -> re.Pattern[str]:
    """What ``--tokenizer`` accepts, as the policy validates it."""
    from ctxtui.core.policies.policy import Policy

    info = Policy.model_fields["tokenizer"]
    return re.compile(next(str(m.pattern) for m in info.metadata if hasattr(m, "pattern")))


CHOICE_FLAGS = {"tokenizer": "--tokenizer", "prune_mode": "--prune-mode"}
"""``Policy`` fields set by a word rather than a number; each option's dest is the field."""


def prune_modes() -> tuple[str, ...]:
    """What ``--prune-mode`` accepts: OpenCode's prune is opt-in, so a user switches it on."""
    from ctxtui.core.policies.modes import PruneMode

    return tuple(m.value for m in PruneMode)


TOKEN_TAIL_FIELDS = frozenset(
    {"tail_ratio", "tail_min_tokens", "tail_max_tokens", "tail_min_turns", "tail_max_turns"}
)
"""Knobs of the plan's token-measured tail; an items-measured tail (picoclaw) ignores them."""

_NBSP = "\u00a0"  # keeps "≥ 0" on one line of --help


UNITS: Mapping[str, str] = {
    "chars_per_token": "characters per token",
    "context_window": "tokens",
    "max_tokens": "tokens",
    "compact_trigger_ratio": "share of the window",
    "context_left_baseline": "tokens",
    "trigger_output_cap": "tokens",
    "trigger_buffer_output_cap": "tokens",
    "trigger_buffer": "tokens",
    "trigger_input_reserve_cap": "tokens",
    "unconfigured_window_factor": "× the output reserve",
    "summarize_message_threshold": "messages",
    "summarize_token_percent": "% of the window",
    "tail_ratio": "share of the budget",
    "tail_min_tokens": "tokens",
    "tail_max_tokens": "tokens",
    "tail_min_turns": "turns",
    "tail_max_turns": "turns",
    "tail_items": "items",
    "prune_protected_turns": "turns",
    "prune_threshold": "tool outputs",
    "prune_protect_tokens": "tokens",
    "prune_minimum_tokens": "tokens",
    "prune_keep_results": "tool results",
    "prune_trigger_tokens": "tokens",
    "truncate_max_lines": "lines",
    "truncate_max_bytes": "bytes",
    "compact_user_message_tokens": "tokens",
}
"""What each numeric knob counts, as the settings panel shows it beside the range."""


@dataclass(frozen=True, slots=True)
class Knob:
    """One numeric policy knob: its type, bounds and words, read from its ``Policy`` field."""

    field: str
    kind: type  # int or float
    low: float | None
    high: float | None
    low_open: bool  # the lowest value is itself refused (> rather than ≥)
    high_open: bool
    description: str
    group: str
    flag: str | None  # the command-line option, when there is one
    unit: str = ""  # what it counts: ``tokens``, ``turns``, ``share of the window``

    @property
    def label(self) -> str:
        """The words the app shows the knob under: ``tail_min_tokens`` → ``tail min tokens``."""
        return self.field.replace("_", " ")

    @property
    def dest(self) -> str:
        """The ``argparse`` dest of its option (``tail_min`` for ``--tail-min``)."""
        return (self.flag or self.field).removeprefix("--").replace("-", "_")

    @property
    def metavar(self) -> str:
        return "N" if self.kind is int else "F"

    def range_words(self) -> str:
        """The range as ``--help`` and errors write it: ``256 to 100,000,000``, ``≥ 0``."""
        lo = hi = None
        if self.low is not None:
            lo = f"{'>' if self.low_open else '≥'}{_NBSP}{show_number(self.low)}"
        if self.high is not None:
            hi = f"{'<' if self.high_open else '≤'}{_NBSP}{show_number(self.high)}"
        if lo and hi:
            if not self.low_open and not self.high_open:
                return f"{show_number(self.low or 0)} to {show_number(self.high or 0)}"
            return f"{lo} and {hi}"
        return lo or hi or "any value"

    def range_sentence(self) -> str:
        """The range as the settings panel says it: ``a whole number from 256 to 100,000,000``."""
        kind = "a whole number" if self.kind is int else "a number"
        low, high = self.low, self.high
        if low is not None and high is not None:
            if self.low_open:
                return f"{kind} above {show_number(low)} and at most {show_number(high)}"
            return f"{kind} from {show_number(low)} to {show_number(high)}"
        if low is not None:
            if self.low_open:
                return f"{kind} above {show_number(low)}"
            return f"{kind}, {show_number(low)} or more"
        if high is not None:
            return f"{kind}, at most {show_number(high)}"
        return kind

    def accepts(self, value: float) -> bool:
        """Whether ``value`` lies in the knob's own range (NaN never does)."""
        if self.low is not None and not (value > self.low if self.low_open else value >= self.low):
            return False
        return self.high is None or bool(
            value < self.high if self.high_open else value <= self.high
        )

    def problem(self, value: float, typed: str | None = None) -> str | None:
        """``expected 0 to 1, got 7`` when ``value`` is outside the knob's range, else ``None``.

        ``typed`` is the value as the user wrote it, echoed back (cut to a readable length)
        instead of the number it parsed to. Checks one knob alone, before any session is
        loaded (relations such as max_tokens below the window are left to the policy).
        """
        if self.accepts(value):
            return None
        shown = show_number(value) if typed is None else clip(typed).strip("'")
        return f"expected {self.range_words()}, got {shown}"


def _knob(field: str) -> Knob:
    from ctxtui.core.policies.policy import Policy

    info = Policy.model_fields[field]
    low = high = None
    low_open = high_open = False
    for item in info.metadata:
        for attr, strict in (("ge", False), ("gt", True)):
            if getattr(item, attr, None) is not None:
                low, low_open = getattr(item, attr), strict
        for attr, strict in (("le", False), ("lt", True)):
            if getattr(item, attr, None) is not None:
                high, high_open = getattr(item, attr), strict
    extra = info.json_schema_extra if isinstance(info.json_schema_extra, dict) else {}
    return Knob(
        field=field,
        kind=int if info.annotation is int else float,
        low=low,
        high=high,
        low_open=low_open,
        high_open=high_open,
        description=str(info.description or field),
        group=str(extra.get("group", "")),
        flag=FLAGS.get(field),
        unit=UNITS.get(field, ""),
    )


@functools.cache
def knobs() -> dict[str, Knob]:
    """Every numeric knob of the policy, in the policy's order: the one table of ranges and
    words. The settings panel reads ``knobs()[name]``; the command line reads ``cli_knobs()``."""
    from ctxtui.core.policies.policy import NOT_KNOBS, Policy

    return {
        name: _knob(name)
        for name, info in Policy.model_fields.items()
        if info.annotation in (int, float) and name not in NOT_KNOBS
    }


def cli_knobs() -> tuple[Knob, ...]:
    """The knobs that are command-line options, in ``--help`` order."""
    table = knobs()
    return tuple(table[field] for field in FLAGS)


def flag_of(field: str) -> str:
    """The option that sets a ``Policy`` field (the field name itself when there is none)."""
    if field in CHOICE_FLAGS:
        return CHOICE_FLAGS[field]
    return FLAGS.get(field, field)


PRUNE_MODE_FIELDS: Mapping[str, frozenset[str]] = {
    "prune_protected_turns": frozenset({"turns", "tokens"}),
    "prune_threshold": frozenset({"turns"}),
    "prune_protect_tokens": frozenset({"tokens"}),
    "prune_minimum_tokens": frozenset({"tokens"}),
    "prune_size_output_text": frozenset({"tokens"}),
    "prune_keep_results": frozenset({"results"}),
}
"""The prune knobs that only some modes read (the planner's ``_prune``), by the modes that do."""

TRUNCATE_FIELDS = frozenset({"truncate_max_lines", "truncate_max_bytes", "truncate_style"})


def _value(values: Mapping[str, Any], field: str) -> Any:
    """``values[field]``, else the policy's default: a preset lists only what it changes."""
    from ctxtui.core.policies.policy import Policy

    value = values.get(field, Policy.model_fields[field].default)
    return getattr(value, "value", value)


def unused_reason(field: str, values: Mapping[str, Any]) -> str | None:
    """Why a knob has no effect under a policy's other values, or ``None`` when it counts.

    ``values`` is a preset's entries or a whole policy's ``model_dump()``; the CLI warns with
    this about an option that changes nothing, and the settings panel disables the knob.
    """
    from ctxtui.core.policies.policy import TailMode

    tail_mode = TailMode(values.get("tail_mode", TailMode.TOKENS))
    preset_name = values.get("preset", "this")
    if field in TOKEN_TAIL_FIELDS and tail_mode in (TailMode.ITEMS, TailMode.MESSAGES):
        return f"the {preset_name} preset's fresh tail is the last N items (--tail-items)"
    if field in TOKEN_TAIL_FIELDS | {"tail_items"} and tail_mode is TailMode.NONE:
        return f"the {preset_name} preset keeps no fresh tail"
    if field == "tail_items" and tail_mode is TailMode.TOKENS:
        return f"the {preset_name} preset's fresh tail is measured in tokens (--tail-ratio and co.)"
    tokenizer = values.get("tokenizer", "plan")
    if field == "chars_per_token" and tokenizer != "plan":
        return f"only the plan tokenizer divides by it, and tokens are counted with {tokenizer}"
    prune_mode = _value(values, "prune_mode")
    if field.startswith("prune_") and field != "prune_mode" and prune_mode == "off":
        return "prune mode is off: no tool output is pruned"
    modes = PRUNE_MODE_FIELDS.get(field)
    if modes is not None and prune_mode not in modes:
        return f"only the {' and '.join(sorted(modes))} prune modes read it, not {prune_mode}"
    if field in TRUNCATE_FIELDS and not _value(values, "truncate_enabled"):
        return "truncation is off: no tool output is cut"
    style = _value(values, "compaction_style")
    if field == "compact_user_message_tokens" and style != "user_messages":
        return f"only the user_messages compaction style keeps user messages, not {style}"
    return None


def _defaults(field: str) -> str:
    """Each preset's default for a knob: ``4 (plan), unused by picoclaw``, or one value."""
    from ctxtui.core.policies.policy import PRESETS, Policy

    shown: dict[str, str] = {}
    for name, values in PRESETS.items():
        if unused_reason(field, values) is not None:
            shown[name] = f"unused by {name}"
        else:
            shown[name] = show_number(values.get(field, Policy.model_fields[field].default))
    if len(set(shown.values())) == 1 and not next(iter(shown.values())).startswith("unused"):
        return next(iter(shown.values()))
    return ", ".join(v if v.startswith("unused") else f"{v} ({n})" for n, v in shown.items())


def knob_help(knob: Knob) -> str:
    """``--help`` text: the field's description, its range, and each preset's default."""
    description = knob.description
    if knob.group == "fresh tail" and "tail" not in description:
        description = f"fresh tail: {description}"
    description = description.replace("items mode: ", "")
    text = f"{description}; {knob.range_words()}; default: {_defaults(knob.field)}"
    if knob.field == "context_window":
        text += " or the window the session declares"
    if knob.field == "max_tokens":
        text += ", lowered to a quarter of a window it would take half of"
    return text


TOKENIZER_EXPECTED = "expected plan, picoclaw, opencode, tiktoken:ENCODING, llama3 or qwen2"


def tokenizer_problem(spec: str) -> str | None:
    """Why ``--tokenizer SPEC`` is refused, or ``None``.

    Besides the policy's own pattern, a tiktoken encoding tiktoken has never heard of
    (``tiktoken:o200k``) is refused: the core falls back to cl100k_base when an encoding cannot
    be *loaded* (no network), which is right for a real encoding; for a typo it would quietly
    count with another one.
    """
    if not tokenizer_spec().match(spec):
        return TOKENIZER_EXPECTED
    name = spec.removeprefix("tiktoken:")
    if name == spec:
        return None
    try:
        import tiktoken
    except Exception:  # an unusable tiktoken: the core falls back and says so
        return None
    known = [n for n in tiktoken.list_encoding_names() if not n.endswith("_offline")]
    if name in known:
        return None
    return f"expected tiktoken:ENCODING with ENCODING one of {', '.join(known)}; found {clip(name)}"


_PYDANTIC_BOUND = re.compile(r"^Input should be (?:greater|less) than")
_LONG_NUMBER = re.compile(r"\d[\d,]{29,}")  # a figure the policy wrote out in full


def explain_policy_error(message: str, given: Mapping[str, Any]) -> str:
    """A ``PolicyError`` in the command line's terms: the flags typed, the range, the value.

    ``tail_ratio: Input should be less than or equal to 1`` becomes
    ``--tail-ratio: expected 0 to 1, got 1.5``; relations between knobs name both flags.
    """
    from ctxtui.core.policies.policy import Policy

    table = knobs()
    parts: list[str] = []
    for part in message.split("; "):
        field, sep, rest = part.partition(": ")
        if sep and field in Policy.model_fields:
            if field == "tokenizer":
                parts.append(f"--tokenizer: {TOKENIZER_EXPECTED}")
                continue
            got = given.get(field)
            if _PYDANTIC_BOUND.match(rest) and field in table:
                rest = f"expected {table[field].range_words()}"
            shown = f", got {show_number(got)}" if isinstance(got, (int, float)) else ""
            parts.append(f"{flag_of(field)}: {rest}{shown}")
            continue
        for name in sorted(Policy.model_fields, key=len, reverse=True):
            if name in FLAGS:
                part = re.sub(rf"\b{name}\b", flag_of(name), part)
        parts.append(part)
    return _LONG_NUMBER.sub(_digits, "; ".join(parts))


def _digits(match: re.Match[str]) -> str:
    return f"a {sum(c.isdigit() for c in match[0]):,}-digit number"


# -- preset + overrides → Policy -------------------------------------------------------------


def overrides_from(namespace: object) -> dict[str, Any]:
    """The knobs given on a command line (``None`` = not given), keyed by ``Policy`` field."""
    out: dict[str, Any] = {}
    for field in CHOICE_FLAGS:
        value = getattr(namespace, field, None)
        if value is not None:
            out[field] = value
    for knob in cli_knobs():
        value = getattr(namespace, knob.dest, None)
        if value is not None:
            out[knob.field] = value
    return out


def build_policy(
    preset_name: str,
    overrides: Mapping[str, Any] | None = None,
    session: Session | None = None,
) -> Policy:
    """The preset with ``overrides`` applied; fitted to ``session`` when there is one.

    Fitted means the session's own context window (unless ``context_window`` is overridden) and
    an output reserve that fits it (unless ``max_tokens`` is). Every shell builds its policy
    here. Raises ``PolicyError`` naming the knob at fault (``explain_policy_error`` turns it
    into the command line's words).
    """
    from ctxtui.core.policies.policy import policy_for_session, preset

    if session is None:
        return preset(preset_name, **dict(overrides or {}))
    return policy_for_session(preset_name, session, overrides)
