"""Exact token counts of chat messages: the text, exactly, plus the chat template's framing.

Text is counted as ``encode_ordinary`` would: transcripts are untrusted, and a literal
``<|endoftext|>`` in a tool output is text to count, not a special token to reject. The
framing per message, name and tool call comes from the family's template (``Framing``).
"""

from __future__ import annotations

from collections.abc import Sequence

from ctxtui.core.session.models import ROLES, Message, ToolDefinition
from ctxtui.core.tokens.tokenizers.exact import TextCounter
from ctxtui.core.tokens.tokenizers.families import OPENAI_FRAMING, Framing
from ctxtui.core.tokens.tokenizers.gojson import go_json

IMAGE_TOKENS = 765
"""An image with no estimate of its own: a 1024×1024 image at ``detail: high`` on 4o-class
models, 85 + 170 × 4 tiles. Other media, and other families, use the same figure."""


class ChatTokenizer:
    """Counts with one exact encoding, as a chat request to its models would be billed."""

    def __init__(self, counter: TextCounter, name: str, framing: Framing = OPENAI_FRAMING) -> None:
        self.counter = counter
        self.framing = framing
        self._count = counter.count
        self._name = name
        self._role_tokens = {role: counter.count(role) for role in ROLES}

    @property
    def name(self) -> str:
        return self._name

    @property
    def backend(self) -> str:
        """Which library counts (``quicktok 0.4.0``, ``tiktoken 0.14.0``): part of cache keys."""
        return self.counter.backend

    def count_text(self, text: str) -> int:
        """Bare text, with no message framing."""
        return self._count(text) if text else 0

    def count_message(self, message: Message) -> int:
        """One message: framing, role, content, reasoning, name, tool calls and media; opaque
        blobs are not charged (their cost is unknown, never proportional to bytes)."""
        count = self._count
        framing = self.framing
        tokens = framing.per_message + self._role_tokens[message.role]
        if message.content:
            tokens += count(message.content)
        if message.reasoning:
            tokens += count(message.reasoning)
        if message.name:
            tokens += framing.per_name + count(message.name)
        for call in message.tool_calls:
            tokens += framing.per_tool_call + count(call.name)
            if call.arguments:
                tokens += count(call.arguments)
        if message.parts:
            for part in message.media_parts:
                estimate = part.token_estimate
                tokens += IMAGE_TOKENS if estimate is None else estimate
        return tokens

    def count_messages(self, messages: Sequence[Message]) -> list[int]:
        """Many messages at once: plain-text contents go to the counter in one batch, the rest
        through ``count_message``."""
        per_message = self.framing.per_message
        role_tokens = self._role_tokens
        count = self.count_message
        out: list[int] = []
        append = out.append
        plain: list[int] = []
        for message in messages:
            if message.tool_calls or message.reasoning or message.name or message.parts:
                append(count(message))
            else:
                if message.content:
                    plain.append(len(out))
                append(per_message + role_tokens[message.role])
        if plain:
            texts = [messages[i].content for i in plain]
            for i, tokens in zip(plain, self.counter.count_many(texts), strict=True):
                out[i] += tokens
        return out

    def count_tool_defs(self, tools: Sequence[ToolDefinition]) -> int:
        """All tool schemas of a request, as the compact JSON of their parameters, which tracks
        both OpenAI's TypeScript rendering and the open models' JSON closely."""
        if not tools:
            return 0
        framing = self.framing
        tokens = framing.per_tool_list
        for tool in tools:
            tokens += framing.per_tool_def + self.count_text(tool.name)
            tokens += self.count_text(tool.description)
            tokens += self.count_text(go_json(dict(tool.parameters)))
        return tokens

    def count_system(self, system_prompt: str) -> int:
        """The system prompt as one system message; no prompt means no message, 0 tokens."""
        if not system_prompt:
            return 0
        return (
            self.framing.per_message + self._role_tokens["system"] + self.count_text(system_prompt)
        )
