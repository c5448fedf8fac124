"""Claude Code session transcripts: the uuid-chained JSONL under ``~/.claude/projects``."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ctxtui.core.models import (
    ContentPart,
    Message,
    RecordedCompaction,
    Session,
    SessionMeta,
    ToolCall,
)
from ctxtui.importers import FormatInfo, format_info
from ctxtui.importers._jsonl import Record, iter_records
from ctxtui.importers._parts import (
    anthropic_part,
    as_label,
    as_text,
    compact_json,
    join_text,
    opaque_part,
    tag,
    text_part,
    usage_anthropic,
)
from ctxtui.importers._timestamps import parse_timestamp

FORMAT: FormatInfo = format_info("claude-code")

CHAINED_TYPES = frozenset({"user", "assistant", "system", "attachment", "progress"})
"""Entry types that sit in the ``parentUuid`` chain; everything else is bookkeeping."""

BOOKKEEPING_TYPES = frozenset(
    {"summary", "file-history-snapshot", "queue-operation", "last-prompt", "custom-title",
     "ai-title", "tag", "agent-name", "mode", "permission-mode", "pr-link", "worktree-state",
     "content-replacement"}
)  # fmt: skip

SYNTHETIC_MODEL = "<synthetic>"


def sniff(path: Path, head: Any) -> int:
    """Confidence that ``path`` is a Claude Code transcript, from its first record."""
    score = 0
    if ".claude" in path.parts and "projects" in path.parts and path.suffix == ".jsonl":
        score = 40
    if not isinstance(head, dict):
        return score
    kind = tag(head)
    if "uuid" in head and "sessionId" in head and kind in CHAINED_TYPES:
        return 95
    if kind == "summary" and "leafUuid" in head:
        return 90
    if kind in BOOKKEEPING_TYPES and ("messageId" in head or "snapshot" in head or score):
        return 80
    return score


def load(path: Path) -> Session:
    """Read a Claude Code transcript as the context the model sees now (after any compaction)."""
    warnings: list[str] = []
    records = list(iter_records(path, warnings))
    return build_session(records, warnings, source_path=str(path))


def load_history(path: Path) -> Session:
    """Read every message the file holds, through each ``compact_boundary`` (for replay)."""
    warnings: list[str] = []
    records = list(iter_records(path, warnings))
    return build_session(records, warnings, source_path=str(path), full_history=True)


@dataclass
class _Entries:
    """The chained entries of one file, indexed by uuid, plus what was set aside."""

    by_uuid: dict[str, Record] = field(default_factory=dict)
    sidechain: int = 0
    side_uuids: dict[str, Record] = field(default_factory=dict)  # a sub-agent's own chain
    duplicates: int = 0
    title: str | None = None
    model: str | None = None
    tool_names: dict[str, str] = field(default_factory=dict)


def _collect(records: Iterable[Record]) -> _Entries:
    entries = _Entries()
    for record in records:
        value = record.value
        if not isinstance(value, dict):
            continue
        kind = tag(value)
        if kind == "summary" and isinstance(value.get("summary"), str):
            entries.title = value["summary"]
            continue
        if kind in ("custom-title", "ai-title"):
            title = value.get("customTitle") or value.get("aiTitle") or value.get("title")
            if isinstance(title, str):
                entries.title = title
            continue
        uuid = value.get("uuid")
        if kind not in CHAINED_TYPES or not isinstance(uuid, str):
            continue
        if value.get("isSidechain") is True:
            entries.sidechain += 1
            entries.side_uuids.setdefault(uuid, record)
            continue
        if uuid in entries.by_uuid:
            entries.duplicates += 1  # a fork or resume copied the prefix; the first copy wins
            continue
        entries.by_uuid[uuid] = record
        _note_model_and_tools(entries, value)
    if not entries.by_uuid and entries.side_uuids:
        # Every chained line is a sidechain: this file is a sub-agent's own transcript
        # (``subagents/agent-*.jsonl``), its own context window, so its chain is the session.
        entries.by_uuid, entries.side_uuids, entries.sidechain = entries.side_uuids, {}, 0
        for record in entries.by_uuid.values():
            _note_model_and_tools(entries, record.value)
    return entries


def _note_model_and_tools(entries: _Entries, value: Mapping[str, Any]) -> None:
    message = value.get("message")
    model = message.get("model") if isinstance(message, dict) else None
    if isinstance(model, str) and model != SYNTHETIC_MODEL:
        entries.model = model
    for block in _blocks(value):
        if block.get("type") == "tool_use" and isinstance(block.get("id"), str):
            entries.tool_names[block["id"]] = as_text(block.get("name"))


def _blocks(value: Mapping[str, Any]) -> list[dict[str, Any]]:
    message = value.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, list):
        return [b for b in content if isinstance(b, dict)]
    return []


def _newest_leaf(entries: _Entries) -> Record | None:
    """The newest entry nobody points at: by timestamp, then by file order (not always sorted)."""
    parents = {p for r in entries.by_uuid.values() if (p := tag(r.value, "parentUuid"))}
    leaves = [r for u, r in entries.by_uuid.items() if u not in parents]
    if not leaves:
        return None
    return max(leaves, key=lambda r: (as_label(r.value.get("timestamp")), r.line))


def _walk(entries: _Entries, start: str | None, warnings: list[str], through: bool) -> list[Record]:
    """Entries from ``start`` back to a root, oldest first; ``through`` crosses compactions."""
    chain: list[Record] = []
    seen: set[str] = set()
    uuid = start
    while uuid is not None:
        if uuid in seen:
            warnings.append(f"parentUuid cycle at {uuid}: the chain was cut there")
            break
        seen.add(uuid)
        record = entries.by_uuid.get(uuid)
        if record is None:
            warnings.append(f"parentUuid {uuid} not found: the chain starts after it")
            break
        chain.append(record)
        parent = record.value.get("parentUuid")
        if parent is None and through and _is_boundary(record.value):
            parent = record.value.get("logicalParentUuid")
        uuid = parent if isinstance(parent, str) else None
    chain.reverse()
    return chain


def _is_boundary(value: Mapping[str, Any]) -> bool:
    return value.get("type") == "system" and value.get("subtype") == "compact_boundary"


def build_session(
    records: Iterable[Record],
    warnings: list[str],
    *,
    source_path: str | None = None,
    full_history: bool = False,
) -> Session:
    """Thread, merge and normalise the records of one transcript into a ``Session``.

    By default the chain stops at the newest ``compact_boundary``: the summary and what
    follows are what the model sees now. ``full_history`` continues through
    ``logicalParentUuid`` to show everything the file holds.
    """
    entries = _collect(records)
    if entries.sidechain:
        warnings.append(
            f"{entries.sidechain:,} sidechain (subagent) lines excluded from the main chain"
        )
    if entries.duplicates:
        warnings.append(f"{entries.duplicates:,} repeated uuids ignored (copied by a fork)")
    leaf = _newest_leaf(entries)
    chain = _walk(entries, leaf.value["uuid"], warnings, full_history) if leaf else []
    compactions: list[RecordedCompaction] = []
    messages = _convert(chain, entries.tool_names, warnings, compactions)
    if chain and _is_boundary(chain[0].value) and not full_history:
        warnings.append(_boundary_note(entries, chain[0], warnings))
    model = next((m.model for m in reversed(messages) if m.model and not m.injected), None)
    model = model or entries.model  # a fresh compaction may leave no assistant in view
    meta = SessionMeta(
        source_path=source_path,
        format=FORMAT.name,
        model=model,
        title=entries.title,
        warnings=tuple(warnings),
        recorded_compactions=tuple(compactions),
        full_history=full_history,
    )
    return Session(messages=tuple(messages), meta=meta)


def _boundary_note(entries: _Entries, boundary: Record, warnings: list[str]) -> str:
    """Say what the compaction hid, so the pre-boundary size is not lost from view."""
    logical = boundary.value.get("logicalParentUuid")
    hidden: list[Message] = []
    if isinstance(logical, str):
        scratch: list[str] = []
        hidden = _convert(_walk(entries, logical, scratch, True), entries.tool_names, scratch)
    metadata = boundary.value.get("compactMetadata")
    pre = metadata.get("preTokens") if isinstance(metadata, dict) else None
    note = f"compact boundary at line {boundary.line:,}: {len(hidden):,} earlier messages hidden"
    if isinstance(pre, int):
        note += f", preTokens {pre:,}"
    return note


def _convert(
    chain: list[Record],
    tool_names: Mapping[str, str],
    warnings: list[str],
    compactions: list[RecordedCompaction] | None = None,
) -> list[Message]:
    """Chained entries → messages: merge split responses, split out tool results.

    Each ``compact_boundary`` crossed is appended to ``compactions`` at the index of the
    message that follows it (the summary).
    """
    out: list[Message] = []
    open_ids: dict[str, int] = {}  # message.id → index in out, while only tool results follow
    synthetic = 0
    for record in chain:
        value = record.value
        kind = value.get("type")
        if compactions is not None and _is_boundary(value):
            compactions.append(_recorded(record, len(out)))
        elif kind == "assistant":
            message = _assistant(record)
            if message.model == SYNTHETIC_MODEL:
                synthetic += 1
            msg_id = _message_id(value)
            index = open_ids.get(msg_id) if msg_id else None
            if index is not None and all(m.role == "tool" for m in out[index + 1 :]):
                out[index] = _merge(out[index], message)
                continue
            out.append(message)
            if msg_id:
                open_ids[msg_id] = len(out) - 1
        elif kind == "user":
            out.extend(_user(record, tool_names))
    if synthetic:
        warnings.append(
            f"{synthetic:,} CLI-generated (<synthetic>) assistant messages marked injected"
        )
    return out


def _recorded(boundary: Record, index: int) -> RecordedCompaction:
    metadata = boundary.value.get("compactMetadata")
    metadata = metadata if isinstance(metadata, dict) else {}
    trigger = metadata.get("trigger")
    pre = metadata.get("preTokens")
    return RecordedCompaction(
        message_index=index,
        trigger=trigger if isinstance(trigger, str) else None,
        pre_tokens=pre if isinstance(pre, int) and not isinstance(pre, bool) and pre >= 0 else None,
        source_line=boundary.line,
    )


def _message_id(value: Mapping[str, Any]) -> str | None:
    message = value.get("message")
    msg_id = message.get("id") if isinstance(message, dict) else None
    return msg_id if isinstance(msg_id, str) else None


def _merge(first: Message, later: Message) -> Message:
    """Join two lines of one API response; usage is the same response's, so the last wins."""
    content = "\n".join(t for t in (first.content, later.content) if t)
    reasoning = "\n".join(t for t in (first.reasoning, later.reasoning) if t)
    return first.model_copy(
        update={
            "content": content,
            "reasoning": reasoning,
            "parts": first.parts + later.parts,
            "tool_calls": first.tool_calls + later.tool_calls,
            "usage": later.usage or first.usage,
            "model": later.model or first.model,
        }
    )


