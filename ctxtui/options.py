"""What every shell shares about options: exit codes, the words for knobs and their ranges,
and "preset + overrides → Policy".

The CLI, the headless commands and the app all read this module, so the words for a knob's
range, for a refused value and the way a preset becomes a policy are written once. It sits
between the shells and the core: it imports the core only, and never argparse's or Textual's
machinery. Every fact about a knob is a row of ``core.policies.policy.KNOBS``; this module only
words them (``range_words`` for ``--help`` and errors, ``range_sentence`` for the settings
panel, ``explain_policy_error`` for a ``PolicyError``'s problems).
"""

from __future__ import annotations

import signal
from collections.abc import Collection, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ctxtui.core.policies.policy import Knob, Policy, PolicyError, Problem
    from ctxtui.core.session.models import Session

# The policy is imported by the functions that need it, so that the exit codes and ``clip``
# cost the CLI nothing: ``ctxtui --version`` stays instant.

from ctxtui.core.error_text import clip, show_number

# -- exit codes ------------------------------------------------------------------------------

EXIT_OK = 0
EXIT_OVER = 1  # report --fail-over: the request is over the given ratio of the window
EXIT_USAGE = 2  # bad input or usage: one line on stderr
EXIT_INTERNAL = 3  # an unexpected exception: a bug in ctxtui, not in the input
EXIT_INTERRUPTED = 130  # Ctrl-C: the shell's usual 128 + SIGINT
STOP_SIGNALS = tuple(
    getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)
)
"""The signals that stop a long command (``fleet``, ``tune``, ``serve``) cleanly: it ends what
it started, says what it finished, and exits ``stopped_exit`` of the signal."""


def stopped_exit(signum: int | None) -> int:
    """128 + the signal that stopped a command (130, 143, 129), as a shell reports it, so a
    supervisor sees how it ended; Ctrl+C's when the signal is not known."""
    return 128 + signum if signum else EXIT_INTERRUPTED


EXIT_CODES_HELP = (
    "Exit codes: 0 ok, 1 over the --fail-over ratio (report), 2 bad input or usage, "
    "3 an internal error (a bug: run again with CTXTUI_DEBUG=1 for the traceback and report "
    "it), 130 interrupted."
)


def debugging() -> bool:
    """``CTXTUI_DEBUG=1``: let an unexpected exception show its traceback instead of one line."""
    import os

    return os.environ.get("CTXTUI_DEBUG", "").strip() not in ("", "0")


# -- the knobs: worded from the table in ``core.policies.policy`` ----------------------------

_NBSP = "\u00a0"  # keeps "≥ 0" on one line of --help


def range_words(knob: Knob) -> str:
    """The range as ``--help`` and errors write it: ``256 to 100,000,000``, ``≥ 0``."""
    low, high = knob.low, knob.high
    if low is not None and high is not None and not knob.low_open:
        return f"{show_number(low)} to {show_number(high)}"
    lo = None if low is None else f"{'>' if knob.low_open else '≥'}{_NBSP}{show_number(low)}"
    hi = None if high is None else f"≤{_NBSP}{show_number(high)}"
    if lo and hi:
        return f"{lo} and {hi}"
    return lo or hi or "any value"


def range_sentence(knob: Knob) -> str:
    """The range as the settings panel says it: ``a whole number from 256 to 100,000,000``."""
    kind = "a whole number" if knob.kind is int else "a number"
    low, high = knob.low, knob.high
    if low is not None and high is not None:
        if knob.low_open:
            return f"{kind} above {show_number(low)} and at most {show_number(high)}"
        return f"{kind} from {show_number(low)} to {show_number(high)}"
    if low is not None and knob.low_open:
        return f"{kind} above {show_number(low)}"
    if low is not None:
        return f"{kind}, {show_number(low)} or more"
    if high is not None:
        return f"{kind}, at most {show_number(high)}"
    return kind


def knob_problem(knob: Knob, value: float, typed: str | None = None) -> str | None:
    """``expected 0 to 1, got 7`` when ``value`` is outside the knob's range, else ``None``.

    ``typed`` is the value as the user wrote it, echoed back (cut to a readable length)
    instead of the number it parsed to. Checks one knob alone, before any session is
    loaded (relations such as max_tokens below the window are left to the policy).
    """
    if knob.accepts(value):
        return None
    shown = show_number(value) if typed is None else clip(typed).strip("'")
    return f"expected {range_words(knob)}, got {shown}"


