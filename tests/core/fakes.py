"""A tokenizer for planner tests: figures a reader can check by counting characters."""

from __future__ import annotations

from collections.abc import Sequence

from ctxtui.core.session.models import Message, ToolDefinition


class CharTokenizer:
    """One token per character of content, plus 1 per message."""

    name = "chars"

    def count_text(self, text: str) -> int:
        return len(text)

    def count_message(self, message: Message) -> int:
        return len(message.content) + 1

    def count_tool_defs(self, tools: Sequence[ToolDefinition]) -> int:
        return 0

    def count_system(self, system_prompt: str) -> int:
        return len(system_prompt)