def _assistant(record: Record) -> Message:
    value = record.value
    message = value.get("message") if isinstance(value.get("message"), dict) else {}
    texts: list[str] = []
    reasoning: list[str] = []
    parts: list[ContentPart] = []
    calls: list[ToolCall] = []
    content = message.get("content")
    if isinstance(content, str):
        texts.append(content)
    for block in _blocks(value):
        kind = block.get("type")
        if kind == "text":
            text = as_text(block.get("text"))
            texts.append(text)
            parts.append(text_part(text))
        elif kind == "thinking":
            reasoning.append(as_text(block.get("thinking")))
            parts.extend(_opaque(block.get("signature"), "thinking.signature"))
        elif kind == "redacted_thinking":
            parts.extend(_opaque(block.get("data"), "redacted_thinking"))
        elif kind in ("tool_use", "server_tool_use"):
            calls.append(
                ToolCall(
                    id=as_text(block.get("id")),
                    name=as_text(block.get("name")),
                    arguments=compact_json(block.get("input", {})),
                )
            )
    model = message.get("model")
    synthetic = model == SYNTHETIC_MODEL
    usage = message.get("usage")
    return Message(
        role="assistant",
        content="\n".join(texts),
        parts=tuple(parts),
        tool_calls=tuple(calls),
        reasoning="\n".join(reasoning),
        created_at=parse_timestamp(value.get("timestamp")),
        model=model if isinstance(model, str) else None,
        usage=None if synthetic or not isinstance(usage, dict) else usage_anthropic(usage),
        injected=synthetic,
        is_error=value.get("isApiErrorMessage") is True,
        source_line=record.line,
    )


def _opaque(blob: Any, label: str) -> list[ContentPart]:
    return [opaque_part(blob, label)] if isinstance(blob, str) and blob else []


def _user(record: Record, tool_names: Mapping[str, str]) -> list[Message]:
    """One user entry → tool results (one message each) and the user's own content, in order."""
    value = record.value
    message = value.get("message") if isinstance(value.get("message"), dict) else {}
    common: dict[str, Any] = {
        "created_at": parse_timestamp(value.get("timestamp")),
        "source_line": record.line,
    }
    flags: dict[str, Any] = {
        "injected": value.get("isMeta") is True,
        "is_summary": value.get("isCompactSummary") is True,
    }
    content = message.get("content")
    if isinstance(content, str):
        return [Message(role="user", content=content, **common, **flags)]
    out: list[Message] = []
    pending: list[ContentPart] = []

    def flush() -> None:
        if pending:
            text = join_text(pending)
            out.append(Message(role="user", content=text, parts=tuple(pending), **common, **flags))
            pending.clear()

    for block in _blocks(value):
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
    return Message(
        role="tool",
        content=text,
        parts=parts,
        tool_call_id=call_id,
        tool_name=tool_names.get(call_id) or None,
        is_error=block.get("is_error") is True,
        **common,
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
