"""OpenAI Chat Completions ``messages`` (and LiteLLM/OpenRouter logs, fine-tuning JSONL).

The common denominator of all formats, so the core model mirrors it closely; the work here is
the variants: string or part content, legacy ``function_call`` paired by position, reasoning
extensions, and the three containers (object, bare array, JSONL of messages or conversations).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ctxtui.core.errors import SessionLoadError
from ctxtui.core.session.formats import format_info
from ctxtui.core.session.models import (
    ROLES,
    ContentPart,
    Message,
    PartKind,
    Session,
    SessionMeta,
)
from ctxtui.importers._jsonl import Record, first_line_is_value, iter_records, iter_values
from ctxtui.importers._parts import (
    as_label,
    as_text,
    attach_usage,
    join_text,
    media_from_base64,
    media_from_url,
    normalise_usage,
    opaque_part,
    quoted,
    tag,
    text_part,
    tool_definitions,
)
from ctxtui.importers._reader import gc_paused, json_kind
from ctxtui.importers._stream import Dropped, Source

FORMAT = format_info("openai-chat")

_TOOL_SIGNS = ("tool_calls", "tool_call_id", "function_call")
_PICOCLAW_SIGNS = ("created_at", "model_name", "media")


def _is_message(item: Any) -> bool:
    return isinstance(item, Mapping) and isinstance(item.get("role"), str)


def _message_score(items: list[Any]) -> int:
    """How sure a list of items is Chat messages: tool fields make it certain."""
    messages = [m for m in items[:50] if _is_message(m)]
    if not messages:
        return 0
    for m in messages:
        if m["role"] in ("tool", "function") or any(k in m for k in _TOOL_SIGNS):
            return 80
    return 50


def sniff(path: Path, head: Any) -> int:
    """Objects with ``messages``, arrays of messages, JSONL of messages or conversations.

    Weaker than the formats that share this shape but add their own marks (PicoClaw's
    ``key``/``created`` and ``created_at``, Anthropic's ``system``), which score higher.
    """
    if isinstance(head, Mapping):
        if isinstance(head.get("messages"), list):
            score = _message_score(head["messages"]) or 30
            return 30 if "key" in head and "created" in head else score
        if _is_message(head):
            if any(k in head for k in _PICOCLAW_SIGNS):
                return 20
            return 40 if head["role"] in ROLES or head["role"] == "function" else 0
        return 0
    if isinstance(head, list) and head:
        first = head[0]
        if isinstance(first, Mapping) and isinstance(first.get("messages"), list):
            return 60
        return _message_score(head)
    return 0


# --- content ------------------------------------------------------------------------------


def _part(raw: Any) -> ContentPart | None:
    """One content part; media become sized placeholders, never base64 text."""
    if isinstance(raw, str):
        return text_part(raw)
    if not isinstance(raw, Mapping):
        return None
    kind = raw.get("type")
    if kind in ("text", "input_text", "output_text"):
        return text_part(as_text(raw.get("text")))
    if kind == "refusal":
        return text_part(as_text(raw.get("refusal")), label="refusal")
    if kind == "image_url":
        image = raw.get("image_url")
        url = image.get("url") if isinstance(image, Mapping) else image
        return media_from_url(url if isinstance(url, str) else "", label="image_url")
    if kind == "input_audio":
        audio = raw.get("input_audio")
        audio = audio if isinstance(audio, Mapping) else {}
        fmt = audio.get("format")
        media_type = f"audio/{fmt}" if isinstance(fmt, str) else None
        data = audio.get("data")
        return media_from_base64(
            data if isinstance(data, str) else "", media_type, PartKind.OTHER, "input_audio"
        )
    if kind == "file":
        file = raw.get("file")
        file = file if isinstance(file, Mapping) else {}
        label = as_label(file.get("filename") or file.get("file_id"), "file")
        data = file.get("file_data")
        if isinstance(data, str):
            return media_from_base64(data, None, PartKind.OTHER, label)
        return ContentPart(kind=PartKind.OTHER, label=label)
    if "text" in raw:
        return text_part(as_text(raw.get("text")), label=as_label(kind))
    return ContentPart(kind=PartKind.OTHER, label=as_label(kind) or "unknown")


def content_fields(content: Any) -> tuple[str, tuple[ContentPart, ...]]:
    """``(content, parts)`` of a message: plain strings keep no parts (the model's rule)."""
    if content is None:
        return "", ()
    if isinstance(content, str):
        return content, ()
    if isinstance(content, list):
        parts = tuple(p for p in (_part(item) for item in content) if p is not None)
        return join_text(parts), parts
    return as_text(content), ()


def _reasoning(raw: Mapping[str, Any]) -> tuple[str, tuple[ContentPart, ...]]:
    """Reasoning text and opaque blobs from the LiteLLM / OpenRouter / DeepSeek extensions."""
    texts: list[str] = []
    blobs: list[ContentPart] = []
    for key in ("reasoning_content", "reasoning"):
        value = raw.get(key)
        if isinstance(value, str) and value:
            texts.append(value)
            break
    blocks = raw.get("thinking_blocks")
    for block in blocks if isinstance(blocks, list) else ():
        if not isinstance(block, Mapping):
            continue
        if block.get("type") == "redacted_thinking":
            blobs.append(opaque_part(block.get("data", ""), "redacted_thinking"))
            continue
        thinking = block.get("thinking")
        if isinstance(thinking, str) and thinking and not texts:
            texts.append(thinking)
        if block.get("signature"):
            blobs.append(opaque_part(block["signature"], "thinking signature"))
    details = raw.get("reasoning_details")
    for item in details if isinstance(details, list) else ():
        if not isinstance(item, Mapping):
            continue
        if item.get("type") == "reasoning.encrypted" and item.get("data"):
            blobs.append(opaque_part(item["data"], "reasoning.encrypted"))
        elif not texts and isinstance(item.get("text") or item.get("summary"), str):
            texts.append(item.get("text") or item.get("summary") or "")
    return "\n".join(texts), tuple(blobs)


def _is_mapping(value: Any) -> bool:
    """``isinstance(value, Mapping)``, answered without the ABC machinery for a plain dict.

    Every JSON object is a plain dict, and the ABC check is slow for a test run several times
    per message.
    """
    return type(value) is dict or isinstance(value, Mapping)


def _call_fields(raw: Any, index: int, n: int) -> dict[str, str] | None:
    """A tool call's ``ToolCall`` fields, validated with its message (the same validation,
    without a Python-to-Rust call per tool call)."""
    if not _is_mapping(raw):
        return None
    call_id = raw.get("id")
    if not (call_id and isinstance(call_id, str)):
        call_id = f"call_{index}_{n}"  # built only when needed: most calls carry their id
    kind = raw.get("type")
    if kind == "custom" and _is_mapping(raw.get("custom")):
        custom = raw["custom"]
        return {
            "id": call_id,
            "name": as_text(custom.get("name")),
            "arguments": as_text(custom.get("input")),
            "type": "custom",
        }
    function = raw.get("function")
    if not _is_mapping(function):
        function = raw
    fields = {
        "id": call_id,
        "name": as_text(function.get("name")),
        "arguments": as_text(function.get("arguments")),
    }
    if kind and kind != "function":  # the default is not passed: validating it costs as much
        fields["type"] = as_label(kind, "function")
    return fields


# --- messages -----------------------------------------------------------------------------


class _Pairing:
    """Names of calls by id, and legacy ``function_call``s waiting for their result by name."""

    def __init__(self) -> None:
        self.names: dict[str, str] = {}
        self.legacy: dict[str, deque[str]] = {}

    def legacy_result_id(self, name: str, index: int, warnings: list[str]) -> str:
        waiting = self.legacy.get(name)
        if waiting:
            return waiting.popleft()
        warnings.append(f"message {index}: function result {quoted(name)} has no earlier call")
        return f"legacy_result_{index}"


@dataclass(frozen=True, slots=True)
class _Carry:
    """What reading one Chat message takes from, and leaves for, the others: the calls waiting
    for their results, the read's warnings and what it dropped."""

    pairing: _Pairing
    warnings: list[str]
    dropped: Dropped


_Body = tuple[str, tuple[ContentPart, ...]]
"""A message's content and its parts (images, reasoning blobs)."""


_REASONING_KEYS = frozenset(
    ("reasoning_content", "reasoning", "thinking_blocks", "reasoning_details")
)

_new_message = Message.__pydantic_validator__.validate_python
"""``Message`` from a dict of its fields: exactly the validation ``Message(**fields)`` runs,
minus the keyword unpacking and the ``__init__`` frame."""


def _assistant_fields(
    raw: Mapping[str, Any], index: int, carry: _Carry, fields: dict[str, Any], body: _Body
) -> _Body:
    """An assistant's tool calls (current and legacy) and reasoning into ``fields``; returns
    the content (a refusal stands in for empty content) and the parts with reasoning blobs."""
    pairing, warnings = carry.pairing, carry.warnings
    content, parts = body
    raw_calls = raw.get("tool_calls")
    calls = (
        [
            call
            for n, item in enumerate(raw_calls)
            if (call := _call_fields(item, index, n)) is not None
        ]
        if type(raw_calls) is list
        else []
    )
    if raw_calls and type(raw_calls) is not list:
        warnings.append(f"message {index}: tool_calls is not a list; ignored")
    legacy = raw.get("function_call")
    if legacy is not None and _is_mapping(legacy):
        call_id = f"legacy_call_{index}"
        name = as_text(legacy.get("name"))
        calls.append({"id": call_id, "name": name, "arguments": as_text(legacy.get("arguments"))})
        pairing.legacy.setdefault(name, deque()).append(call_id)
    if calls:
        names = pairing.names
        for call in calls:
            names[call["id"]] = call["name"]
        fields["tool_calls"] = calls
    if not _REASONING_KEYS.isdisjoint(raw.keys()):
        reasoning, blobs = _reasoning(raw)
        if reasoning:
            fields["reasoning"] = reasoning
        parts = parts + blobs
    if not content:
        refusal = raw.get("refusal")
        if isinstance(refusal, str) and refusal:
            content = refusal
    return content, parts


def chat_message(
    raw: Mapping[str, Any], index: int, carry: _Carry, source_line: int | None = None
) -> Message | None:
    """One Chat message in the core model; ``None`` (with a warning) for an unknown role.

    Only fields that differ from ``Message``'s defaults are passed: pydantic validates every
    field given, a default as dearly as a value, and a big session has 100k messages.
    """
    role = raw.get("role")
    content = raw.get("content")
    if (
        type(content) is str
        and content
        and len(raw) == 2
        and role in _PLAIN_ROLES
        and not source_line
        and type(raw) is dict
    ):
        plain: Message = _new_message(raw)  # {"role", "content"}: the fields as they are
        return plain
    parts: tuple[ContentPart, ...] = ()
    if not isinstance(content, str):
        content, parts = content_fields(content)
    pairing, warnings = carry.pairing, carry.warnings
    fields: dict[str, Any] = {}
    if role == "function":
        name = as_text(raw.get("name"))
        fields["tool_call_id"] = pairing.legacy_result_id(name, index, warnings)
        fields["tool_name"] = name or None
        role = "tool"
    elif role not in ROLES:  # a tuple, not a dict: a role may be any JSON value, even a list
        warnings.append(f"message {index}: unknown role {quoted(role)} skipped")
        return None
    fields["role"] = role
    if role == "assistant":
        content, parts = _assistant_fields(raw, index, carry, fields, (content, parts))
    elif role == "tool" and "tool_call_id" not in fields:
        _tool_result_fields(raw, pairing, fields)
    if content:
        fields["content"] = content
    if parts:
        fields["parts"] = parts
    if not _EXTRA_KEYS.isdisjoint(raw):
        _extra_fields(raw, role, fields, carry.dropped)
    if source_line:
        fields["source_line"] = source_line
    message: Message = _new_message(fields)
    return message


def _tool_result_fields(raw: Mapping[str, Any], pairing: _Pairing, fields: dict[str, Any]) -> None:
    """A tool result's id, and its tool's name from the call it answers (or its own tag)."""
    result_id = raw.get("tool_call_id")
    if isinstance(result_id, str):
        fields["tool_call_id"] = result_id
    tool_name = pairing.names.get(as_label(result_id)) or tag(raw, "name") or None
    if tool_name is not None:
        fields["tool_name"] = tool_name


_PLAIN_ROLES = ("system", "developer", "user", "assistant")
"""Roles whose ``{"role", "content": "..."}`` message holds its fields as they are (a tuple:
a role may be any JSON value, and a list is unhashable)."""

_EXTRA_KEYS = frozenset(("name", "usage", "model"))


def _extra_fields(
    raw: Mapping[str, Any], role: str, fields: dict[str, Any], dropped: Dropped
) -> None:
    """The speaker's name, the reported usage and the model, when the message has them."""
    speaker = raw.get("name")
    if speaker is not None and isinstance(speaker, str) and role != "tool":
        fields["name"] = speaker
    usage = raw.get("usage")
    if usage is not None and (normalised := normalise_usage(usage, dropped)) is not None:
        fields["usage"] = normalised
    model = raw.get("model")
    if model is not None and isinstance(model, str):
        fields["model"] = model


def chat_messages(
    items: Iterable[tuple[int | None, Any]], warnings: list[str], dropped: Dropped
) -> list[Message]:
    """Messages from ``(source_line, raw)`` pairs, legacy calls paired by position."""
    carry = _Carry(_Pairing(), warnings, dropped)
    out: list[Message] = []
    for index, (line, raw) in enumerate(items):
        if not _is_mapping(raw):
            warnings.append(f"message {index}: expected an object, found {json_kind(raw)}")
            continue
        message = chat_message(raw, index, carry, line)
        if message is not None:
            out.append(message)
    return out


# --- containers ---------------------------------------------------------------------------


def _conversation(value: Any, path: Path) -> Mapping[str, Any]:
    """The conversation object of a document: ``{"messages": ...}`` or a bare array."""
    if isinstance(value, Mapping) and isinstance(value.get("messages"), list):
        return value
    if isinstance(value, list):
        return {"messages": value}
    raise SessionLoadError(str(path), f"expected OpenAI Chat messages, found {json_kind(value)}")


def _split_records(
    records: Iterator[Record], path: Path, warnings: list[str]
) -> tuple[Mapping[str, Any], list[tuple[int | None, Any]]]:
    """The conversation to read and its messages, whatever the container."""
    first = next(records, None)
    if first is None:
        raise SessionLoadError(str(path), "expected OpenAI Chat messages, found no JSON values")
    value = first.value
    if _is_message(value):  # JSONL, one message per line
        rest = [(r.line, r.value) for r in records]
        return {}, [(first.line, value), *rest]
    if (
        isinstance(value, list)
        and value
        and all(isinstance(c, Mapping) and "messages" in c for c in value)
    ):  # an array of conversations
        if len(value) > 1:
            warnings.append(f"{len(value):,} conversations in the file; showing the first")
        value = value[0]
    conversation = _conversation(value, path)
    more = sum(1 for _ in records)
    if more:
        warnings.append(f"{more + 1:,} conversations in the file; showing the first")
    lines: list[tuple[int | None, Any]] = [(None, m) for m in conversation["messages"]]
    return conversation, lines


def _response_message(conversation: Mapping[str, Any]) -> Any:
    """A logged response's ``choices[0].message``, which follows the request's messages."""
    response = conversation.get("response")
    holder = response if isinstance(response, Mapping) else conversation
    choices = holder.get("choices")
    if isinstance(choices, list) and choices and isinstance(choices[0], Mapping):
        return choices[0].get("message")
    return None


def load(source: Source) -> Session:
    """The session of a Chat file, read with the collector paused (see ``gc_paused``)."""
    with gc_paused():
        return _load(source)


def _load(source: Source) -> Session:
    warnings: list[str] = []
    records = iter_values(source, warnings)
    conversation, items = _split_records(records, source.path, warnings)
    reply = _response_message(conversation)
    if isinstance(reply, Mapping):
        items.append((None, reply))
    messages = chat_messages(items, warnings, source.dropped)
    response = conversation.get("response")
    usage = conversation.get("usage")
    if usage is None and isinstance(response, Mapping):
        usage = response.get("usage")
    attach_usage(messages, usage, source.dropped)
    tools = tool_definitions(conversation.get("tools")) or tool_definitions(
        conversation.get("functions")
    )
    model = conversation.get("model")
    meta = SessionMeta(
        format=FORMAT.name,
        model=model if isinstance(model, str) else None,
        warnings=tuple(warnings),
    )
    return Session(messages=tuple(messages), tools=tools, meta=meta)


class Live:
    """A JSONL file of Chat messages read as it grows (``--watch``): each line's message is
    made from it and from what the earlier lines left (calls waiting for their results), so
    lines appended later are read alone. A document, or a file of conversations, is read
    whole (``follows``)."""

    def __init__(self, *, full_history: bool = False) -> None:
        self.warnings: list[str] = []
        """The reader's warnings, in file order (``iter_records`` appends to them)."""
        self._notes: list[str] = []
        self._out: list[Message] = []
        self._count = 0
        self._low = 0
        self._dropped = Dropped()
        self._carry = _Carry(_Pairing(), self._notes, self._dropped)

    @staticmethod
    def follows(source: Source) -> bool:
        """Whether ``source`` is JSONL whose first value is a message (what ``load`` then
        reads one line at a time too)."""
        if not first_line_is_value(source):
            return False
        first = next(iter_records(source, []), None)  # the stream closes with the generator
        return first is not None and _is_message(first.value)

    @property
    def dropped(self) -> int:
        return self._dropped.count

    def add(self, records: Iterable[Record]) -> None:
        for record in records:
            index, raw = self._count, record.value
            self._count += 1
            if not _is_mapping(raw):
                self._notes.append(f"message {index}: expected an object, found {json_kind(raw)}")
                continue
            message = chat_message(raw, index, self._carry, record.line)
            if message is not None:
                self._out.append(message)

    def changed_from(self) -> int:
        """The first message added since the last call (earlier ones never change)."""
        low, self._low = self._low, len(self._out)
        return low

    def session(self, source_path: str | None, end_warnings: Iterable[str] = ()) -> Session:
        """The session of the lines read so far; ``end_warnings`` follow the reader's."""
        if not self._count:
            raise SessionLoadError(
                source_path or "", "expected OpenAI Chat messages, found no JSON values"
            )
        warnings = (*self.warnings, *end_warnings, *self._notes)
        meta = SessionMeta(format=FORMAT.name, warnings=warnings)
        return Session(meta=meta).model_copy(update={"messages": tuple(self._out)})
