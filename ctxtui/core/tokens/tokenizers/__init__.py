"""Token counters behind one interface: the plan's estimator, PicoClaw's, and exact BPE counts.

Contract (the planner, the app and the report rely on it):

* ``Tokenizer.name`` is its spec (``plan``, ``picoclaw``, ``tiktoken:cl100k_base``,
  ``tiktoken:o200k_base``, ``llama3``, ``qwen2``).
* ``count_message`` counts a message as that tokenizer's agent would (media by item, opaque
  blobs not at all); ``count_text`` bare text; ``count_tool_defs`` a request's tool schemas;
  ``count_system`` the system prompt as a request's one system message.
* ``resolve(spec, ...)`` returns a tokenizer and a ``TokenizerInfo`` (asked for, used, why
  they differ), never blocking on the network past ``timeout``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from ctxtui.core.session.models import Message, ToolDefinition
from ctxtui.core.tokens.specs import TIKTOKEN_PREFIX, TOKENIZERS
from ctxtui.core.tokens.tokenizers.chat import ChatTokenizer
from ctxtui.core.tokens.tokenizers.encodings import (
    OFFLINE_ENCODINGS,
    EncodingUnavailableError,
    load_encoding,
    load_quicktok,
    tiktoken_is_unusable,
)
from ctxtui.core.tokens.tokenizers.estimator import (
    DEFAULT_CHARS_PER_TOKEN,
    PlanTokenizer,
    validate_chars_per_token,
)
from ctxtui.core.tokens.tokenizers.exact import QuicktokCounter, TiktokenCounter
from ctxtui.core.tokens.tokenizers.families import CL100K, FAMILIES, OPENAI_FRAMING
from ctxtui.core.tokens.tokenizers.opencode import OpenCodeTokenizer
from ctxtui.core.tokens.tokenizers.picoclaw import PicoClawTokenizer


class Tokenizer(Protocol):
    """What every token counter offers."""

    @property
    def name(self) -> str: ...

    def count_text(self, text: str) -> int: ...

    def count_message(self, message: Message) -> int: ...

    def count_tool_defs(self, tools: Sequence[ToolDefinition]) -> int: ...

    def count_system(self, system_prompt: str) -> int: ...


@dataclass(frozen=True, slots=True)
class TokenizerInfo:
    """Which tokenizer was asked for, which one counted, and why they differ."""

    requested: str
    used: str
    note: str = ""

    @property
    def fell_back(self) -> bool:
        return self.requested != self.used


@runtime_checkable
class BatchTokenizer(Tokenizer, Protocol):
    """A tokenizer that also counts many messages in one call, for the counting pass."""

    def count_messages(self, messages: Sequence[Message]) -> list[int]: ...


PLAN = "plan"
PICOCLAW = "picoclaw"
OPENCODE = "opencode"
FALLBACK_ENCODING = "cl100k_base"
"""The encoding every fallback counts with: bundled twice over, so it needs no network."""


def available_tokenizers() -> tuple[str, ...]:
    """The specs the app's selector offers (``tokens.specs.TOKENIZERS``); any other
    ``tiktoken:ENCODING`` also resolves."""
    return tuple(t.spec for t in TOKENIZERS)


def resolve(
    spec: str,
    *,
    chars_per_token: float = DEFAULT_CHARS_PER_TOKEN,
    timeout: float = 3.0,
    fast: bool = True,
) -> tuple[Tokenizer, TokenizerInfo]:
    """The tokenizer for ``spec`` and what was actually used, falling back rather than failing:
    ``quicktok``, else tiktoken (within ``timeout``), else cl100k_base, else the plan
    estimator, the note saying why. Unknown specs and a ratio ≤ 0 raise ``ValueError``.
    ``fast=False`` prefers tiktoken's bundled cl100k_base (same counts), whose load holds the
    GIL for less: for a few texts."""
    validate_chars_per_token(chars_per_token)
    if spec == PLAN:
        return PlanTokenizer(chars_per_token), TokenizerInfo(spec, PLAN)
    if spec == PICOCLAW:
        return PicoClawTokenizer(), TokenizerInfo(spec, PICOCLAW)
    if spec == OPENCODE:
        return OpenCodeTokenizer(), TokenizerInfo(spec, OPENCODE)
    if spec not in FAMILIES and (
        not spec.startswith(TIKTOKEN_PREFIX) or not spec.removeprefix(TIKTOKEN_PREFIX)
    ):
        valid = ", ".join(available_tokenizers())
        raise ValueError(f"unknown tokenizer {spec!r}; valid: {valid} (or tiktoken:ENCODING)")
    try:
        return _exact(spec, timeout, fast), TokenizerInfo(spec, spec)
    except EncodingUnavailableError as exc:
        reason = str(exc)
    if spec != CL100K and not tiktoken_is_unusable(reason):
        try:
            used = _exact(CL100K, timeout, fast)
        except EncodingUnavailableError as exc:
            reason = f"{reason}; {exc}"
        else:
            note = f"{reason}; counting with {FALLBACK_ENCODING} instead"
            return used, TokenizerInfo(spec, used.name, note)
    note = f"{reason}; counting with the plan estimator ({chars_per_token:g} chars/token) instead"
    return PlanTokenizer(chars_per_token), TokenizerInfo(spec, PLAN, note)


def _exact(spec: str, timeout: float, fast: bool = True) -> ChatTokenizer:
    """The exact tokenizer for ``spec``: ``quicktok`` for the families, else tiktoken;
    ``EncodingUnavailableError`` with every reason when neither can count it."""
    family = FAMILIES.get(spec)
    reasons: list[str] = []
    if family is not None and not fast and family.tiktoken in OFFLINE_ENCODINGS:
        try:
            encoding = load_encoding(family.tiktoken, None)
        except EncodingUnavailableError as exc:
            reasons.append(str(exc))
        else:
            return ChatTokenizer(TiktokenCounter(encoding), spec, family.framing)
    if family is not None:
        try:
            counter = QuicktokCounter(family, load_quicktok(family.quicktok))
        except EncodingUnavailableError as exc:
            reasons.append(str(exc))
        else:
            return ChatTokenizer(counter, spec, family.framing)
        if family.tiktoken is None:
            raise EncodingUnavailableError("; ".join(reasons))
        encoding_name = family.tiktoken
    else:
        encoding_name = spec.removeprefix(TIKTOKEN_PREFIX)
    # The bundled copies load from disk; only downloads get the deadline.
    wait = None if encoding_name in OFFLINE_ENCODINGS else timeout
    try:
        encoding = load_encoding(encoding_name, wait)
    except EncodingUnavailableError as exc:
        raise EncodingUnavailableError("; ".join([*reasons, str(exc)])) from None
    framing = family.framing if family is not None else OPENAI_FRAMING
    return ChatTokenizer(TiktokenCounter(encoding), spec, framing)
