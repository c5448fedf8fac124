"""OpenCode sessions: the JSON file storage (<= 1.1) and ``opencode.db`` (>= 1.2)."""

from __future__ import annotations

import functools
import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from ctxtui.core.errors import SessionLoadError
from ctxtui.core.session.formats import FormatInfo, format_info
from ctxtui.core.session.models import Session
from ctxtui.importers._opencode_messages import StoredMessage, build_session, created_ms
from ctxtui.importers._parts import as_text
from ctxtui.importers._reader import SQLITE_MAGIC, read_json_file
from ctxtui.importers._store_files import (
    FoundSession,
    StoreWalk,
    describe_error,
    guard,
    read_small_json,
    stat_entry,
    text,
    when,
)
from ctxtui.importers._stream import Dropped, Source, open_file

FORMAT: FormatInfo = format_info("opencode")


def sniff(path: Path, head: Any) -> int:
    """Confidence that ``path`` is OpenCode storage: a message/part/session JSON file."""
    if not isinstance(head, dict) or not as_text(head.get("id")).startswith(("msg_", "ses_")):
        return 0
    return 80 if "sessionID" in head or "projectID" in head else 0


def load(source: Source) -> Session:
    """Read one OpenCode session from a storage directory, a session file or the database."""
    if source.magic(16) == SQLITE_MAGIC:
        from ctxtui.importers._opencode_sqlite import load_database

        return load_database(source.path, source.dropped)
    return load_storage(source.path, source.dropped)


# --- JSON file storage --------------------------------------------------------------


def _storage_root(path: Path) -> tuple[Path, str | None]:
    """The ``storage/`` root and, when the path names one, the session id."""
    if path.is_file():
        if path.parent.parent.name == "session":
            return path.parent.parent.parent, path.stem  # session/<proj>/<ses>.json
        if path.parent.parent.name == "message":
            return path.parent.parent.parent, path.parent.name  # message/<ses>/<msg>.json
    elif path.is_dir():
        if path.parent.name == "message" and path.name.startswith("ses_"):
            return path.parent.parent, path.name
        if (path / "storage" / "message").is_dir():
            return path / "storage", None
        if (path / "message").is_dir():
            return path, None
    raise SessionLoadError(
        str(path),
        "expected an OpenCode storage directory, session file or message directory",
    )


def protected_paths(path: Path) -> set[Path]:
    """What a load of ``path`` may read: a storage path protects its whole ``storage/`` tree
    (messages, parts and session infos are all read through it). A database is a single file
    (its SQLite side files are protected for every format)."""
    if path.is_file() and _is_database(path):
        return {path}
    try:
        root, _ = _storage_root(path)
    except SessionLoadError:
        return {path}
    return {path, root} if (root / "message").is_dir() else {path}


def _is_database(path: Path) -> bool:
    try:
        with open_file(path) as source:
            return source.magic(16) == SQLITE_MAGIC
    except SessionLoadError:
        return False


def _json_files(directory: Path) -> list[Path]:
    """The JSON files of a directory, by name (ids sort by time); temp files skipped."""
    if not directory.is_dir():
        return []
    return sorted(
        p
        for p in directory.iterdir()
        if p.suffix == ".json" and not p.name.startswith(".") and p.is_file()
    )


def _read_object(path: Path, warnings: list[str]) -> dict[str, Any] | None:
    try:
        value = read_json_file(path)
    except SessionLoadError as exc:
        warnings.append(f"{path.name} skipped: {exc.problem}")
        return None
    return value if isinstance(value, dict) else None


def load_storage(path: Path, dropped: Dropped) -> Session:
    """A session from the JSON storage; the most recently updated one when not named."""
    root, session_id = _storage_root(path)
    warnings: list[str] = []
    session_info: dict[str, Any] | None = None
    if session_id is None:
        session_id, session_info = _latest_session(root, warnings)
    else:
        for candidate in (root / "session").glob(f"*/{session_id}.json"):
            session_info = _read_object(candidate, warnings)
    messages: list[StoredMessage] = []
    for file in _json_files(root / "message" / session_id):
        info = _read_object(file, warnings)
        if info is None:
            continue
        parts = [
            p for f in _json_files(root / "part" / file.stem) if (p := _read_object(f, warnings))
        ]
        messages.append(
            StoredMessage(file.stem, info, sorted(parts, key=lambda part: as_text(part.get("id"))))
        )
    messages.sort(key=lambda m: (created_ms(m.info), m.id))
    title = as_text(session_info.get("title")) if session_info else ""
    return build_session(messages, warnings, dropped, source_path=str(path), title=title or None)


