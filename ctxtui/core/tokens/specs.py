"""The tokenizers a user may name: one list, read by the policy's check, ``--tokenizer``'s help
and error, and the app's selector."""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class TokenizerSpec:
    """One tokenizer a user may name: its spec, what it counts like, and whether it is exact."""

    spec: str
    what: str  # in --help: "'llama3' (Llama 3.x)"
    exact: bool


TOKENIZERS: tuple[TokenizerSpec, ...] = (
    TokenizerSpec("plan", "characters / --chars-per-token, rounded up", exact=False),
    TokenizerSpec("picoclaw", "PicoClaw's shipped estimator", exact=False),
    TokenizerSpec("opencode", "round(length / 4)", exact=False),
    TokenizerSpec("tiktoken:cl100k_base", "GPT-4", exact=True),
    TokenizerSpec("tiktoken:o200k_base", "GPT-4o/4.1/5, o-series, Codex", exact=True),
    TokenizerSpec("llama3", "Llama 3.x", exact=True),
    TokenizerSpec("qwen2", "Qwen2, 2.5, 3", exact=True),
)
"""Every tokenizer spec the app offers, in its selector's order; any other
``tiktoken:ENCODING`` is accepted too (and downloaded). The policy's check, ``--tokenizer``'s
help and error, and ``core.tokens.tokenizers.available_tokenizers`` are read from this list."""

TIKTOKEN_PREFIX = "tiktoken:"

TOKENIZER_PATTERN = re.compile(
    "^("
    + "|".join(t.spec for t in TOKENIZERS if not t.spec.startswith(TIKTOKEN_PREFIX))
    + f"|{TIKTOKEN_PREFIX}[A-Za-z0-9_.-]+)$"
)
"""What a tokenizer spec must look like: a name above, or ``tiktoken:`` and an encoding."""


def tokenizer_names(exact: bool | None = None) -> list[str]:
    """The specs as a person lists them, the tiktoken ones as ``tiktoken:ENCODING``."""
    names: list[str] = []
    for t in TOKENIZERS:
        if exact is not None and t.exact is not exact:
            continue
        name = f"{TIKTOKEN_PREFIX}ENCODING" if t.spec.startswith(TIKTOKEN_PREFIX) else t.spec
        if name not in names:
            names.append(name)
    return names


EXACT_PREFIXES: tuple[str, ...] = tuple(
    dict.fromkeys(
        TIKTOKEN_PREFIX if t.spec.startswith(TIKTOKEN_PREFIX) else t.spec
        for t in TOKENIZERS
        if t.exact
    )
)
"""What an exact tokenizer's spec starts with: ``tiktoken:``, or a family's name."""
