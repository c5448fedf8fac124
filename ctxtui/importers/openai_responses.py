"""OpenAI Responses API input items: ``instructions`` plus typed items joined on ``call_id``.

The API lists each output of a response as its own item (reasoning, message, function_call);
the core wants one assistant message per reply, so consecutive assistant-side items are merged
until a user message or a tool output ends the reply.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ctxtui.core.errors import SessionLoadError
from ctxtui.core.session.formats import format_info
from ctxtui.core.session.models import (
    ContentPart,
    Message,
    PartKind,
    Session,
    SessionMeta,
    ToolCall,
)
from ctxtui.importers._parts import (
    as_label,
    as_text,
    attach_usage,
    compact_json,
    join_text,
    media_from_base64,
    opaque_part,
    quoted,
    responses_part,
    tag,
    text_part,
    tool_definitions,
)
from ctxtui.importers._reader import json_kind, read_json
from ctxtui.importers._stream import Source

FORMAT = format_info("openai-responses")

ITEM_TYPES = frozenset(
    {
        "message",
        "function_call",
        "function_call_output",
        "custom_tool_call",
        "custom_tool_call_output",
        "reasoning",
        "compaction",
        "item_reference",
        "web_search_call",
        "file_search_call",
        "computer_call",
        "computer_call_output",
        "code_interpreter_call",
        "image_generation_call",
        "local_shell_call",
        "local_shell_call_output",
        "mcp_call",
        "mcp_list_tools",
        "mcp_approval_request",
        "mcp_approval_response",
    }
)
_PART_TYPES = frozenset({"input_text", "output_text", "input_image", "input_file"})
_OUTPUTS = frozenset(
    {"function_call_output", "custom_tool_call_output", "computer_call_output",
     "local_shell_call_output", "mcp_approval_response"}
)  # fmt: skip


def _typed(items: list[Any]) -> bool:
    """True when the list holds Responses items (typed, or messages with Responses parts)."""
    for item in items[:50]:
        if not isinstance(item, Mapping):
            continue
        if tag(item) in ITEM_TYPES and item.get("type") != "message":
            return True
        content = item.get("content")
        for part in content if isinstance(content, list) else ():
            if isinstance(part, Mapping) and tag(part) in _PART_TYPES:
                return True
    return False


def sniff(path: Path, head: Any) -> int:
    """An object with ``input`` (items or a string) or a bare list of typed items."""
    if isinstance(head, Mapping):
        items = head.get("input")
        if isinstance(items, list):
            return 90 if _typed(items) or "instructions" in head else 40
        if isinstance(items, str) and ("instructions" in head or "model" in head):
            return 70
        if isinstance(head.get("output"), list) and _typed(head["output"]):
            return 80
        return 0
    if isinstance(head, list):
        return 80 if _typed(head) else 0
    return 0


# --- parts --------------------------------------------------------------------------------


def _part(raw: Any) -> ContentPart | None:
    """A content part; a type this importer does not know is kept as an empty labelled part."""
    if isinstance(raw, str):
        return text_part(raw)
    if not isinstance(raw, Mapping):
        return None
    part = responses_part(raw)
    if part is None:
        return ContentPart(kind=PartKind.OTHER, label=as_label(raw.get("type")) or "unknown")
    return part


def _texts(value: Any) -> list[str]:
    """The non-empty texts of a part list (or of a bare string), as reasoning keeps them."""
    if isinstance(value, str):
        return [value] if value else []
    parts = (_part(v) for v in value) if isinstance(value, list) else ()
    return [p.text for p in parts if p is not None and p.text]


def _content(value: Any) -> tuple[str, tuple[ContentPart, ...]]:
    if isinstance(value, str):
        return value, ()
    if isinstance(value, list):
        parts = tuple(p for p in (_part(v) for v in value) if p is not None)
        return join_text(parts), parts
    if value is None:
        return "", ()
    return compact_json(value), ()


# --- the replay ---------------------------------------------------------------------------


@dataclass
class _Reply:
    """The assistant message being assembled from consecutive output items."""

    parts: list[ContentPart] = field(default_factory=list)
    calls: list[ToolCall] = field(default_factory=list)
    reasoning: list[str] = field(default_factory=list)

    def empty(self) -> bool:
        return not (self.parts or self.calls or self.reasoning)

    def message(self) -> Message:
        return Message(
            role="assistant",
            content=join_text(self.parts),
            parts=tuple(self.parts),
            tool_calls=tuple(self.calls),
            reasoning="\n".join(self.reasoning),
        )


@dataclass
class _Replay:
    """Walks the items in order, keeping call names so results can show their tool."""

    warnings: list[str]
    messages: list[Message] = field(default_factory=list)
    reply: _Reply = field(default_factory=_Reply)
    names: dict[str, str] = field(default_factory=dict)

    def flush(self) -> None:
        if not self.reply.empty():
            self.messages.append(self.reply.message())
        self.reply = _Reply()

    def call(self, call_id: str, name: str, arguments: str, kind: str) -> None:
        self.names[call_id] = name
        self.reply.calls.append(ToolCall(id=call_id, name=name, arguments=arguments, type=kind))

    def result(self, call_id: str, output: Any, parts: tuple[ContentPart, ...] = ()) -> None:
        self.flush()
        content, out_parts = _content(output)
        self.messages.append(
            Message(
                role="tool",
                content=content,
                parts=out_parts + parts,
                tool_call_id=call_id,
                tool_name=self.names.get(call_id),
            )
        )

    def item(self, index: int, raw: Any) -> None:
        if not isinstance(raw, Mapping):
            self.warnings.append(f"item {index}: expected an object, found {json_kind(raw)}")
            return
        kind = tag(raw) if "type" in raw else "message"
        if kind == "message":
            self._message(index, raw)
        elif kind == "reasoning":
            self.reply.reasoning += _texts(raw.get("summary")) + _texts(raw.get("content"))
            if raw.get("encrypted_content"):
                self.reply.parts.append(
                    opaque_part(raw["encrypted_content"], "reasoning.encrypted_content")
                )
        elif kind == "function_call":
            call_id = as_text(raw.get("call_id") or raw.get("id"))
            self.call(call_id, as_text(raw.get("name")), as_text(raw.get("arguments")), "function")
        elif kind == "custom_tool_call":
            call_id = as_text(raw.get("call_id") or raw.get("id"))
            self.call(call_id, as_text(raw.get("name")), as_text(raw.get("input")), "custom")
        elif kind in _OUTPUTS:
            call_id = as_text(raw.get("call_id") or raw.get("approval_request_id") or raw.get("id"))
            self.result(call_id, raw.get("output", raw.get("approve")))
        elif kind == "compaction":
            self.flush()
            blob = opaque_part(raw.get("encrypted_content", ""), "compaction")
            self.messages.append(Message(role="assistant", parts=(blob,), is_summary=True))
        elif kind == "item_reference":
            self.warnings.append(
                f"item {index}: reference to stored item {quoted(raw.get('id'))} "
                "has no local content"
            )
        elif kind in ITEM_TYPES:
            self._builtin(as_label(kind), raw)
        else:
            found = quoted(raw.get("type"))
            self.warnings.append(f"item {index}: unknown item type {found} skipped")

    def _message(self, index: int, raw: Mapping[str, Any]) -> None:
        role = raw.get("role")
        content, parts = _content(raw.get("content"))
        if role == "assistant":
            self.reply.parts.extend(parts or ((text_part(content),) if content else ()))
            return
        if role not in ("user", "system", "developer"):
            self.warnings.append(f"item {index}: unknown role {quoted(role)} skipped")
            return
        self.flush()
        self.messages.append(Message(role=role, content=content, parts=parts))

    def _builtin(self, kind: str, raw: Mapping[str, Any]) -> None:
        """Built-in tools: a call on the reply, plus a result when the item carries one."""
        call_id = as_text(raw.get("call_id") or raw.get("id")) or f"{kind}_{len(self.names)}"
        name = as_text(raw.get("name")) or kind
        args = raw.get("arguments", raw.get("action", raw.get("query", raw.get("code"))))
        self.call(call_id, name, as_text(args), kind)
        if kind == "image_generation_call" and isinstance(raw.get("result"), str):
            image = media_from_base64(raw["result"], "image/png", PartKind.IMAGE, kind)
            self.result(call_id, None, (image,))
        elif kind in ("mcp_call", "code_interpreter_call") and raw.get("output") is not None:
            self.result(call_id, raw.get("output") or raw.get("outputs"))
        elif kind == "mcp_list_tools" and raw.get("tools") is not None:
            self.result(call_id, raw.get("tools"))


def _instructions(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, list):  # a returned response may echo instructions as items
        texts = [_content(v.get("content"))[0] for v in value if isinstance(v, Mapping)]
        return "\n".join(t for t in texts if t)
    return as_text(value)


def load(source: Source) -> Session:
    path = source.path
    doc = read_json(source)
    warnings: list[str] = []
    if isinstance(doc, list):
        doc = {"input": doc}
    items = doc.get("input") if isinstance(doc, Mapping) else None
    if isinstance(items, str):
        items = [{"role": "user", "content": items}]
    output = doc.get("output") if isinstance(doc, Mapping) else None
    if items is None and isinstance(output, list):
        items = []
    if not isinstance(items, list):
        raise SessionLoadError(str(path), f"expected Responses input items, found {json_kind(doc)}")
    if doc.get("previous_response_id") or doc.get("conversation"):
        warnings.append(
            "previous_response_id/conversation set: the file holds only the newest items, "
            "not the whole context"
        )
    replay = _Replay(warnings)
    for index, raw in enumerate([*items, *(output if isinstance(output, list) else ())]):
        replay.item(index, raw)
    replay.flush()
    messages = replay.messages
    attach_usage(messages, doc.get("usage"), source.dropped)
    model = doc.get("model")
    return Session(
        messages=tuple(messages),
        system_prompt=_instructions(doc.get("instructions")),
        tools=tool_definitions(doc.get("tools")),
        meta=SessionMeta(
            format=FORMAT.name,
            model=model if isinstance(model, str) else None,
            warnings=tuple(warnings),
        ),
    )
