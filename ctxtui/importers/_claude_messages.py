"""Claude Code's chained entries as messages: split responses merged, tool results split out."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import msgspec

from ctxtui.core.session.models import (
    ContentPart,
    Message,
    PartKind,
    RecordedCompaction,
    ToolCall,
)
from ctxtui.importers._jsonl import Record
from ctxtui.importers._parts import (
    anthropic_part,
    as_label,
    as_text,
    compact_json,
    join_text,
    opaque_part,
    text_part,
    usage_anthropic,
)
from ctxtui.importers._stream import Dropped
from ctxtui.importers._timestamps import parse_timestamp

SYNTHETIC_MODEL = "<synthetic>"


class Body(msgspec.Struct, frozen=True):
    """The fields of an entry's ``message`` that are read; any JSON value is taken in each,
    and checked where it is read, as a dict's would be."""

    id: Any = None
    model: Any = None
    content: Any = None
    usage: Any = None


_NO_BODY = Body()

_Json = Body | str | int | float | bool | list[Any] | None
"""Any JSON value, an object read as a ``Body``."""


class Entry(
    msgspec.Struct,
    frozen=True,
    rename={
        "parent": "parentUuid",
        "logical_parent": "logicalParentUuid",
        "is_sidechain": "isSidechain",
        "is_meta": "isMeta",
        "is_compact_summary": "isCompactSummary",
        "is_api_error": "isApiErrorMessage",
        "compact_metadata": "compactMetadata",
        "custom_title": "customTitle",
        "ai_title": "aiTitle",
        "agent_id": "agentId",
    },
):
    """The fields of a Claude Code record that the importer reads. The others (the
    ``toolUseResult`` copy of each tool result, snapshots, cwd, version, ...) are skipped by
    the parser without being built. Each field takes any JSON value, so no record is refused
    for a field of an unexpected type; the readers below check types as they read."""

    type: Any = None
    subtype: Any = None
    uuid: Any = None
    parent: Any = None
    logical_parent: Any = None
    is_sidechain: Any = None
    is_meta: Any = None
    is_compact_summary: Any = None
    is_api_error: Any = None
    timestamp: Any = None
    message: _Json = None
    compact_metadata: Any = None
    summary: Any = None
    custom_title: Any = None
    ai_title: Any = None
    title: Any = None
    agent_id: Any = None

    @property
    def kind(self) -> str | None:
        """``type`` when it is a string (a list there is bad input, not a kind)."""
        kind = self.type
        return kind if isinstance(kind, str) else None

    @property
    def body(self) -> Body:
        """``message`` when it is an object, else an empty one."""
        message = self.message
        return message if isinstance(message, Body) else _NO_BODY


def is_boundary(value: Entry) -> bool:
    return bool(value.type == "system" and value.subtype == "compact_boundary")


def blocks(value: Entry) -> list[dict[str, Any]]:
    content = value.body.content
    if isinstance(content, list):
        return [b for b in content if isinstance(b, dict)]
    return []


def convert(
    chain: list[Record],
    tool_names: Mapping[str, str],
    warnings: list[str],
    dropped: Dropped,
    compactions: list[RecordedCompaction] | None = None,
) -> list[Message]:
    """Chained entries → messages: merge split responses, split out tool results.

    Each ``compact_boundary`` crossed is appended to ``compactions`` at the index of the
    message that follows it (the summary).
    """
    converter = Converter(tool_names, dropped, compactions)
    for record in chain:
        converter.add(record)
    warnings.extend(converter.notes())
    return converter.out


class MessageCount:
    """``len(convert(chain, ...))`` counted record by record without making the messages, and
    the token counts ``convert`` would drop (``dropped``): what a compaction hid is only
    counted (``_boundary_note``), and converting the whole history for it was most of a read.
    ``last`` is the uuid of the last record counted, so that a chain which extends the one
    counted is counted on from here."""

    def __init__(self) -> None:
        self.count = 0
        self.dropped = Dropped()
        self.last: str | None = None
        self._last_other = -1  # the last message that is not a tool result
        self._open_ids: dict[str, int] = {}

    def add(self, record: Record) -> None:
        value: Entry = record.value
        self.last = value.uuid
        if value.type == "assistant":
            message = value.body
            if message.model != SYNTHETIC_MODEL and isinstance(message.usage, dict):
                usage_anthropic(message.usage, self.dropped)
            msg_id = _message_id(value)
            index = self._open_ids.get(msg_id) if msg_id else None
            if index is not None and index >= self._last_other:
                return  # only tool results since: a later line of the same response, merged
            self._last_other = self.count
            self.count += 1
            if msg_id:
                self._open_ids[msg_id] = self.count - 1
        elif value.type == "user":
            for role in _user_roles(value):
                if role != "tool":
                    self._last_other = self.count
                self.count += 1


