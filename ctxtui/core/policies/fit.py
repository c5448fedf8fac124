"""Fitting a preset to a session: the window, reserve, tokenizer and limits its model implies.

Kept apart from ``core.policies.policy``, which validates the values this module works out.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ctxtui.core.policies.windows import ModelEntry
    from ctxtui.core.session.models import Session

APPROX_BYTES_PER_TOKEN = 4
"""Codex's ``approx_token_count`` divisor, which turns its token limits into bytes."""


@dataclass(frozen=True, slots=True)
class Derived:
    """A knob fitting worked out from another: a value it makes out of range is refused as
    that other knob's, since the user never gave the one worked out (PicoClaw's window is
    ``4 × --max-tokens``; ``--max-tokens 10`` is what to blame for a window of 40)."""

    source: str  # the knob it was worked out from
    words: str  # how, in an error's words: ``4 × the output reserve, ...``


def fit_reserve(window: int, reserve: int) -> int:
    """The output reserve to use for ``window``: the preset's, unless it is too big for it.

    A reserve of half the window or more would leave the history less room than the model's
    answer (a 32,768 reserve in a 32k window leaves none), so it drops to a quarter of the
    window; 131,072 with 32,768 and larger windows keep the preset's figure untouched.
    """
    return reserve if reserve < window // 2 else window // 4


def _fit_window(
    values: dict[str, Any],
    session: Session,
    entry: ModelEntry | None,
    given: Mapping[str, Any],
    default_reserve: int,
) -> Derived | None:
    """The window no user gave (``session_values``), and whether the agent then auto-compacts;
    returns how the window was worked out when it came from another knob."""
    from ctxtui.core.policies.windows import codex_knows

    meta = session.meta
    if meta.context_window is not None:
        values["context_window"] = meta.context_window
    elif values.get("unconfigured_window_factor"):
        # PicoClaw never looks the model up: unconfigured, it budgets max_tokens · 4
        factor = int(values["unconfigured_window_factor"])
        reserve = int(values.get("max_tokens", default_reserve))
        values["context_window"] = factor * reserve
        return Derived(
            "max_tokens",
            f"{factor} × the output reserve, the agent's window when none is configured",
        )
    else:
        if entry is not None:
            values["context_window"] = entry.window
        known = entry is not None and codex_knows(meta.model)
        if values.get("auto_compact_needs_window") and not known and "auto_compact" not in given:
            values["auto_compact"] = False
    return None


def session_values(
    row: Mapping[str, Any],
    session: Session,
    given: Mapping[str, Any],
    defaults: tuple[int, int],
) -> tuple[dict[str, Any], dict[str, Derived]]:
    """A preset's ``row`` with the user's ``given`` values, fitted to ``session``, and the
    knobs it worked out from another (``Derived``), by name.

    The window is, in order: the user's, the one the transcript recorded (Codex's
    ``model_context_window``, read back to the whole window by its importer), the registry's
    for the session's model (``core.policies.windows``), the preset's. An agent that never
    looks the model up (``unconfigured_window_factor``, PicoClaw) skips the registry: its
    window is N × the output reserve, as it budgets with none configured. With
    ``auto_compact_needs_window`` (Codex) there is no auto-compaction when neither the user nor
    the transcript gave a window and the agent's own registry has none for the model (a Claude
    model under Codex keeps its registry window, but no trigger). With
    ``output_from_model`` the output reserve is the model's maximum output, at most the
    preset's ``max_tokens``. The reserve is then fitted to the window (``fit_reserve``) unless
    the user set ``max_tokens``, and ``reserve_lowered_from`` records it when that lowered it.
    With ``tokenizer_from_model`` the model's own tokenizer counts; with
    ``truncate_from_model`` its tool-output limit. ``defaults`` are the policy's window and
    reserve, for a row that does not set them.
    """
    # Here, not at the top: the registry loads the tokenizers, and the knob table (--help) imports
    # this module.
    from ctxtui.core.policies.windows import lookup, model_tokenizer

    values: dict[str, Any] = {**row, **given}
    derived: dict[str, Derived] = {}
    meta = session.meta
    entry = lookup(meta.model)
    if "context_window" not in given:
        how = _fit_window(values, session, entry, given, defaults[1])
        if how is not None:
            derived["context_window"] = how
    if "input_limit" not in given and entry is not None:
        values["input_limit"] = entry.input_limit
    if "max_tokens" not in given:
        window = int(values.get("context_window", defaults[0]))
        reserve = int(values.get("max_tokens", defaults[1]))
        if values.get("output_from_model") and entry is not None and entry.max_output:
            reserve = min(reserve, entry.max_output)
        values["max_tokens"] = fit_reserve(window, reserve)
        if values["max_tokens"] < reserve:
            values["reserve_lowered_from"] = reserve
    limit = entry.tool_output_tokens if entry is not None else 0
    if values.get("truncate_from_model") and limit and "truncate_max_bytes" not in given:
        values["truncate_max_bytes"] = limit * APPROX_BYTES_PER_TOKEN
    if "tokenizer" not in given and values.get("tokenizer_from_model"):
        spec = model_tokenizer(meta.model)
        if spec is not None:
            values["tokenizer"] = spec
    return values, derived
