"""What a load reads is never written: each importer's protected set, and writes refused onto it.

Issue 9 item 1: ``compact -o`` and the export compared the target with the source path only,
so the compacted session could land on a PicoClaw ``.meta.json``, inside an OpenCode storage
tree or on a SQLite ``-wal``. Every case is refused, ``--force`` or not.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from ctxtui.cli.main import main
from ctxtui.core.session.models import Session
from ctxtui.importers import load_session, protected_paths, source_protection
from ctxtui.system.export import ExportError, write_session


def _write(session: Session, target: Path, **kw: Any) -> Path:
    """Write as every shell does: protecting what the session's source is read from."""
    protected = source_protection(session.meta.source_path)
    return write_session(session, target, protected=protected, **kw)


def _picoclaw(tmp_path: Path) -> tuple[Path, Path]:
    jsonl = tmp_path / "chat.jsonl"
    lines = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
    jsonl.write_text("".join(json.dumps(line) + "\n" for line in lines))
    meta = tmp_path / "chat.meta.json"
    meta.write_text(json.dumps({"key": "chat", "skip": 0, "summary": ""}))
    return jsonl, meta


def _opencode_storage(tmp_path: Path) -> Path:
    storage = tmp_path / "storage"
    for sub in ("message/ses_1", "part/msg_1", "session/prj"):
        (storage / sub).mkdir(parents=True)
    message = {"id": "msg_1", "sessionID": "ses_1", "role": "user", "time": {"created": 1}}
    (storage / "message" / "ses_1" / "msg_1.json").write_text(json.dumps(message))
    part = {"id": "prt_1", "messageID": "msg_1", "sessionID": "ses_1", "type": "text", "text": "hi"}
    (storage / "part" / "msg_1" / "prt_1.json").write_text(json.dumps(part))
    info = {"id": "ses_1", "projectID": "prj", "title": "t", "time": {"created": 1, "updated": 2}}
    (storage / "session" / "prj" / "ses_1.json").write_text(json.dumps(info))
    return storage


def _tree(root: Path) -> dict[str, tuple[str, int]]:
    return {
        str(p.relative_to(root)): (hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mtime_ns)
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def test_picoclaw_transcript_and_meta_protect_each_other(tmp_path: Path) -> None:
    jsonl, meta = _picoclaw(tmp_path)
    assert {jsonl, meta} <= protected_paths(jsonl)
    assert {jsonl, meta} <= protected_paths(meta)


@pytest.mark.parametrize("opened", ["jsonl", "meta"])
def test_writing_onto_the_other_half_of_a_picoclaw_session_is_refused(
    tmp_path: Path, opened: str
) -> None:
    jsonl, meta = _picoclaw(tmp_path)
    session = load_session(jsonl if opened == "jsonl" else meta)
    before = _tree(tmp_path)
    for target in (meta, jsonl):
        with pytest.raises(ExportError, match="refusing to overwrite"):
            _write(session, target, force=True)
    assert _tree(tmp_path) == before


def test_a_missing_meta_beside_the_transcript_is_protected_too(tmp_path: Path) -> None:
    """Creating ``chat.meta.json`` would change what the next load of ``chat.jsonl`` shows."""
    jsonl, meta = _picoclaw(tmp_path)
    meta.unlink()
    with pytest.raises(ExportError, match=r"chat\.meta\.json, which the source session is read"):
        _write(load_session(jsonl), meta)
    assert not meta.exists()


def test_a_hard_link_to_the_meta_is_refused(tmp_path: Path) -> None:
    jsonl, meta = _picoclaw(tmp_path)
    elsewhere = tmp_path / "other"
    elsewhere.mkdir()
    alias = elsewhere / "copy.json"
    os.link(meta, alias)
    before = _tree(tmp_path)
    with pytest.raises(ExportError, match="refusing to overwrite"):
        _write(load_session(jsonl), alias, force=True)
    assert _tree(tmp_path) == before


@pytest.mark.parametrize(
    "opened", ["storage", "storage/session/prj/ses_1.json"], ids=["root", "session-file"]
)
def test_nothing_inside_an_opencode_storage_tree_is_written(tmp_path: Path, opened: str) -> None:
    storage = _opencode_storage(tmp_path)
    session = load_session(tmp_path / opened)
    assert storage in protected_paths(tmp_path / opened)
    before = _tree(storage)
    for target in (
        storage / "part" / "msg_1" / "prt_1.json",  # an existing file
        storage / "message" / "ses_1" / "msg_2.json",  # a new file a later load would read
        storage / "compacted.json",
    ):
        with pytest.raises(ExportError, match="refusing to"):
            _write(session, target, force=True)
    assert _tree(storage) == before
    assert _write(session, tmp_path / "compacted.json").is_file()


def test_a_directory_source_protects_its_tree_through_a_symlinked_parent(tmp_path: Path) -> None:
    storage = _opencode_storage(tmp_path)
    alias = tmp_path / "alias"
    alias.symlink_to(storage)
    with pytest.raises(ExportError, match="inside the source directory"):
        _write(load_session(storage), alias / "part" / "new.json")
    assert not (storage / "part" / "new.json").exists()


@pytest.mark.parametrize("suffix", ["-journal", "-wal", "-shm"])
def test_sqlite_side_files_are_refused(tmp_path: Path, suffix: str) -> None:
    db = tmp_path / "opencode.db"
    con = sqlite3.connect(db)
    con.executescript(
        "CREATE TABLE session(id TEXT, title TEXT, time_updated INTEGER);"
        "CREATE TABLE message(id TEXT, session_id TEXT, time_created INTEGER, data TEXT);"
        "CREATE TABLE part(id TEXT, message_id TEXT, data TEXT);"
        "INSERT INTO session VALUES ('ses_1', 't', 1);"
        """INSERT INTO message VALUES ('msg_1', 'ses_1', 1, '{"role": "user"}');"""
        """INSERT INTO part VALUES ('prt_1', 'msg_1', '{"type": "text", "text": "hi"}');"""
    )
    con.commit()
    con.close()
    session = load_session(db)
    side = tmp_path / f"opencode.db{suffix}"
    with pytest.raises(ExportError, match="which the source session is read from"):
        _write(session, side, force=True)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["opencode.db"]


# -- the two shells ----------------------------------------------------------------------------


def test_compact_o_onto_the_meta_is_exit_2_even_with_force(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    jsonl, meta = _picoclaw(tmp_path)
    before = _tree(tmp_path)
    assert main(["compact", str(jsonl), "-o", str(meta), "--force"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "refusing to overwrite" in err
    assert _tree(tmp_path) == before


def test_compact_o_inside_an_opencode_storage_is_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    storage = _opencode_storage(tmp_path)
    before = _tree(storage)
    target = storage / "session" / "prj" / "compacted.json"
    assert main(["compact", str(storage), "-o", str(target), "--force"]) == 2
    assert "inside the source directory" in capsys.readouterr().err
    assert _tree(storage) == before