def knob_label(name: str) -> str:
    """The words the app shows a knob under: ``tail_min_tokens`` → ``tail min tokens``."""
    return name.replace("_", " ")


def dest(knob: Knob) -> str:
    """The ``argparse`` dest of a knob's option (``tail_min`` for ``--tail-min``)."""
    return (knob.flag or knob.name).removeprefix("--").replace("-", "_")


def flag_of(field: str) -> str:
    """The option that sets a ``Policy`` field (the field name itself when there is none)."""
    from ctxtui.core.policies.policy import KNOBS

    row = KNOBS.get(field)
    return (row.flag if row else None) or field


def _value(values: Mapping[str, Any], field: str) -> Any:
    """``values[field]``, else the knob's default: a preset lists only what it changes."""
    from ctxtui.core.policies.policy import KNOBS

    value = values.get(field, KNOBS[field].default)
    return getattr(value, "value", value)


def unused_reason(field: str, values: Mapping[str, Any]) -> str | None:
    """Why a knob has no effect under a policy's other values, or ``None`` when it counts.

    The knob's row says which other knob it depends on (``applies``); ``values`` is a
    preset's entries or a whole policy's ``as_dict()``. The CLI warns with this about an
    option that changes nothing, the settings panel disables the knob, ``--help`` says
    "unused by" the presets it returns a reason for.
    """
    from ctxtui.core.policies.policy import KNOBS

    row = KNOBS.get(field)
    if row is None or row.applies is None:
        return None
    other, read_under = row.applies
    actual = _value(values, other)
    if actual in read_under:
        return None
    preset_name = values.get("preset", "this")
    if other == "tail_mode":
        if actual == "none":
            return f"the {preset_name} preset keeps no fresh tail"
        if actual == "tokens":
            return (
                f"the {preset_name} preset's fresh tail is measured in tokens "
                "(--tail-ratio and co.)"
            )
        return f"the {preset_name} preset's fresh tail is the last N items (--tail-items)"
    if other == "prune_mode" and actual == "off":
        return "prune mode is off: no tool output is pruned"
    if other == "truncate_enabled":
        return "truncation is off: no tool output is cut"
    if other == "compaction_style":
        return f"only the {read_under[0]} compaction style keeps user messages, not {actual}"
    if other == "tokenizer":
        return (
            f"only the {read_under[0]} tokenizer divides by it, and tokens are counted with "
            f"{actual}"
        )
    return f"only the {' and '.join(sorted(read_under))} {knob_label(other)}s read it, not {actual}"


def preset_defaults(knob: Knob) -> str:
    """Each preset's default for a knob: ``4 (plan), unused by picoclaw``, or one value."""
    from ctxtui.core.policies.presets import PRESETS

    shown: dict[str, str] = {}
    for name, row in PRESETS.items():
        value = row.knobs.get(knob.name, knob.default)
        if unused_reason(knob.name, row.values) is not None:
            shown[name] = f"unused by {name}"
        elif isinstance(value, bool):
            shown[name] = "on" if value else "off"
        else:
            shown[name] = (
                show_number(value) if knob.numeric else str(getattr(value, "value", value))
            )
    if len(set(shown.values())) == 1 and not next(iter(shown.values())).startswith("unused"):
        return next(iter(shown.values()))
    return ", ".join(v if v.startswith("unused") else f"{v} ({n})" for n, v in shown.items())


def knob_help(knob: Knob) -> str:
    """``--help`` text: the knob's help, its range, and each preset's default."""
    text = knob.help
    if knob.group == "fresh tail" and "tail" not in text:
        text = f"fresh tail: {text}"
    return f"{text}; {range_words(knob)}; default: {preset_defaults(knob)}{knob.note}"


def tokenizer_expected() -> str:
    """``expected plan, picoclaw, …, llama3 or qwen2``: what ``--tokenizer`` takes."""
    from ctxtui.core.tokens.specs import tokenizer_names

    *names, last = tokenizer_names()
    return f"expected {', '.join(names)} or {last}"


