"""Model windows: the context window and maximum output of the models agents run, by family.

The figures are data (``model_windows.json`` beside this module, each entry with its source),
not code, so adding a model is one line. A transcript writes model ids in many spellings —
``claude-sonnet-4-5-20250929``, ``anthropic/claude-sonnet-4-5``, ``gpt-5-codex`` — and all of
them resolve to their family's entry. A model the registry lacks takes its window from the
transcript or the user's ``--context-window``.

``window_source`` says where a policy's window came from (the user, the transcript, this
registry, or the preset's default), for the report and the comparison.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache
from importlib import resources
from typing import Any

from ctxtui.core.tokens.tokenizers.families import tokenizer_for_model

_DATE = re.compile(r"(?:-\d{8}|-\d{4}-\d{2}-\d{2}|@\d{8}|-latest)$")
_VERSION = re.compile(r"-v\d+(?::\d+)?$")  # Bedrock's "-v1:0"


class WindowSource(StrEnum):
    """Where the context window of a plan came from."""

    USER = "user"  # a flag, a setting
    TRANSCRIPT = "transcript"  # the session recorded it (Codex's model_context_window)
    REGISTRY = "registry"  # the session names a model this registry knows
    PRESET = "preset"  # the preset's default


@dataclass(frozen=True, slots=True)
class ModelEntry:
    """One model family's figures and where they come from."""

    family: str
    window: int
    max_output: int
    source: str
    input_limit: bool = False  # the window is an input limit; the answer has room of its own
    tool_output_tokens: int = 0  # Codex cuts this model's tool outputs to N tokens (0: bytes)


class ModelConfigError(ValueError):
    """A user's model entry that is not ``{"window": N, "max_output": N}``."""


def _entry(family: str, raw: Any, origin: str) -> ModelEntry:
    if not isinstance(raw, Mapping):
        raise ModelConfigError(f"models.{family}: expected an object with window and max_output")
    window, output = raw.get("window"), raw.get("max_output", 0)
    for name, value in (("window", window), ("max_output", output)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ModelConfigError(f"models.{family}.{name}: expected a whole number ≥ 0")
    assert isinstance(window, int) and isinstance(output, int)
    if window < 256:
        raise ModelConfigError(f"models.{family}.window: expected at least 256, got {window}")
    source = raw.get("source")
    input_limit = raw.get("input_limit", False)
    if not isinstance(input_limit, bool):
        raise ModelConfigError(f"models.{family}.input_limit: expected true or false")
    tool_tokens = raw.get("tool_output_tokens", 0)
    if isinstance(tool_tokens, bool) or not isinstance(tool_tokens, int) or tool_tokens < 0:
        raise ModelConfigError(f"models.{family}.tool_output_tokens: expected a whole number ≥ 0")
    return ModelEntry(
        normalize(family),
        window,
        output,
        str(source) if source else origin,
        input_limit,
        tool_tokens,
    )


@lru_cache(maxsize=1)
def bundled_models() -> Mapping[str, ModelEntry]:
    """The registry shipped with ctxtui."""
    text = resources.files("ctxtui.core.policies").joinpath("model_windows.json").read_text("utf-8")
    data = json.loads(text)["models"]
    return {normalize(k): _entry(k, v, "ctxtui registry") for k, v in data.items()}


def normalize(model_id: str) -> str:
    """The family key of a model id: lower case, no provider prefix, date or version suffix."""
    key = model_id.strip().lower()
    key = key.rsplit("/", 1)[-1]
    key = key.split(":", 1)[0] if key.count(":") == 1 and not _VERSION.search(key) else key
    key = _VERSION.sub("", key)
    for prefix in ("us.anthropic.", "eu.anthropic.", "anthropic.", "openai."):
        key = key.removeprefix(prefix)
    return _DATE.sub("", key)


def lookup(model_id: str | None) -> ModelEntry | None:
    """The entry for ``model_id``: its family exactly, else the longest family it extends.

    ``claude-sonnet-4-5-20250929`` → ``claude-sonnet-4-5``; ``gpt-5-codex-high`` →
    ``gpt-5-codex``. A family matches only at a ``-`` boundary, so ``o3`` is not ``o3x``.
    """
    if not model_id:
        return None
    key = normalize(model_id)
    table = bundled_models()
    hit = table.get(key)
    if hit is not None:
        return hit
    best: ModelEntry | None = None
    for family, entry in table.items():
        if key.startswith(family + "-") and (best is None or len(family) > len(best.family)):
            best = entry
    return best


CODEX_FAMILIES = ("o3", "o4-mini", "codex-", "gpt-4.1", "gpt-oss", "gpt-4o", "gpt-3.5", "gpt-5")
"""The slugs Codex's own model registry knows (``find_family_for_model`` in
``codex-rs/core/src/model_family.rs`` matches these prefixes); any other model (a Claude or
Gemini one) gets ``derive_default_model_family``, with no context window, so Codex never
auto-compacts it."""


def codex_knows(model_id: str | None) -> bool:
    """Whether Codex's registry has a family (and so a window) for ``model_id``."""
    if not model_id:
        return False
    return normalize(model_id).startswith(CODEX_FAMILIES)


CODEX_EFFECTIVE_PERCENT = 95
"""Codex's ``effective_context_window_percent``: the share of the window its rollouts record
as ``model_context_window`` (``codex-rs/core/src/openai_models/model_family.rs``)."""


def codex_window(recorded: int | None, model: str | None) -> int | None:
    """The model's window from the ``model_context_window`` a Codex rollout records.

    Codex writes ``window · 95 / 100`` (258,400 for GPT-5's 272,000); the window is the
    smallest figure whose 95 % that is. A rollout that records the registry's own window for
    its model (older builds wrote the whole window) is taken as written.
    """
    if recorded is None:
        return None
    entry = lookup(model)
    if entry is not None and entry.window == recorded:
        return recorded
    return -(-recorded * 100 // CODEX_EFFECTIVE_PERCENT)


def model_tokenizer(model_id: str | None) -> str | None:
    """The tokenizer spec of ``model_id``'s family, or ``None`` when it is not known."""
    return tokenizer_for_model(model_id) if model_id else None


def window_source(
    context_window: int, preset_window: int, session_window: int | None, model: str | None
) -> WindowSource:
    """Where ``context_window`` came from, in precedence order transcript > registry > preset.

    A value none of them gives was the user's. A user who types the transcript's own figure
    is reported as the transcript: the figure, which is what matters, is the same.
    """
    if session_window is not None and context_window == session_window:
        return WindowSource.TRANSCRIPT
    entry = lookup(model)
    if entry is not None and context_window == entry.window:
        return WindowSource.REGISTRY
    if context_window == preset_window and session_window is None:
        return WindowSource.PRESET
    return WindowSource.USER
