"""Token counters behind one interface: the plan's estimator, PicoClaw's, and tiktoken.

Contract (the planner, the app and the report rely on it):

* ``Tokenizer.name`` is the spec it answers to (``plan``, ``picoclaw``, ``tiktoken:cl100k_base``).
* ``count_message`` counts one message as that tokenizer's agent would, media by item, opaque
  blobs not at all; ``count_text`` counts bare text (stubs, previews, summaries);
  ``count_tool_defs`` counts the tool schemas sent with a request; ``count_system`` counts the
  system prompt as the one system message of a request.
* ``resolve(spec, chars_per_token=...)`` returns a tokenizer and a ``TokenizerInfo`` saying
  which tokenizer was asked for, which one is used, and why they differ. It never blocks on the
  network for longer than ``timeout`` seconds. ``available_tokenizers()`` lists the specs the
  app offers.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from ctxtui.core.models import Message, ToolDefinition
from ctxtui.core.plan import TokenizerInfo
from ctxtui.core.tokenizers.encodings import (
    OFFLINE_ENCODINGS,
    EncodingUnavailableError,
    load_encoding,
    tiktoken_is_unusable,
)
from ctxtui.core.tokenizers.estimator import (
    DEFAULT_CHARS_PER_TOKEN,
    PlanTokenizer,
    validate_chars_per_token,
)
from ctxtui.core.tokenizers.opencode import OpenCodeTokenizer
from ctxtui.core.tokenizers.picoclaw import (
    CONTEXT_SUMMARY_PREFIX,
    PicoClawTokenizer,
    summary_section,
    summary_system_tokens,
)
from ctxtui.core.tokenizers.tiktoken_counter import TiktokenTokenizer


class Tokenizer(Protocol):
    """What every token counter offers."""

    @property
    def name(self) -> str: ...

    def count_text(self, text: str) -> int: ...

    def count_message(self, message: Message) -> int: ...

    def count_tool_defs(self, tools: Sequence[ToolDefinition]) -> int: ...

    def count_system(self, system_prompt: str) -> int: ...


@runtime_checkable
class BatchTokenizer(Tokenizer, Protocol):
    """A tokenizer that also counts many messages in one call, for the counting pass."""

    def count_messages(self, messages: Sequence[Message]) -> list[int]: ...


PLAN = "plan"
PICOCLAW = "picoclaw"
OPENCODE = "opencode"
TIKTOKEN_PREFIX = "tiktoken:"
FALLBACK_ENCODING = "cl100k_base"
"""The encoding every tiktoken fallback counts with: bundled, so it needs no network."""

_OFFERED_ENCODINGS = ("cl100k_base", "o200k_base")


def available_tokenizers() -> tuple[str, ...]:
    """The specs the app's selector offers; any other ``tiktoken:ENCODING`` also resolves."""
    return (PLAN, PICOCLAW, OPENCODE, *(TIKTOKEN_PREFIX + e for e in _OFFERED_ENCODINGS))


def _unknown_spec(spec: str) -> ValueError:
    valid = ", ".join(available_tokenizers())
    return ValueError(f"unknown tokenizer {spec!r}; valid: {valid} (or tiktoken:ENCODING)")


def resolve(
    spec: str, *, chars_per_token: float = DEFAULT_CHARS_PER_TOKEN, timeout: float = 3.0
) -> tuple[Tokenizer, TokenizerInfo]:
    """The tokenizer for ``spec`` and what was actually used, falling back rather than failing.

    A tiktoken encoding that cannot be loaded within ``timeout`` seconds falls back to the
    bundled cl100k_base; if tiktoken itself is unusable, to the plan estimator. The note says
    which and why. Unknown specs and a ratio ≤ 0 raise ``ValueError``.
    """
    validate_chars_per_token(chars_per_token)
    if spec == PLAN:
        return PlanTokenizer(chars_per_token), TokenizerInfo(spec, PLAN)
    if spec == PICOCLAW:
        return PicoClawTokenizer(), TokenizerInfo(spec, PICOCLAW)
    if spec == OPENCODE:
        return OpenCodeTokenizer(), TokenizerInfo(spec, OPENCODE)
    encoding_name = spec.removeprefix(TIKTOKEN_PREFIX)
    if not spec.startswith(TIKTOKEN_PREFIX) or not encoding_name:
        raise _unknown_spec(spec)
    try:
        return _tiktoken(encoding_name, timeout), TokenizerInfo(spec, spec)
    except EncodingUnavailableError as exc:
        reason = str(exc)
    if encoding_name != FALLBACK_ENCODING and not tiktoken_is_unusable(reason):
        try:
            used = _tiktoken(FALLBACK_ENCODING, timeout)
        except EncodingUnavailableError as exc:
            reason = f"{reason}; {exc}"
        else:
            note = f"{reason}; counting with {FALLBACK_ENCODING} instead"
            return used, TokenizerInfo(spec, used.name, note)
    note = f"{reason}; counting with the plan estimator ({chars_per_token:g} chars/token) instead"
    return PlanTokenizer(chars_per_token), TokenizerInfo(spec, PLAN, note)


def _tiktoken(encoding_name: str, timeout: float) -> TiktokenTokenizer:
    # The bundled copies load from disk; only downloads get the deadline.
    wait = None if encoding_name in OFFLINE_ENCODINGS else timeout
    encoding = load_encoding(encoding_name, wait)
    return TiktokenTokenizer(encoding, TIKTOKEN_PREFIX + encoding_name)


__all__ = [
    "CONTEXT_SUMMARY_PREFIX",
    "OPENCODE",
    "PICOCLAW",
    "PLAN",
    "TIKTOKEN_PREFIX",
    "BatchTokenizer",
    "OpenCodeTokenizer",
    "PicoClawTokenizer",
    "PlanTokenizer",
    "TiktokenTokenizer",
    "Tokenizer",
    "available_tokenizers",
    "resolve",
    "summary_section",
    "summary_system_tokens",
]
