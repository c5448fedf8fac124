"""Anthropic Messages API requests and responses: top-level ``system``, typed blocks.

Tool results travel inside user messages here; the core wants them as separate ``tool``
messages, so each user message is split: its tool results first, then what the user wrote.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ctxtui.core.session.formats import format_info
from ctxtui.core.session.models import ContentPart, Message, Session, SessionMeta, ToolCall
from ctxtui.importers._parts import (
    anthropic_part,
    as_label,
    as_text,
    compact_json,
    join_text,
    opaque_part,
    quoted,
    tag,
    tool_definitions,
    usage_anthropic,
)
from ctxtui.importers._reader import json_kind, read_json
from ctxtui.importers._stream import Dropped, Source

FORMAT = format_info("anthropic")

_ANTHROPIC_BLOCKS = frozenset(
    {"tool_use", "tool_result", "thinking", "redacted_thinking", "server_tool_use", "document"}
)
_SERVER_RESULTS = frozenset(
    {
        "web_search_tool_result",
        "web_fetch_tool_result",
        "code_execution_tool_result",
        "bash_code_execution_tool_result",
        "text_editor_code_execution_tool_result",
        "mcp_tool_result",
    }
)


def _block_types(messages: list[Any]) -> set[str]:
    found: set[str] = set()
    for m in messages[:50]:
        content = m.get("content") if isinstance(m, Mapping) else None
        for block in content if isinstance(content, list) else ():
            if isinstance(block, Mapping) and isinstance(block.get("type"), str):
                found.add(block["type"])
    return found


def _openai_marks(messages: list[Any]) -> bool:
    return any(
        isinstance(m, Mapping)
        and (m.get("role") == "tool" or "tool_calls" in m or "tool_call_id" in m)
        for m in messages[:50]
    )


def sniff(path: Path, head: Any) -> int:
    """Top-level ``system`` or Anthropic-only blocks, and none of OpenAI's tool fields."""
    if isinstance(head, Mapping):
        messages = head.get("messages")
        if isinstance(messages, list):
            if _openai_marks(messages):
                return 0
            if _block_types(messages) & _ANTHROPIC_BLOCKS:
                return 90
            return 85 if "system" in head else 0
        if head.get("type") == "message" and head.get("role") == "assistant":
            return 80 if isinstance(head.get("content"), list) else 0
        return 0
    if isinstance(head, list) and not _openai_marks(head):
        return 75 if _block_types(head) & _ANTHROPIC_BLOCKS else 0
    return 0


# --- blocks -------------------------------------------------------------------------------


def _result_fields(content: Any) -> tuple[str, tuple[ContentPart, ...]]:
    if isinstance(content, str):
        return content, ()
    if isinstance(content, list):
        parts = tuple(p for p in (anthropic_part(b) for b in content) if p is not None)
        return join_text(parts), parts
    if content is None:
        return "", ()
    return compact_json(content), ()


def _tool_message(block: Mapping[str, Any], names: dict[str, str]) -> Message:
    call_id = as_text(block.get("tool_use_id"))
    content, parts = _result_fields(block.get("content"))
    return Message(
        role="tool",
        content=content,
        parts=parts,
        tool_call_id=call_id,
        tool_name=names.get(call_id),
        is_error=block.get("is_error") is True,
    )


def _user(raw: Mapping[str, Any], names: dict[str, str]) -> list[Message]:
    """A user message: its tool results as ``tool`` messages, then the rest as one message."""
    content = raw.get("content")
    if not isinstance(content, list):
        return [Message(role="user", content=as_text(content))]
    out: list[Message] = []
    parts: list[ContentPart] = []
    for block in content:
        if isinstance(block, Mapping) and block.get("type") == "tool_result":
            out.append(_tool_message(block, names))
        elif (part := anthropic_part(block)) is not None:
            parts.append(part)
    if parts or not out:
        out.append(Message(role="user", content=join_text(parts), parts=tuple(parts)))
    return out


def _assistant(raw: Mapping[str, Any], names: dict[str, str]) -> list[Message]:
    """An assistant message, with server-tool results and compaction split out after it."""
    content = raw.get("content")
    if not isinstance(content, list):
        return [Message(role="assistant", content=as_text(content))]
    parts: list[ContentPart] = []
    calls: list[ToolCall] = []
    reasoning: list[str] = []
    after: list[Message] = []
    for block in content:
        if not isinstance(block, Mapping):
            continue
        kind = tag(block)
        if kind in ("tool_use", "server_tool_use", "mcp_tool_use"):
            call = ToolCall(
                id=as_text(block.get("id")),
                name=as_text(block.get("name")),
                arguments=compact_json(block.get("input", {})),
                type="function" if kind == "tool_use" else as_label(kind),
            )
            names[call.id] = call.name
            calls.append(call)
        elif kind == "thinking":
            thinking = block.get("thinking")
            if isinstance(thinking, str) and thinking:
                reasoning.append(thinking)
            if block.get("signature"):
                parts.append(opaque_part(block["signature"], "thinking signature"))
        elif kind == "redacted_thinking":
            parts.append(opaque_part(block.get("data", ""), "redacted_thinking"))
        elif kind in _SERVER_RESULTS:
            after.append(_tool_message(block, names))
        elif kind == "compaction":
            summary = as_text(block.get("content"))
            after.append(Message(role="assistant", content=summary, is_summary=True))
        elif (part := anthropic_part(block)) is not None:
            parts.append(part)
    message = Message(
        role="assistant",
        content=join_text(parts),
        parts=tuple(parts),
        tool_calls=tuple(calls),
        reasoning="\n".join(reasoning),
    )
    return [message, *after]


def _system(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, list):
        parts = [p for p in (anthropic_part(b) for b in value) if p is not None]
        return join_text(parts)
    return as_text(value)


def anthropic_messages(
    raw_messages: list[Any], warnings: list[str], dropped: Dropped
) -> list[Message]:
    """Core messages from Anthropic ``messages``, tool results split out of user turns."""
    names: dict[str, str] = {}
    out: list[Message] = []
    for index, raw in enumerate(raw_messages):
        if not isinstance(raw, Mapping):
            warnings.append(f"message {index}: expected an object, found {json_kind(raw)}")
            continue
        role = raw.get("role")
        if role == "user":
            out.extend(_user(raw, names))
        elif role == "assistant":
            built = _assistant(raw, names)
            usage = raw.get("usage")
            if isinstance(usage, Mapping):
                model = raw.get("model")
                built[0] = built[0].model_copy(
                    update={
                        "usage": usage_anthropic(usage, dropped),
                        "model": model if isinstance(model, str) else None,
                    }
                )
            out.extend(built)
        else:
            warnings.append(f"message {index}: unknown role {quoted(role)} skipped")
    return out


def load(source: Source) -> Session:
    doc = read_json(source)  # an object or an array
    warnings: list[str] = []
    if isinstance(doc, list):
        doc = {"messages": doc}
    if isinstance(doc.get("messages"), list):
        raw_messages: list[Any] = doc["messages"]
    elif doc.get("type") == "message":  # a response envelope: the one assistant reply
        raw_messages = [doc]
    else:
        raise source.problem(f"expected Anthropic messages or a response, found {json_kind(doc)}")
    messages = anthropic_messages(raw_messages, warnings, source.dropped)
    model = doc.get("model")
    meta = SessionMeta(
        format=FORMAT.name,
        model=model if isinstance(model, str) else None,
        warnings=tuple(warnings),
    )
    return Session(
        messages=tuple(messages),
        system_prompt=_system(doc.get("system")),
        tools=tool_definitions(doc.get("tools")),
        meta=meta,
    )
