"""OpenCode's estimator: ``round(len / 4)`` over the serialised messages.

OpenCode estimates ``Token.estimate(JSON.stringify(modelMessages))`` with
``max(0, Math.round(s.length / 4))``: UTF-16 code units, .5 rounded up (``floor(x + 0.5)``).
Messages are serialised as the AI SDK's model messages, with ``JSON.stringify``'s escaping
(``json.dumps``, ``ensure_ascii=False``, no spaces); media as its ``data:`` URL. Each message is
estimated alone, so figures add up (OpenCode's one estimate differs by the brackets and commas).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ctxtui.core.session.json_depth import text_depth_exceeds
from ctxtui.core.session.models import Message, PartKind, ToolDefinition

NAME = "opencode"


def js_length(text: str) -> int:
    """JavaScript's ``String.length``: UTF-16 code units."""
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def estimate(text: str) -> int:
    """``max(0, Math.round(length / 4))`` with .5 rounded up."""
    return max(0, (js_length(text) + 2) // 4)


def stringify(value: Any) -> str:
    """``JSON.stringify(value)`` for the JSON values ctxtui builds."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _data_url(media_type: str, size: int) -> str:
    """A file part's ``data`` as OpenCode sends it: the part's URL, a ``data:`` URL whose
    base64 is ``4 ⌈size / 3⌉`` characters (the AI SDK's ``convertToModelMessages`` copies the
    UI part's ``url`` into ``data``)."""
    return f"data:{media_type};base64," + "x" * (4 * ((size + 2) // 3))


def model_message(message: Message, *, parse_arguments: bool = True) -> dict[str, Any]:
    """The message as an AI SDK model message (what OpenCode stringifies). Tool arguments are
    parsed as OpenCode does; text that is not JSON, or nests deeper than a document may
    (``MAX_DEPTH``, as the importers read such a string field), or with ``parse_arguments``
    off, stays the text it is."""
    parts: list[dict[str, Any]] = []
    if message.role == "tool":
        parts.append(
            {
                "type": "tool-result",
                "toolCallId": message.tool_call_id or "",
                "toolName": message.tool_name or "",
                "output": {"type": "text", "value": message.content},
            }
        )
        return {"role": "tool", "content": parts}
    if message.reasoning:
        parts.append({"type": "reasoning", "text": message.reasoning})
    if message.content:
        parts.append({"type": "text", "text": message.content})
    for part in message.parts:
        if part.kind in (PartKind.IMAGE, PartKind.OTHER):
            parts.append(
                {
                    "type": "file",
                    "mediaType": part.media_type or "",
                    "data": _data_url(part.media_type or "", part.byte_size),
                }
            )
    for call in message.tool_calls:
        arguments: Any = call.arguments
        if parse_arguments and not text_depth_exceeds(call.arguments):
            try:
                arguments = json.loads(call.arguments) if call.arguments.strip() else {}
            except ValueError:
                arguments = call.arguments
        parts.append(
            {"type": "tool-call", "toolCallId": call.id, "toolName": call.name, "input": arguments}
        )
    return {"role": message.role, "content": parts}


class OpenCodeTokenizer:
    """OpenCode's ``Token.estimate`` over each serialised message."""

    @property
    def name(self) -> str:
        return NAME

    def count_text(self, text: str) -> int:
        return estimate(text)

    def count_message(self, message: Message) -> int:
        """Arguments nested just under ``MAX_DEPTH`` can pass what this thread's stack parses
        or writes back (the stdlib recurses per level): they are counted as text."""
        try:
            return estimate(stringify(model_message(message)))
        except RecursionError:
            return estimate(stringify(model_message(message, parse_arguments=False)))

    def count_messages(self, messages: Sequence[Message]) -> list[int]:
        return [self.count_message(m) for m in messages]

    def count_tool_defs(self, tools: Sequence[ToolDefinition]) -> int:
        if not tools:
            return 0
        defs = [
            {"name": t.name, "description": t.description, "inputSchema": dict(t.parameters)}
            for t in tools
        ]
        return estimate(stringify(defs))

    def count_system(self, system_prompt: str) -> int:
        if not system_prompt:
            return 0
        return estimate(stringify({"role": "system", "content": system_prompt}))