def count_messages(chain: Iterable[Record], dropped: Dropped) -> int:
    """``len(convert(chain, ...))``, its dropped token counts added to ``dropped``."""
    counted = MessageCount()
    for record in chain:
        counted.add(record)
    dropped.count += counted.dropped.count
    return counted.count


def _user_roles(value: Entry) -> list[str]:
    """The roles of the messages ``_user`` makes of an entry, in order."""
    if isinstance(value.body.content, str):
        return ["user"]
    roles: list[str] = []
    pending = False
    for block in blocks(value):
        kind = block.get("type")
        if kind == "tool_result":
            if pending:
                roles.append("user")
            roles.append("tool")
            pending = False
        elif kind is not None or _content_parts([block]):
            pending = True
    if pending:
        roles.append("user")
    return roles


class Converter:
    """``convert`` one entry at a time, so a chain that grows is converted only where it grew."""

    def __init__(
        self,
        tool_names: Mapping[str, str],
        dropped: Dropped,
        compactions: list[RecordedCompaction] | None = None,
    ) -> None:
        self.tool_names = tool_names
        self.dropped = dropped
        self.compactions = compactions
        self.out: list[Message] = []
        self.origin: list[int] = []
        """For each message of ``out``, the record (counted from 0 in the order added) that
        made it: where a read of the chain from that message on would start."""
        self._added = -1
        self.low = 0
        """The first message of ``out`` added or changed since ``low`` was last reset."""
        self._open_ids: dict[str, int] = {}  # message.id → index in out, while tool results follow
        self._synthetic = 0

    def add(self, record: Record) -> None:
        value: Entry = record.value
        kind = value.type
        out = self.out
        self._added += 1
        if self.compactions is not None and is_boundary(value):
            self.compactions.append(_recorded(record, len(out)))
        elif kind == "assistant":
            fields = _assistant(record, self.dropped)
            if fields["model"] == SYNTHETIC_MODEL:
                self._synthetic += 1
            msg_id = _message_id(value)
            index = self._open_ids.get(msg_id) if msg_id else None
            if index is not None and all(m.role == "tool" for m in out[index + 1 :]):
                out[index] = _merge(out[index], fields)
                self.low = min(self.low, index)
                return
            if msg_id in self._open_ids:  # the same API response again: its usage counts once
                fields["usage"] = None
            self.low = min(self.low, len(out))
            out.append(Message.trusted_from(fields))
            self.origin.append(self._added)
            if msg_id:
                self._open_ids[msg_id] = len(out) - 1
        elif kind == "user":
            self.low = min(self.low, len(out))
            made = _user(record, self.tool_names)
            out.extend(made)
            self.origin.extend([self._added] * len(made))

    def notes(self) -> list[str]:
        """The warnings the conversion so far gives."""
        if not self._synthetic:
            return []
        return [
            f"{self._synthetic:,} CLI-generated (<synthetic>) assistant messages marked injected"
        ]


def _recorded(boundary: Record, index: int) -> RecordedCompaction:
    metadata = boundary.value.compact_metadata
    metadata = metadata if isinstance(metadata, dict) else {}
    trigger = metadata.get("trigger")
    pre = metadata.get("preTokens")
    return RecordedCompaction(
        message_index=index,
        trigger=trigger if isinstance(trigger, str) else None,
        pre_tokens=pre if isinstance(pre, int) and not isinstance(pre, bool) and pre >= 0 else None,
        source_line=boundary.line,
    )


def _message_id(value: Entry) -> str | None:
    msg_id = value.body.id
    return msg_id if isinstance(msg_id, str) else None


def _merge(first: Message, later: dict[str, Any]) -> Message:
    """Join a later line of one API response (``_assistant``'s fields) to the message of the
    first; usage is the same response's, so the last wins."""
    content = "\n".join(t for t in (first.content, later["content"]) if t)
    reasoning = "\n".join(t for t in (first.reasoning, later["reasoning"]) if t)
    fields = {
        # the first line's fields as its message was made: ``__dict__`` holds the fields
        # alone while ``Message`` caches nothing there (a cached property would be copied)
        **first.__dict__,
        "content": content,
        "reasoning": reasoning,
        "parts": first.parts + later["parts"],
        "tool_calls": first.tool_calls + later["tool_calls"],
        "usage": later["usage"] or first.usage,
        "model": later["model"] or first.model,
    }
    return Message.trusted_from(fields)