def _latest_session(root: Path, warnings: list[str]) -> tuple[str, dict[str, Any] | None]:
    """Pick the session updated last (by its info file, else by its newest message id)."""
    candidates = [p.name for p in (root / "message").glob("ses_*") if p.is_dir()]
    if not candidates:
        raise SessionLoadError(str(root), "expected OpenCode sessions, found none")
    infos: dict[str, dict[str, Any]] = {}
    for file in (root / "session").glob("*/ses_*.json"):
        if file.stem in candidates and (info := _read_object(file, warnings)) is not None:
            infos[file.stem] = info

    def updated(ses: str) -> tuple[int, str]:
        time = infos.get(ses, {}).get("time")
        stamp = time.get("updated") if isinstance(time, dict) else None
        return (stamp if isinstance(stamp, int) else 0, ses)

    chosen = max(candidates, key=updated)
    if len(candidates) > 1:
        warnings.append(
            f"{len(candidates):,} sessions in the storage; showing the most recently updated, "
            f"{chosen}"
        )
    return chosen, infos.get(chosen)


def load_one(source: Source, session_id: str, *, full_history: bool = False) -> Session:
    """One session of an OpenCode database (``opencode.db#ses_X``); it keeps no compacted
    history apart, so ``full_history`` changes nothing."""
    from ctxtui.importers._opencode_sqlite import load_database

    return load_database(source.path, source.dropped, session_id)


SQLITE_TABLES = frozenset({"part", "message", "session"})
"""The tables of OpenCode's database (>= 1.2), by which detection knows it."""


def path_hint(path: Path) -> bool:
    """``opencode*.db``, or a message of its JSON storage (``storage/message/*/msg_*.json``)."""
    name, parts = path.name, path.parts
    if name.startswith("opencode") and name.endswith(".db"):
        return True
    return (
        name.startswith("msg_")
        and name.endswith(".json")
        and len(parts) >= 4
        and parts[-3] == "message"
        and parts[-4] == "storage"
    )


def is_session_dir(path: Path) -> bool:
    """OpenCode's JSON storage: the root, or one session's ``message/ses_*`` directory, as
    ``ctxtui sessions`` lists it."""
    if (path / "message").is_dir() and (path / "part").is_dir():
        return True
    if path.parent.name == "message" and path.name.startswith("ses_"):
        return True
    return (path / "storage" / "message").is_dir()


# --- the store: $XDG_DATA_HOME/opencode: opencode*.db, storage/ (docs/formats.md) ----------


def database_sessions(db: Path) -> Iterator[FoundSession]:
    """Every session of an OpenCode database, newest first (an entry with the error when the
    database cannot be read)."""
    from ctxtui.importers._sqlite import read_database

    base = stat_entry(FORMAT.name, db)
    if base.error is not None:
        yield base
        return
    try:
        # A live database keeps recent sessions in its -wal; read_database sees them without
        # creating or touching anything beside the file. One pass over the sessions: no
        # per-session subquery (without an index on message.session_id that is quadratic).
        rows = read_database(
            db,
            lambda con: con.execute(
                "SELECT id, directory, title, time_created FROM session ORDER BY time_updated DESC"
            ).fetchall(),
        )
    except (sqlite3.Error, SessionLoadError, UnicodeDecodeError, ValueError) as err:
        yield replace(base, error=f"not a readable OpenCode database ({describe_error(err)})")
        return
    for sid, directory, title, created in rows:
        yield replace(
            base,
            session_id=text(sid),
            project=text(directory),
            title=text(title),
            started=when(created),
        )


def _storage_fill(walk: StoreWalk, found: FoundSession) -> FoundSession:
    info_files = [
        info
        for sub in walk.dirs(found.path.parents[1] / "session")
        for info in walk.files(sub, f"{found.path.name}.json")
    ]
    if not info_files:
        return found
    info = read_small_json(info_files[0])
    if not isinstance(info, dict):
        return found
    time = info.get("time")
    return replace(
        found,
        project=text(info.get("directory")),
        title=text(info.get("title")),
        started=when(time.get("created")) if isinstance(time, dict) else None,
    )


def list_store(walk: StoreWalk, root: Path) -> Iterator[FoundSession]:
    """The sessions of the databases, then those of the JSON storage."""
    for db in walk.files(root, "opencode*.db"):
        yield from database_sessions(db)
    for ses in walk.dirs(root / "storage" / "message", "ses_*"):
        yield guard(stat_entry(FORMAT.name, ses), lambda f: _storage_fill(walk, f))


def database_counts(path: Path, finish: Callable[[Session], Session]) -> dict[str, int]:
    """The messages of each session of a database after ``finish`` (what a load does to a
    session), by session id, read once per version of the file (its stat fields are the
    key: a database written since is read again); ``ctxtui sessions --count`` reads it."""
    st = path.stat()
    return _database_counts(path, finish, st.st_ino, st.st_size, st.st_mtime_ns)


@functools.lru_cache(maxsize=4)
def _database_counts(
    path: Path, finish: Callable[[Session], Session], inode: int, size: int, mtime_ns: int
) -> dict[str, int]:
    from ctxtui.importers._opencode_sqlite import message_counts

    return message_counts(path, finish)
