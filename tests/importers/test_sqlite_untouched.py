"""Reading a SQLite source changes nothing beside it, and still sees what its ``-wal`` holds.

Issue 9 item 5: a ``mode=ro`` connection to a WAL database created ``-wal``/``-shm`` beside it
and rewrote an existing ``-shm``. Each case hashes the whole directory (content and mtime)
before and after a full ``load_session`` (detection included).
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from ctxtui.core.errors import SessionLoadError
from ctxtui.importers import _sqlite, load_session

OPENCODE_SCHEMA = """
CREATE TABLE session(id TEXT PRIMARY KEY, title TEXT, time_updated INTEGER);
CREATE TABLE message(id TEXT PRIMARY KEY, session_id TEXT, time_created INTEGER, data TEXT);
CREATE TABLE part(id TEXT PRIMARY KEY, message_id TEXT, data TEXT);
INSERT INTO session VALUES ('ses_1', 'demo', 1);
"""

SEAHORSE_SCHEMA = """
CREATE TABLE conversations(conversation_id INTEGER PRIMARY KEY, session_key TEXT,
    created_at TEXT, updated_at TEXT);
CREATE TABLE messages(message_id INTEGER PRIMARY KEY, conversation_id INTEGER, role TEXT,
    content TEXT, model_name TEXT, reasoning_content TEXT, token_count INTEGER, created_at TEXT);
CREATE TABLE message_parts(part_id INTEGER PRIMARY KEY, message_id INTEGER, type TEXT,
    text TEXT, name TEXT, arguments TEXT, tool_call_id TEXT, media_uri TEXT, mime_type TEXT,
    ordinal INTEGER);
CREATE TABLE summaries(summary_id TEXT PRIMARY KEY, conversation_id INTEGER, kind TEXT,
    depth INTEGER, content TEXT, token_count INTEGER, created_at TEXT);
CREATE TABLE context_items(conversation_id INTEGER, ordinal INTEGER, item_type TEXT,
    summary_id TEXT, message_id INTEGER, token_count INTEGER, created_at TEXT);
INSERT INTO conversations VALUES (1, 'demo', '2026-01-01 00:00:00', '2026-01-01 00:00:00');
"""


def _opencode_message(con: sqlite3.Connection, k: int, text: str) -> None:
    con.execute(
        "INSERT INTO message VALUES (?, 'ses_1', ?, ?)", (f"msg_{k}", k, '{"role": "user"}')
    )
    part = json.dumps({"type": "text", "text": text})
    con.execute("INSERT INTO part VALUES (?, ?, ?)", (f"prt_{k}", f"msg_{k}", part))


def _seahorse_message(con: sqlite3.Connection, k: int, text: str) -> None:
    con.execute("INSERT INTO messages VALUES (?, 1, 'user', ?, '', '', 1, NULL)", (k, text))
    con.execute("INSERT INTO context_items VALUES (1, ?, 'message', NULL, ?, 1, NULL)", (k, k))


Builder = tuple[str, str, Callable[[sqlite3.Connection, int, str], None]]
FORMATS: dict[str, Builder] = {
    "opencode": ("opencode.db", OPENCODE_SCHEMA, _opencode_message),
    "picoclaw": ("seahorse.db", SEAHORSE_SCHEMA, _seahorse_message),
}


def _tree(root: Path) -> dict[str, tuple[str, int, int]]:
    """Every file of the directory: name, content hash, mtime and size."""
    return {
        p.name: (hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mtime_ns, p.stat().st_size)
        for p in sorted(root.iterdir())
    }


def _texts(path: Path) -> list[str]:
    return [m.content for m in load_session(path).messages]


@pytest.fixture(params=sorted(FORMATS))
def fmt(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def _create(directory: Path, fmt: str, *, wal: bool) -> tuple[Path, sqlite3.Connection]:
    name, schema, add = FORMATS[fmt]
    directory.mkdir()
    db = directory / name
    con = sqlite3.connect(db)
    if wal:
        con.execute("PRAGMA journal_mode=wal")
        con.execute("PRAGMA wal_autocheckpoint=0")  # keep what follows in the -wal
    con.executescript(schema)
    add(con, 1, "checkpointed")
    con.commit()
    if wal:
        con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return db, con


def test_a_rollback_journal_database_is_read_in_place(tmp_path: Path, fmt: str) -> None:
    db, con = _create(tmp_path / "src", fmt, wal=False)
    con.close()
    before = _tree(db.parent)
    assert _texts(db) == ["checkpointed"]
    assert _tree(db.parent) == before


def test_a_wal_database_without_side_files_gets_none(tmp_path: Path, fmt: str) -> None:
    db, con = _create(tmp_path / "src", fmt, wal=True)
    con.close()  # the last connection checkpoints and removes -wal and -shm
    assert sorted(p.name for p in db.parent.iterdir()) == [db.name]
    before = _tree(db.parent)
    assert _texts(db) == ["checkpointed"]
    assert _tree(db.parent) == before


@pytest.fixture
def crashed_wal(tmp_path: Path, fmt: str) -> Iterator[Path]:
    """A WAL database whose ``-wal`` holds a committed message, as a crashed agent leaves it."""
    db, con = _create(tmp_path / "live", fmt, wal=True)
    FORMATS[fmt][2](con, 2, "only in the wal")
    con.commit()
    copy = tmp_path / "src"
    copy.mkdir()
    for side in db.parent.iterdir():
        shutil.copy2(side, copy / side.name)
    con.close()
    yield copy / db.name


def test_committed_data_in_an_existing_wal_is_seen_and_nothing_changes(
    crashed_wal: Path,
) -> None:
    names = sorted(p.name for p in crashed_wal.parent.iterdir())
    assert names == [crashed_wal.name, f"{crashed_wal.name}-shm", f"{crashed_wal.name}-wal"]
    before = _tree(crashed_wal.parent)
    assert _texts(crashed_wal) == ["checkpointed", "only in the wal"]
    assert _tree(crashed_wal.parent) == before


def test_a_live_database_with_a_writer_open_is_read_without_a_trace(
    tmp_path: Path, fmt: str
) -> None:
    db, con = _create(tmp_path / "src", fmt, wal=True)
    try:
        FORMATS[fmt][2](con, 2, "latest")
        con.commit()
        before = _tree(db.parent)
        assert _texts(db) == ["checkpointed", "latest"]
        assert _tree(db.parent) == before
    finally:
        con.close()


def test_a_database_that_keeps_changing_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db, con = _create(tmp_path / "src", "opencode", wal=False)
    con.close()
    ticks = iter(range(1_000))
    monkeypatch.setattr(_sqlite, "_signature", lambda path: (next(ticks),))
    with pytest.raises(SessionLoadError, match="kept changing while it was read"):
        load_session(db, format="opencode")