def _assistant(record: Record, dropped: Dropped) -> dict[str, Any]:
    """An assistant line's ``Message`` fields, not yet a message: a later line of the same
    response is merged into the first one's message without being a message of its own."""
    value: Entry = record.value
    message = value.body
    texts: list[str] = []
    reasoning: list[str] = []
    parts: list[ContentPart] = []
    calls: list[ToolCall] = []
    content = message.content
    if isinstance(content, str):
        texts.append(content)
    for block in blocks(value):
        kind = block.get("type")
        if kind == "text":
            text = as_text(block.get("text"))
            texts.append(text)
            parts.append(
                ContentPart.trusted_from({"kind": PartKind.TEXT, "text": text, "label": ""})
            )
        elif kind == "thinking":
            reasoning.append(as_text(block.get("thinking")))
            parts.extend(_opaque(block.get("signature"), "thinking.signature"))
        elif kind == "redacted_thinking":
            parts.extend(_opaque(block.get("data"), "redacted_thinking"))
        elif kind in ("tool_use", "server_tool_use"):
            calls.append(
                ToolCall.trusted_from(
                    {
                        "id": as_text(block.get("id")),
                        "name": as_text(block.get("name")),
                        "arguments": compact_json(block.get("input", {})),
                    }
                )
            )
    model = message.model
    synthetic = model == SYNTHETIC_MODEL
    usage = message.usage
    return {
        "role": "assistant",
        "content": "\n".join(texts),
        "parts": tuple(parts),
        "tool_calls": tuple(calls),
        "reasoning": "\n".join(reasoning),
        "created_at": parse_timestamp(value.timestamp),
        "model": model if isinstance(model, str) else None,
        "usage": (
            None if synthetic or not isinstance(usage, dict) else usage_anthropic(usage, dropped)
        ),
        "injected": synthetic,
        "is_error": value.is_api_error is True,
        "source_line": record.line,
    }


def _opaque(blob: Any, label: str) -> list[ContentPart]:
    return [opaque_part(blob, label)] if isinstance(blob, str) and blob else []


def _user(record: Record, tool_names: Mapping[str, str]) -> list[Message]:
    """One user entry → tool results (one message each) and the user's own content, in order."""
    value: Entry = record.value
    common: dict[str, Any] = {
        "created_at": parse_timestamp(value.timestamp),
        "source_line": record.line,
    }
    flags: dict[str, Any] = {
        "injected": value.is_meta is True,
        "is_summary": value.is_compact_summary is True,
    }
    content = value.body.content
    if isinstance(content, str):
        return [Message.trusted_from({"role": "user", "content": content, **common, **flags})]
    out: list[Message] = []
    pending: list[ContentPart] = []

    def flush() -> None:
        if pending:
            text = join_text(pending)
            out.append(
                Message.trusted_from(
                    {"role": "user", "content": text, "parts": tuple(pending), **common, **flags}
                )
            )
            pending.clear()

    for block in blocks(value):
        if block.get("type") == "tool_result":
            flush()
            out.append(_tool_result(block, tool_names, common))
        else:
            pending.extend(_content_parts([block]))
    flush()
    return out


def _tool_result(
    block: Mapping[str, Any], tool_names: Mapping[str, str], common: Mapping[str, Any]
) -> Message:
    call_id = as_text(block.get("tool_use_id"))
    raw = block.get("content")
    parts: tuple[ContentPart, ...] = ()
    if isinstance(raw, str):
        text = raw
    elif isinstance(raw, list):
        parts = tuple(_content_parts([b for b in raw if isinstance(b, dict)]))
        text = join_text(parts)
    else:
        text = ""
    return Message.trusted_from(
        {
            "role": "tool",
            "content": text,
            "parts": parts,
            "tool_call_id": call_id,
            "tool_name": tool_names.get(call_id) or None,
            "is_error": block.get("is_error") is True,
            **common,
        }
    )


def _content_parts(blocks: Iterable[Mapping[str, Any]]) -> list[ContentPart]:
    """Anthropic content blocks → parts (``anthropic_part``); others kept as labelled JSON."""
    parts: list[ContentPart] = []
    for block in blocks:
        kind = block.get("type")
        if (part := anthropic_part(block)) is not None:
            parts.append(part)
        elif kind == "tool_reference":
            parts.append(text_part(as_text(block.get("tool_name")), label="tool_reference"))
        elif kind is not None:
            parts.append(text_part(compact_json(block), label=as_label(kind)))
    return parts
