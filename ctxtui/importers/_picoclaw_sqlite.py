"""PicoClaw's seahorse SQLite store, read without touching it: the active context in item order."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from ctxtui.core.errors import SessionLoadError
from ctxtui.core.session.models import ContentPart, Message, Session, SessionMeta, ToolCall
from ctxtui.core.wording import plural
from ctxtui.importers._parts import as_int, as_text, quoted, text_part
from ctxtui.importers._picoclaw_items import ROLES, media_part
from ctxtui.importers._sqlite import noted, read_database
from ctxtui.importers._stream import SQLITE_ERRORS, Dropped, sqlite_problem
from ctxtui.importers._timestamps import parse_timestamp

FORMAT_NAME = "picoclaw"
"""The name in ``SessionMeta.format``; the package's table is not imported, so the package
can import this module without a cycle."""


def load_seahorse(path: Path, dropped: Dropped) -> Session:
    """The conversation most recently updated, as the model sees it (summaries included).

    Read through ``_sqlite.read_database``: nothing beside the database is created or changed,
    and committed data still in its ``-wal`` is seen.
    """

    def read(con: sqlite3.Connection) -> Session:
        con.row_factory = sqlite3.Row
        return _read(con, path, dropped)

    try:
        notes: list[str] = []
        return noted(read_database(path, read, notes), notes)
    except SQLITE_ERRORS as exc:
        raise SessionLoadError(
            str(path), f"cannot read the seahorse database ({sqlite_problem(exc)})"
        ) from None


def _read(con: sqlite3.Connection, path: Path, dropped: Dropped) -> Session:
    warnings: list[str] = []
    conversations = con.execute(
        "SELECT conversation_id, session_key FROM conversations "
        "ORDER BY updated_at DESC, conversation_id DESC"
    ).fetchall()
    if not conversations:
        raise SessionLoadError(str(path), "expected a seahorse conversation, found none")
    chosen = conversations[0]
    if len(conversations) > 1:
        warnings.append(
            f"{len(conversations):,} conversations in the database; showing the most recently "
            f"updated, {chosen['session_key']}"
        )
    items = con.execute(
        "SELECT ordinal, item_type, message_id, summary_id, token_count FROM context_items "
        "WHERE conversation_id = ? ORDER BY ordinal",
        (chosen["conversation_id"],),
    ).fetchall()
    messages: list[Message] = []
    estimates: list[int] = []
    tool_names: dict[str, str] = {}
    for item in items:
        if item["item_type"] == "summary":
            message, estimate = _summary(con, item["summary_id"], dropped)
        else:
            message, estimate = _message(con, item["message_id"], tool_names, warnings, dropped)
        if message is None:
            warnings.append(f"context item {item['ordinal']}: its {item['item_type']} is missing")
            continue
        estimates.append(as_int(item["token_count"], dropped) or estimate)
        messages.extend(message)
    if estimates:
        listed = ", ".join(f"{n:,}" for n in estimates[:12]) + (
            ", …" if len(estimates) > 12 else ""
        )
        warnings.append(
            f"seahorse token_count (PicoClaw's local estimate, not API usage): "
            f"{sum(estimates):,} tokens over {plural(len(estimates), 'context item')} ({listed})"
        )
    model = next((m.model for m in reversed(messages) if m.model), None)
    meta = SessionMeta(
        source_path=str(path),
        format=FORMAT_NAME,
        model=model,
        title=as_text(chosen["session_key"]) or None,
        warnings=tuple(warnings),
    )
    return Session(messages=tuple(messages), meta=meta)


def _summary(
    con: sqlite3.Connection, summary_id: str | None, dropped: Dropped
) -> tuple[list[Message] | None, int]:
    row = con.execute(
        "SELECT content, token_count, created_at FROM summaries WHERE summary_id = ?",
        (summary_id,),
    ).fetchone()
    if row is None:
        return None, 0
    message = Message(
        role="system",
        content=as_text(row["content"]),
        is_summary=True,
        created_at=parse_timestamp(row["created_at"]),
        name=summary_id,
    )
    return [message], as_int(row["token_count"], dropped) or 0


def _from_parts(
    row: sqlite3.Row, role: str, parts: list[sqlite3.Row], tool_names: dict[str, str]
) -> list[Message]:
    """The messages one row and its parts make: one ``tool`` message per ``tool_result``
    part, else the message itself with its text, media and ``tool_use`` calls."""
    common: dict[str, Any] = {
        "created_at": parse_timestamp(row["created_at"]),
        "model": row["model_name"] or None,
    }
    texts = [as_text(p["text"]) for p in parts if p["type"] == "text"]
    media: list[ContentPart] = [
        media_part(as_text(p["media_uri"]), p["mime_type"] or None)
        for p in parts
        if p["type"] == "media"
    ]
    calls = [
        ToolCall(
            id=as_text(p["tool_call_id"]),
            name=as_text(p["name"]),
            arguments=as_text(p["arguments"]),
        )
        for p in parts
        if p["type"] == "tool_use"
    ]
    results = [p for p in parts if p["type"] == "tool_result"]
    for call in calls:
        tool_names[call.id] = call.name
    if results:
        return [
            Message(
                role="tool",
                content=as_text(p["text"]),
                tool_call_id=as_text(p["tool_call_id"]),
                tool_name=tool_names.get(as_text(p["tool_call_id"])),
                **common,
            )
            for p in results
        ]
    # messages.content is a derived rendering when parts exist; without parts it is the text.
    content = "\n".join(texts) if parts else as_text(row["content"])
    lead = (text_part(content),) if content and media else ()
    message = Message(
        role=role,
        content=content,
        parts=lead + tuple(media),
        tool_calls=tuple(calls),
        reasoning=as_text(row["reasoning_content"]),
        **common,
    )
    return [message]


def _message(
    con: sqlite3.Connection,
    message_id: int | None,
    tool_names: dict[str, str],
    warnings: list[str],
    dropped: Dropped,
) -> tuple[list[Message] | None, int]:
    """A message with parts: calls from ``tool_use``, outputs from ``tool_result`` text.

    A message whose role is not one PicoClaw writes is skipped with a warning (no messages).
    """
    row = con.execute(
        "SELECT role, content, model_name, reasoning_content, token_count, created_at "
        "FROM messages WHERE message_id = ?",
        (message_id,),
    ).fetchone()
    if row is None:
        return None, 0
    estimate = as_int(row["token_count"], dropped) or 0
    role = as_text(row["role"])
    if role not in ROLES:
        warnings.append(f"message {message_id}: unknown role {quoted(role)} skipped")
        return [], estimate
    parts = con.execute(
        "SELECT type, text, name, arguments, tool_call_id, media_uri, mime_type "
        "FROM message_parts WHERE message_id = ? ORDER BY ordinal, part_id",
        (message_id,),
    ).fetchall()
    return _from_parts(row, role, parts, tool_names), estimate
