"""Exact token counts with tiktoken, plus OpenAI's chat-format overhead per message.

Text is encoded with ``encode_ordinary``: transcripts are untrusted, and a literal
``<|endoftext|>`` in a tool output is text to count, not a special token to reject.
"""

from __future__ import annotations

from collections.abc import Sequence

from ctxtui.core.models import ROLES, Message, ToolDefinition
from ctxtui.core.tokenizers.encodings import Encoding
from ctxtui.core.tokenizers.gojson import go_json

PREFIX = "tiktoken:"

TOKENS_PER_MESSAGE = 3
"""``<|start|>``, the role/body separator and ``<|end|>`` around every message (OpenAI
cookbook, "How to count tokens with tiktoken"); the role itself is encoded on top."""

TOKENS_PER_NAME = 1
"""A message's ``name`` costs its encoding plus one separator token (same cookbook)."""

TOKENS_PER_TOOL_CALL = 8
"""Framing of one tool call (id, ``function`` type, JSON wrapper) on top of the encoded
name and arguments. OpenAI does not document it; 8 is an allowance, not a measured figure.
A result's ``tool_call_id`` is framing too, not text."""

TOKENS_PER_TOOL_DEF = 8
"""Framing of one tool definition in the rendered ``namespace functions`` block."""

TOKENS_PER_TOOL_LIST = 12
"""The ``# Tools`` / ``namespace functions { … }`` header and footer, once per request."""

IMAGE_TOKENS = 765
"""An image with no estimate of its own: a 1024×1024 image at ``detail: high`` on 4o-class
models, 85 + 170 × 4 tiles (formats.md §10.3). Other media use the same figure."""


class TiktokenTokenizer:
    """Counts with one tiktoken encoding, as an OpenAI chat request would be billed."""

    def __init__(self, encoding: Encoding, name: str) -> None:
        self._encode = encoding.encode_ordinary
        self._name = name
        self._role_tokens = {role: len(self._encode(role)) for role in ROLES}

    @property
    def name(self) -> str:
        return self._name

    def count_text(self, text: str) -> int:
        """Bare text, with no message framing."""
        return len(self._encode(text)) if text else 0

    def count_message(self, message: Message) -> int:
        """One message: framing, role, content, reasoning, name, tool calls and media.

        Opaque blobs are not charged: their cost is unknown and never proportional to bytes.
        """
        encode = self._encode
        tokens = TOKENS_PER_MESSAGE + self._role_tokens[message.role]
        if message.content:
            tokens += len(encode(message.content))
        if message.reasoning:
            tokens += len(encode(message.reasoning))
        if message.name:
            tokens += TOKENS_PER_NAME + len(encode(message.name))
        for call in message.tool_calls:
            tokens += TOKENS_PER_TOOL_CALL + len(encode(call.name))
            if call.arguments:
                tokens += len(encode(call.arguments))
        if message.parts:
            for part in message.media_parts:
                estimate = part.token_estimate
                tokens += IMAGE_TOKENS if estimate is None else estimate
        return tokens

    def count_messages(self, messages: Sequence[Message]) -> list[int]:
        """Many messages at once: the counting pass's fast path.

        Most messages are plain text, and for short ones the Python around the encoder costs
        as much as the encoder; they are counted inline, the rest by ``count_message``.
        """
        encode = self._encode
        role_tokens = self._role_tokens
        count = self.count_message
        out: list[int] = []
        append = out.append
        for message in messages:
            if message.tool_calls or message.reasoning or message.name or message.parts:
                append(count(message))
            elif message.content:
                append(
                    TOKENS_PER_MESSAGE + role_tokens[message.role] + len(encode(message.content))
                )
            else:
                append(TOKENS_PER_MESSAGE + role_tokens[message.role])
        return out

    def count_tool_defs(self, tools: Sequence[ToolDefinition]) -> int:
        """All tool schemas of a request.

        OpenAI renders schemas as TypeScript in the system message; the compact JSON of the
        parameters stands in for that text, which it tracks closely in length.
        """
        if not tools:
            return 0
        tokens = TOKENS_PER_TOOL_LIST
        for tool in tools:
            tokens += TOKENS_PER_TOOL_DEF + self.count_text(tool.name)
            tokens += self.count_text(tool.description)
            tokens += self.count_text(go_json(dict(tool.parameters)))
        return tokens

    def count_system(self, system_prompt: str) -> int:
        """The system prompt as one system message; no prompt means no message, 0 tokens."""
        if not system_prompt:
            return 0
        return TOKENS_PER_MESSAGE + self._role_tokens["system"] + self.count_text(system_prompt)
