"""PicoClaw's shipped token estimator (``pkg/tokenizer/estimator.go``), reproduced exactly.

Simulating PicoClaw as shipped means charging what it charges: ``floor(chars · 2 / 5)``
(≈ 2.5 characters per token, not the 4.0 the plan assumes, defect X17), with runes for text,
bytes for tool plumbing, 12 characters per message and a flat 256 tokens per media item.
"""

from __future__ import annotations

from collections.abc import Sequence

from ctxtui.core.session.models import Message, ToolDefinition
from ctxtui.core.tokens.tokenizers.chars import (
    TOOL_DEF_OVERHEAD_CHARS,
    message_chars,
    runes,
    utf8_bytes,
)
from ctxtui.core.tokens.tokenizers.gojson import go_json

NAME = "picoclaw"

MEDIA_ITEM_TOKENS = 256
"""Tokens PicoClaw adds per media item, outside the character heuristic."""

CONTEXT_SUMMARY_PREFIX = (
    "CONTEXT_SUMMARY: The following is an approximate summary of prior conversation for "
    "reference only. It may be incomplete or outdated — always defer to explicit instructions."
    "\n\n"
)
"""What ``BuildMessages`` puts before a summary carried in the system prompt (174 runes)."""

SYSTEM_SECTION_SEPARATOR = "\n\n---\n\n"
"""How ``BuildMessages`` joins system-prompt parts; PicoClaw charges it 7 characters."""


def chars_to_tokens(chars: int) -> int:
    """PicoClaw's ratio: ``floor(chars · 2 / 5)`` in integer arithmetic, as Go computes it."""
    return chars * 2 // 5


def tool_def_chars(tool: ToolDefinition) -> int:
    """Characters one tool schema costs: name, description and Go-marshalled parameters."""
    return (
        utf8_bytes(tool.name)
        + utf8_bytes(tool.description)
        + utf8_bytes(go_json(dict(tool.parameters)))
        + TOOL_DEF_OVERHEAD_CHARS
    )


def summary_section(summary: str) -> str:
    """The text a summary adds to PicoClaw's one system message: separator, prefix, summary."""
    return SYSTEM_SECTION_SEPARATOR + CONTEXT_SUMMARY_PREFIX + summary


class PicoClawTokenizer:
    """``EstimateMessageTokens`` and ``EstimateToolDefsTokens`` as on PicoClaw ``main``."""

    @property
    def name(self) -> str:
        return NAME

    def count_text(self, text: str) -> int:
        """Bare text at PicoClaw's ratio, with no per-message overhead."""
        return chars_to_tokens(runes(text))

    def count_message(self, message: Message) -> int:
        """One message; opaque blobs are not charged, media are 256 each."""
        tokens = chars_to_tokens(message_chars(message))
        media = message.media_parts
        return tokens + MEDIA_ITEM_TOKENS * len(media) if media else tokens

    def count_messages(self, messages: Sequence[Message]) -> list[int]:
        """Many messages at once (the counting pass's fast path)."""
        count = self.count_message
        return [count(m) for m in messages]

    def count_tool_defs(self, tools: Sequence[ToolDefinition]) -> int:
        """All tool schemas of a request; an empty list costs 0."""
        return chars_to_tokens(sum(tool_def_chars(t) for t in tools))

    def count_system(self, system_prompt: str) -> int:
        """The system prompt as one system message; no prompt means no message, 0 tokens."""
        if not system_prompt:
            return 0
        return self.count_message(Message(role="system", content=system_prompt))
