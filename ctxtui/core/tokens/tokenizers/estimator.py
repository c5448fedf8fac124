"""The plan's estimator: PicoClaw's message structure at a configurable characters-per-token.

The plan adds ``Config{CharsPerToken: 4.0}`` (docs/plan.md) without saying how it is applied;
ctxtui applies it to the characters PicoClaw charges and rounds up, so a message never costs
0 and the knob compares with PicoClaw's 2.5 directly (X17).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from ctxtui.core.session.models import ContentPart, Message, PartKind, ToolDefinition
from ctxtui.core.tokens.tokenizers.chars import (
    MESSAGE_OVERHEAD_CHARS,
    message_chars,
    runes,
    tool_calls_bytes,
    utf8_bytes,
)
from ctxtui.core.tokens.tokenizers.picoclaw import MEDIA_ITEM_TOKENS, tool_def_chars

NAME = "plan"
DEFAULT_CHARS_PER_TOKEN = 4.0

_INTEGRAL_SLACK = 1e-9  # 21 / 0.7 is 30.000000000000004 in floats; it is 30 tokens

_EXACT_CHARS = 1 << 28
"""Below this many characters, and with a whole-number ratio ``k`` of at most ``_WHOLE_MAX``,
``chars_to_tokens`` is ``ceil(chars / k)``: the float quotient is exact when ``k`` divides,
and otherwise lies at least ``1 / k`` from an integer, far outside the slack."""
_WHOLE_MAX = 1 << 20

_MEDIA = (PartKind.IMAGE, PartKind.OTHER)


def _whole_ratio(chars_per_token: float) -> int:
    """The ratio as an ``int`` when integer division rounds exactly like the floats; else 0."""
    if chars_per_token.is_integer() and chars_per_token <= _WHOLE_MAX:
        return int(chars_per_token)
    return 0


def media_tokens(parts: Sequence[ContentPart]) -> int:
    """Images and other media of a message, each at its source's estimate or 256 tokens."""
    tokens = 0
    for part in parts:
        if part.kind in _MEDIA:
            estimate = part.token_estimate
            tokens += MEDIA_ITEM_TOKENS if estimate is None else estimate
    return tokens


def validate_chars_per_token(chars_per_token: float) -> float:
    """Reject a ratio that would divide by zero or go negative (defect X18)."""
    if not (isinstance(chars_per_token, (int, float)) and math.isfinite(chars_per_token)):
        raise ValueError(f"chars_per_token must be a finite number > 0, got {chars_per_token!r}")
    if chars_per_token <= 0:
        raise ValueError(f"chars_per_token must be > 0, got {chars_per_token!r}")
    return float(chars_per_token)


class PlanTokenizer:
    """``ceil(chars / chars_per_token)``, media at their own estimate or 256."""

    def __init__(self, chars_per_token: float = DEFAULT_CHARS_PER_TOKEN) -> None:
        self.chars_per_token = validate_chars_per_token(chars_per_token)

    @property
    def name(self) -> str:
        return NAME

    def chars_to_tokens(self, chars: int) -> int:
        """Round up, ignoring float noise that would add a token to an exact quotient."""
        quotient = chars / self.chars_per_token
        nearest = round(quotient)
        if abs(quotient - nearest) <= _INTEGRAL_SLACK * max(1.0, quotient):
            return int(nearest)
        return math.ceil(quotient)

    def count_text(self, text: str) -> int:
        """Bare text, with no per-message overhead."""
        return self.chars_to_tokens(runes(text))

    def count_message(self, message: Message) -> int:
        """One message; opaque blobs are not charged, media by their source estimate."""
        return self.chars_to_tokens(message_chars(message)) + media_tokens(message.parts)

    def count_messages(self, messages: Sequence[Message]) -> list[int]:
        """``count_message`` of each message, its calls inlined: every open runs this over the
        whole session. A whole-number ratio rounds by integer ``ceil`` division, which below
        ``_EXACT_CHARS`` equals ``chars_to_tokens``'s float result."""
        whole = _whole_ratio(self.chars_per_token)
        to_tokens = self.chars_to_tokens
        overhead = MESSAGE_OVERHEAD_CHARS
        out: list[int] = []
        append = out.append
        for m in messages:
            chars = len(m.content) + len(m.reasoning) + overhead
            if m.tool_calls:
                chars += tool_calls_bytes(m.tool_calls)
            call_id = m.tool_call_id
            if call_id:
                chars += len(call_id) if call_id.isascii() else utf8_bytes(call_id)
            tokens = -(-chars // whole) if whole and chars < _EXACT_CHARS else to_tokens(chars)
            if m.parts:
                tokens += media_tokens(m.parts)
            append(tokens)
        return out

    def count_tool_defs(self, tools: Sequence[ToolDefinition]) -> int:
        """All tool schemas of a request, charged as PicoClaw does but at this ratio."""
        if not tools:
            return 0
        return self.chars_to_tokens(sum(tool_def_chars(t) for t in tools))

    def count_system(self, system_prompt: str) -> int:
        """The system prompt as one system message; no prompt means no message, 0 tokens."""
        if not system_prompt:
            return 0
        return self.count_message(Message(role="system", content=system_prompt))
