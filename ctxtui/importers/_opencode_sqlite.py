"""OpenCode's ``opencode.db`` (v1.2+), read without touching it: one session's messages, parts."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ctxtui.core.errors import SessionLoadError
from ctxtui.core.session.models import Session
from ctxtui.importers._opencode_messages import StoredMessage, build_session, parts_in_order
from ctxtui.importers._parts import as_text
from ctxtui.importers._reader import loads_field
from ctxtui.importers._sqlite import noted, read_database
from ctxtui.importers._stream import SQLITE_ERRORS, Dropped, sqlite_problem


def load_database(path: Path, dropped: Dropped, session_id: str | None = None) -> Session:
    """One session of the database: the named one, else the most recently updated.

    Read through ``_sqlite.read_database``: nothing beside the database is created or changed,
    and committed data still in its ``-wal`` is seen.
    """
    try:
        notes: list[str] = []
        read = read_database(path, lambda con: _read(con, path, dropped, session_id), notes)
        return noted(read, notes)
    except SQLITE_ERRORS as exc:
        raise SessionLoadError(
            str(path), f"cannot read the OpenCode database ({sqlite_problem(exc)})"
        ) from None


def message_counts(path: Path, finish: Callable[[Session], Session]) -> dict[str, int]:
    """Every session's message count as ``load_database`` then ``finish`` (the loader's
    last step, ``hoist_system_prompt``) give it, from one read of the database:
    ``sessions --count`` over a database of many sessions reads (or copies) it once."""

    def read(con: sqlite3.Connection) -> dict[str, int]:
        ids = [row[0] for row in con.execute("SELECT id FROM session")]
        return {
            sid: len(finish(_read(con, path, Dropped(), sid)).messages)
            for sid in ids
            if isinstance(sid, str)
        }

    try:
        return read_database(path, read)
    except SQLITE_ERRORS as exc:
        raise SessionLoadError(
            str(path), f"cannot read the OpenCode database ({sqlite_problem(exc)})"
        ) from None


def _read(con: sqlite3.Connection, path: Path, dropped: Dropped, session_id: str | None) -> Session:
    warnings: list[str] = []
    sessions = con.execute(
        "SELECT id, title FROM session ORDER BY time_updated DESC, id DESC"
    ).fetchall()
    if session_id is not None:
        sessions = [s for s in sessions if s[0] == session_id]
        if not sessions:
            raise SessionLoadError(str(path), f"no session {session_id!r} in the database")
    if not sessions:
        raise SessionLoadError(str(path), "expected an OpenCode session, found none")
    chosen_id, title = sessions[0]
    if len(sessions) > 1:
        warnings.append(
            f"{len(sessions):,} sessions in the database; showing the most recently updated, "
            f"{chosen_id}"
        )
    rows = con.execute(
        "SELECT m.id, m.data, p.id, p.data FROM message m "
        "LEFT JOIN part p ON p.message_id = m.id "
        "WHERE m.session_id = ? ORDER BY m.time_created, m.id, p.id",
        (chosen_id,),
    ).fetchall()
    infos: dict[str, dict[str, Any]] = {}
    parts: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    for msg_id, msg_data, part_id, part_data in rows:
        if msg_id not in infos:
            infos[msg_id] = _object(msg_data, f"message {msg_id}", warnings)
            parts[msg_id] = []
        if part_id is not None:
            parts[msg_id].append((part_id, _object(part_data, f"part {part_id}", warnings)))
    stored = [
        StoredMessage(msg_id, dict(info, id=msg_id), parts_in_order(parts[msg_id]))
        for msg_id, info in infos.items()
    ]
    title = as_text(title) or None
    return build_session(stored, warnings, dropped, source_path=str(path), title=title)


def _object(data: Any, what: str, warnings: list[str]) -> dict[str, Any]:
    """A ``data`` JSON column as an object; a broken one is reported and read as empty."""
    try:
        value = loads_field(data) if isinstance(data, (str, bytes)) else None
    except ValueError:
        value = None
    if not isinstance(value, dict):
        warnings.append(f"{what}: data is not a JSON object, read as empty")
        return {}
    return value