def tokenizer_problem(spec: str) -> str | None:
    """Why ``--tokenizer SPEC`` is refused, or ``None``.

    Besides the policy's own pattern, a tiktoken encoding tiktoken has never heard of
    (``tiktoken:o200k``) is refused: the core falls back to cl100k_base when an encoding cannot
    be *loaded* (no network), which is right for a real encoding; for a typo it would quietly
    count with another one.
    """
    from ctxtui.core.tokens.specs import TIKTOKEN_PREFIX, TOKENIZER_PATTERN

    if not TOKENIZER_PATTERN.match(spec):
        return tokenizer_expected()
    name = spec.removeprefix(TIKTOKEN_PREFIX)
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


def derived_words(problem: Problem) -> str:
    """A value refused for the knob it works out (a ``derived`` problem), in the command
    line's terms: ``--max-tokens 10 makes the context window 40 tokens (4 × the output
    reserve, ...), below its minimum of 256``. It names the flag the user typed and calls the
    knob worked out by its label: naming that knob's flag would blame one no one gave.
    """
    from ctxtui.core.policies.policy import KNOBS

    row = KNOBS[problem.other]
    made, low, high = problem.other_value, row.low, row.high
    if high is not None and made > high:
        side = f"above its maximum of {show_number(high)}"
    elif low is not None and made < low:
        side = f"below its minimum of {show_number(low)}"
    else:
        side = f"outside {range_words(row)}"
    return (
        f"{flag_of(problem.field)} {show_number(problem.value)} makes the "
        f"{knob_label(problem.other)} {show_number(made)} {row.unit} ({problem.words}), {side}"
    )


def _relation_side(knob: str, value: Any, given: Collection[str] | None) -> str:
    """One knob of a relation: its flag and value as typed (``--tail-max (8,000)``), or,
    when ``given`` does not hold it, its value and the flag that would set it."""
    if given is None or knob in given:
        return f"{flag_of(knob)} ({show_number(value)})"
    return f"the {knob_label(knob)} ({show_number(value)}; set it with {flag_of(knob)})"


def explain_policy_error(err: PolicyError, given: Collection[str] | None = None) -> str:
    """A ``PolicyError`` in the command line's terms: the flags typed, the range, the value.

    ``--tail-ratio: expected 0 to 1, got 1.5``; a relation between knobs names both flags:
    ``--tail-min (9,000) must not exceed --tail-max (8,000)``, or, for a knob ``given`` (the
    knobs typed) does not hold, its value and the flag that sets it, never as if it had been
    typed: ``... must be smaller than the context window (32,768; set it with
    --context-window)``. A knob worked out from a flag is refused as that flag's
    (``derived_words``).
    """
    from ctxtui.core.policies.policy import KNOBS

    parts: list[str] = []
    for p in err.problems:
        row = KNOBS.get(p.field)
        if p.bound == "relation":
            first = _relation_side(p.field, p.value, given)
            parts.append(f"{first} {p.words} {_relation_side(p.other, p.other_value, given)}")
        elif p.bound == "derived" and p.other in KNOBS:
            parts.append(derived_words(p))
        elif p.field == "tokenizer":
            parts.append(f"--tokenizer: {tokenizer_expected()}")
        elif p.bound == "range" and row is not None:
            parts.append(
                f"{flag_of(p.field)}: expected {range_words(row)}, got {show_number(p.value)}"
            )
        else:
            parts.append(str(p))
    return "; ".join(parts)


# -- preset + overrides → Policy -------------------------------------------------------------


def overrides_from(namespace: object) -> dict[str, Any]:
    """The knobs given on a command line (``None`` = not given), keyed by ``Policy`` field."""
    out: dict[str, Any] = {}
    from ctxtui.core.policies.policy import KNOBS

    for knob in KNOBS.values():
        value = getattr(namespace, dest(knob), None) if knob.flag else None
        if value is not None:
            out[knob.name] = value
    return out


def build_policy(
    preset_name: str,
    overrides: Mapping[str, Any] | None = None,
    session: Session | None = None,
) -> Policy:
    """The preset with ``overrides`` applied; fitted to ``session`` when there is one.

    Fitted means the session's own context window (unless ``context_window`` is overridden) and
    an output reserve that fits it (unless ``max_tokens`` is). Every shell builds its policy
    here. Raises ``PolicyError`` with its problems (``explain_policy_error`` words them for the
    command line).
    """
    from ctxtui.core.policies.policy import policy_for_session, preset

    if session is None:
        return preset(preset_name, **dict(overrides or {}))
    return policy_for_session(preset_name, session, overrides)
