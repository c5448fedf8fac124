"""ShareGPT datasets (Vicuna, LLaMA-Factory, Axolotl): ``conversations`` of ``{from, value}``.

There are no ids, so a tool result is paired with the oldest call still waiting (position),
and stable ids are synthesised from the message index so pairing survives re-loading.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from ctxtui.core.errors import SessionLoadError
from ctxtui.core.session.formats import format_info
from ctxtui.core.session.models import (
    ContentPart,
    Message,
    PartKind,
    Role,
    Session,
    SessionMeta,
    ToolCall,
)
from ctxtui.importers._jsonl import Record, iter_values
from ctxtui.importers._parts import as_text, compact_json, quoted, text_part, tool_definitions
from ctxtui.importers._reader import json_kind, loads_field
from ctxtui.importers._stream import Source

FORMAT = format_info("sharegpt")

_ROLES: dict[str, Role] = {
    "human": "user",
    "user": "user",
    "gpt": "assistant",
    "assistant": "assistant",
    "chatgpt": "assistant",
    "bard": "assistant",
    "bing": "assistant",
    "model": "assistant",
    "system": "system",
    "developer": "developer",
}
_CALLS = frozenset({"function_call", "tool_call", "tool_calls"})
_RESULTS = frozenset({"observation", "tool", "function", "tool_response", "ipython"})
_IMAGE = "<image>"


def _turns(conversation: Any) -> list[Any] | None:
    if isinstance(conversation, Mapping) and isinstance(conversation.get("conversations"), list):
        turns: list[Any] = conversation["conversations"]
        return turns
    return None


def sniff(path: Path, head: Any) -> int:
    """``conversations`` of ``{from, value}`` is certain; of ``{role, content}``, likely."""
    first = head[0] if isinstance(head, list) and head else head
    turns = _turns(first)
    if not turns:
        return 0
    sample = [t for t in turns[:20] if isinstance(t, Mapping)]
    if any("from" in t and "value" in t for t in sample):
        return 95
    if any("role" in t and "content" in t for t in sample):
        return 70
    return 0


def _parse_calls(value: str, index: int, warnings: list[str]) -> list[tuple[str, str]]:
    """``(name, arguments)`` of each call in a ``function_call`` value (an object or a list)."""
    try:
        parsed = loads_field(value)
    except ValueError:
        warnings.append(f"message {index}: function_call value is not JSON; kept as arguments")
        return [("", value)]
    items = parsed if isinstance(parsed, list) else [parsed]
    calls: list[tuple[str, str]] = []
    for item in items:
        if not isinstance(item, Mapping):
            continue
        args = item.get("arguments", item.get("parameters", {}))
        arguments = args if isinstance(args, str) else compact_json(args)
        calls.append((as_text(item.get("name")), arguments))
    return calls


class _Builder:
    """Turns the conversation into messages, keeping the calls that await a result."""

    def __init__(self, images: list[Any], warnings: list[str]) -> None:
        self.images = deque(images)
        self.warnings = warnings
        self.messages: list[Message] = []
        self.pending: deque[ToolCall] = deque()

    def turn(self, index: int, raw: Any) -> None:
        if not isinstance(raw, Mapping):
            self.warnings.append(f"message {index}: expected an object, found {json_kind(raw)}")
            return
        speaker = as_text(raw.get("from", raw.get("role"))).lower()
        value = as_text(raw.get("value", raw.get("content")))
        if speaker in _CALLS:
            self._calls(index, value)
        elif speaker in _RESULTS:
            self._result(index, value)
        elif speaker in _ROLES:
            self.messages.append(self._text(_ROLES[speaker], value))
        else:
            self.warnings.append(f"message {index}: unknown speaker {quoted(speaker)} skipped")

    def _text(self, role: Role, value: str) -> Message:
        """A text turn; ``<image>`` placeholders become image parts labelled with their path."""
        count = value.count(_IMAGE) if role == "user" else 0
        if not count:
            return Message(role=role, content=value)
        parts: list[ContentPart] = [text_part(value)]
        for _ in range(count):
            label = as_text(self.images.popleft()) if self.images else _IMAGE
            parts.append(ContentPart(kind=PartKind.IMAGE, label=label))
        return Message(role=role, content=value, parts=tuple(parts))

    def _calls(self, index: int, value: str) -> None:
        calls = [
            ToolCall(id=f"sharegpt_call_{index}_{n}", name=name, arguments=arguments)
            for n, (name, arguments) in enumerate(_parse_calls(value, index, self.warnings))
        ]
        self.pending.extend(calls)
        self.messages.append(Message(role="assistant", tool_calls=tuple(calls)))

    def _result(self, index: int, value: str) -> None:
        if self.pending:
            call = self.pending.popleft()
            call_id, name = call.id, call.name or None
        else:
            self.warnings.append(f"message {index}: observation with no call before it")
            call_id, name = f"sharegpt_result_{index}", None
        self.messages.append(
            Message(role="tool", content=value, tool_call_id=call_id, tool_name=name)
        )


def _first_conversation(records: Iterator[Record], path: Path, warnings: list[str]) -> Any:
    first = next(records, None)
    if first is None:
        raise SessionLoadError(str(path), "expected ShareGPT conversations, found no JSON values")
    value = first.value
    count = 1
    if isinstance(value, list):
        if not value:
            raise SessionLoadError(
                str(path), "expected ShareGPT conversations, found an empty array"
            )
        count = len(value)
        value = value[0]
    count += sum(1 for _ in records)
    if count > 1:
        warnings.append(f"{count:,} conversations in the file; showing the first")
    if _turns(value) is None:
        raise SessionLoadError(
            str(path), f"expected a ShareGPT conversation, found {json_kind(value)}"
        )
    return value


def load(source: Source) -> Session:
    warnings: list[str] = []
    # Only the first conversation is kept; the rest are counted, so the record cap is off.
    records = iter_values(source, warnings, capped=False)
    conversation = _first_conversation(records, source.path, warnings)
    images = conversation.get("images")
    builder = _Builder(images if isinstance(images, list) else [], warnings)
    for index, raw in enumerate(_turns(conversation) or ()):
        builder.turn(index, raw)
    system = conversation.get("system")
    return Session(
        messages=tuple(builder.messages),
        system_prompt=system if isinstance(system, str) and system else None,
        tools=tool_definitions(conversation.get("tools")),
        meta=SessionMeta(format=FORMAT.name, warnings=tuple(warnings)),
    )
