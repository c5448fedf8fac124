"""PicoClaw: JSONL + meta (skip, summary, orphans), legacy JSON and the seahorse database."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from ctxtui.core.errors import SessionLoadError
from ctxtui.core.session.models import PartKind, Session
from ctxtui.importers import load_session, picoclaw
from ctxtui.importers._stream import open_source

EXAMPLES = Path("/work/shared/reference/examples")


def _session(tmp_path: Path, lines: list[Any], meta: dict[str, Any] | None) -> Path:
    path = tmp_path / "sk_v1_x.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    if meta is not None:
        (tmp_path / "sk_v1_x.meta.json").write_text(json.dumps(meta), encoding="utf-8")
    return path


def test_example_jsonl_with_meta() -> None:
    session = _read(picoclaw, EXAMPLES / "picoclaw_session.jsonl")
    assert [m.role for m in session.messages] == ["user", "assistant", "tool", "assistant"]
    call = session.messages[1]
    assert call.content == "" and call.reasoning == "Need to stat the file."
    assert call.tool_calls[0].id == "call_P1" and session.messages[2].tool_name == "exec"
    assert session.call_of_result == {2: 1} and session.orphan_results == ()
    assert session.messages[0].created_at is not None
    assert session.messages[0].created_at.microsecond == 123456  # nanoseconds, trimmed
    assert session.meta.model == "gpt-4.1-mini" and session.meta.summary is None
    assert all(m.usage is None for m in session.messages)  # PicoClaw stores no usage
    assert _read(picoclaw, EXAMPLES / "picoclaw_session.meta.json").messages == session.messages


def test_example_legacy_json() -> None:
    session = _read(picoclaw, EXAMPLES / "picoclaw_legacy_session.json")
    assert [m.role for m in session.messages] == ["user", "assistant", "tool", "assistant"]
    assert session.call_of_result == {2: 1}
    assert session.meta.title == "agent:main:telegram:direct:12345"


def test_example_seahorse_database() -> None:
    session = _read(picoclaw, EXAMPLES / "picoclaw_seahorse_demo.db")
    assert [m.role for m in session.messages] == ["user", "assistant", "tool", "assistant"]
    call, result = session.messages[1], session.messages[2]
    assert call.content == ""  # messages.content is a derived rendering, not what was sent
    assert call.tool_calls[0].name == "exec" and call.reasoning == "Need to stat the file."
    assert result.content == "2048 notes.txt" and result.tool_call_id == "call_P1"
    assert session.call_of_result == {2: 1}
    assert any("53 tokens over 4 context items (8, 30, 6, 9)" in w for w in session.meta.warnings)


def test_skip_makes_an_orphan_and_summary_is_kept(tmp_path: Path) -> None:
    lines = [
        {"role": "user", "content": "old"},
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "exec", "arguments": "{}"}}]},
        {"role": "tool", "content": "out", "tool_call_id": "c1"},
        {"role": "assistant", "content": "", "reasoning_content": "thinking only"},
        {"role": "user", "content": "new", "media": ["media://abc"]},
    ]  # fmt: skip
    path = _session(tmp_path, lines, {"skip": 2, "summary": "user asked things"})
    text = path.read_text(encoding="utf-8").replace("\n", "\n\n", 1)  # an empty line: not counted
    path.write_text(text, encoding="utf-8")
    session = _read(picoclaw, path)
    assert [m.content for m in session.messages] == ["out", "new"]
    assert session.orphan_results == (0,)
    assert session.meta.summary == "user asked things"
    assert session.meta.hidden_messages == 2, "the session bar counts what skip hides"
    assert any("transient" in w for w in session.meta.warnings)
    media = session.messages[1].media_parts
    assert len(media) == 1 and media[0].kind is PartKind.IMAGE and media[0].label == "media://abc"
    assert media[0].token_estimate == 256


def _seahorse(path: Path) -> None:
    con = sqlite3.connect(path)
    con.executescript(
        """
        CREATE TABLE conversations(conversation_id INTEGER PRIMARY KEY, session_key TEXT,
            created_at TEXT, updated_at TEXT);
        CREATE TABLE messages(message_id INTEGER PRIMARY KEY, conversation_id INTEGER, role TEXT,
            content TEXT, model_name TEXT, reasoning_content TEXT, token_count INTEGER,
            created_at TEXT);
        CREATE TABLE message_parts(part_id INTEGER PRIMARY KEY, message_id INTEGER, type TEXT,
            text TEXT, name TEXT, arguments TEXT, tool_call_id TEXT, media_uri TEXT,
            mime_type TEXT, ordinal INTEGER);
        CREATE TABLE summaries(summary_id TEXT PRIMARY KEY, conversation_id INTEGER, kind TEXT,
            depth INTEGER, content TEXT, token_count INTEGER, created_at TEXT);
        CREATE TABLE context_items(conversation_id INTEGER, ordinal INTEGER, item_type TEXT,
            summary_id TEXT, message_id INTEGER, token_count INTEGER, created_at TEXT);
        INSERT INTO conversations VALUES (1, 'old', '2026-01-01 00:00:00', '2026-01-01 00:00:00');
        INSERT INTO conversations VALUES (2, 'new', '2026-01-02 00:00:00', '2026-01-03 00:00:00');
        INSERT INTO summaries VALUES ('sum_1', 2, 'leaf', 0, 'earlier talk', 40, NULL);
        INSERT INTO messages VALUES (1, 1, 'user', 'other conversation', '', '', 5, NULL);
        INSERT INTO messages VALUES (2, 2, 'user', '[media: media://p (image/png)]', '', '', 7,
            '2026-01-03 00:00:00');
        INSERT INTO message_parts VALUES (1, 2, 'media', NULL, NULL, NULL, NULL, 'media://p',
            'image/png', 0);
        INSERT INTO context_items VALUES (1, 0, 'message', NULL, 1, 0, NULL);
        INSERT INTO context_items VALUES (2, 100, 'summary', 'sum_1', NULL, 0, NULL);
        INSERT INTO context_items VALUES (2, 200, 'message', NULL, 2, 11, NULL);
        """
    )
    con.commit()
    con.close()


def test_seahorse_summary_items_and_latest_conversation(tmp_path: Path) -> None:
    path = tmp_path / "seahorse.db"
    _seahorse(path)
    session = _read(picoclaw, path)
    summary, user = session.messages
    assert summary.is_summary and summary.content == "earlier talk"
    assert user.content == "" and user.media_parts[0].media_type == "image/png"
    assert session.meta.title == "new"
    assert any("2 conversations" in w for w in session.meta.warnings)
    assert any("51 tokens over 2 context items (40, 11)" in w for w in session.meta.warnings)


def test_sniff() -> None:
    line = {"role": "user", "content": "x"}
    assert picoclaw.sniff(EXAMPLES / "picoclaw_session.jsonl", line) >= 70
    legacy = json.loads((EXAMPLES / "picoclaw_legacy_session.json").read_text())
    assert picoclaw.sniff(EXAMPLES / "x.json", legacy) >= 90
    assert picoclaw.sniff(EXAMPLES / "x.jsonl", {"uuid": "u", "role": "user"}) == 0


def test_corrupt_gzip_with_a_meta_skip_is_one_line(tmp_path: Path) -> None:
    """The skip pre-scan reads the file before iter_records does: its error is worded too."""
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"\x1f\x8b\x08\x00garbagegarbage")
    (tmp_path / "s.meta.json").write_text('{"key": "s", "skip": 1}')
    with pytest.raises(SessionLoadError, match="corrupt compressed data"):
        load_session(path)


def test_full_history_keeps_the_skipped_lines_and_records_the_summary(tmp_path: Path) -> None:
    lines = [
        {"role": "user", "content": "Please read src/app.py first."},
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "exec",
             "arguments": "{\"command\": \"cat src/app.py\"}"}}]},
        {"role": "tool", "content": "out", "tool_call_id": "c1"},
        {"role": "user", "content": "now fix src/app.py"},
    ]  # fmt: skip
    path = _session(tmp_path, lines, {"skip": 3, "summary": "user asked to read a file"})
    from ctxtui.importers import load_session

    session = load_session(path, full_history=True)
    assert [m.content for m in session.messages] == [
        "Please read src/app.py first.", "", "out", "user asked to read a file",
        "now fix src/app.py",
    ]  # fmt: skip
    assert session.messages[3].is_summary
    [recorded] = session.meta.recorded_compactions
    assert recorded.message_index == 3
    assert session.meta.summary is None and session.meta.hidden_messages == 0
    # the normal read is unchanged
    assert load_session(path).meta.summary == "user asked to read a file"


def _read(module: Any, path: Path) -> Session:
    """What ``module``'s importer reads from ``path`` opened as a source."""
    with open_source(path) as source:
        session: Session = module.load(source)
        return session


def test_full_history_places_its_notes_among_the_readers_warnings_by_line(
    tmp_path: Path,
) -> None:
    """A line that is no message (2) is said before a corrupt line after it (3), as the
    lines come, however the file was read (whole or as it grew)."""
    path = tmp_path / "s.jsonl"
    path.write_text(
        '{"role":"user","content":"a"}\n{"foo":1}\n{"role": "user", "content": \n'
        '{"role":"assistant","content":"b"}\n'
    )
    (tmp_path / "s.meta.json").write_text(json.dumps({"key": "k", "summary": "S", "skip": 1}))
    warnings = load_session(path, full_history=True).meta.warnings
    assert [w.split(":")[0] for w in warnings] == ["meta skip 1", "line 2", "line 3"]
