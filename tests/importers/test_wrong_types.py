"""A field of the wrong JSON type (a list where a ``type`` string goes, a number where a list
goes, a BLOB in a SQLite text column) is skipped or refused in one line, never a traceback."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from ctxtui.core.errors import SessionLoadError
from ctxtui.core.session.models import Session
from ctxtui.importers import load_session


def _load(path: Path, format: str | None = None) -> Session | None:
    """The session, or ``None`` after checking the refusal is one line naming the file."""
    try:
        return load_session(path, format)
    except SessionLoadError as exc:
        message = str(exc)
        assert "\n" not in message and message.startswith(str(path))
        return None


def _jsonl(path: Path, records: list[Any]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


_CLAUDE_USER = {
    "type": "user",
    "uuid": "u1",
    "parentUuid": None,
    "sessionId": "s",
    "timestamp": "2026-01-01T00:00:00Z",
    "message": {"role": "user", "content": "hi"},
}


@pytest.mark.parametrize(
    "second",
    [
        dict(_CLAUDE_USER, uuid="u2", type=["user"]),
        dict(_CLAUDE_USER, uuid="u2", parentUuid=["u1"]),
    ],
    ids=["type-list", "parentUuid-list"],
)
def test_claude_code_list_in_a_string_field(tmp_path: Path, second: dict[str, Any]) -> None:
    session = _load(_jsonl(tmp_path / "s.jsonl", [_CLAUDE_USER, second]), "claude-code")
    assert session is not None
    assert [(m.role, m.content) for m in session.messages] == [("user", "hi")]
    assert session.meta.warnings == ()


def test_claude_code_sniff_of_a_list_type(tmp_path: Path) -> None:
    path = _jsonl(tmp_path / "s.jsonl", [dict(_CLAUDE_USER, type=[])])
    with pytest.raises(SessionLoadError, match="no known format: expected a transcript"):
        load_session(path)


def test_codex_list_as_record_type(tmp_path: Path) -> None:
    records = [
        {"timestamp": "t", "type": "session_meta", "payload": {"id": "x"}},
        {"timestamp": "t", "type": ["response_item"], "payload": {}},
    ]
    session = _load(_jsonl(tmp_path / "r.jsonl", records), "codex")
    assert session is not None
    assert session.messages == () and session.meta.warnings == ()


def test_codex_legacy_instructions_not_a_string(tmp_path: Path) -> None:
    records = [{"id": "x", "timestamp": "t", "instructions": 5}]
    session = _load(_jsonl(tmp_path / "r.jsonl", records), "codex")
    assert session is not None and session.system_prompt is None
    assert session.messages == ()


def test_anthropic_list_as_block_type(tmp_path: Path) -> None:
    path = tmp_path / "a.json"
    doc = {
        "system": "s",
        "messages": [
            {"role": "user", "content": "q"},
            {"role": "assistant", "content": [{"type": []}, {"type": "text", "text": "a"}]},
        ],
    }
    path.write_text(json.dumps(doc))
    session = _load(path, "anthropic")
    assert session is not None
    assert [(m.role, m.content) for m in session.messages] == [("user", "q"), ("assistant", "a")]
    assert [p.text for p in session.messages[-1].parts] == ["a"], "the bad block is skipped"


@pytest.mark.parametrize(
    ("item", "kept", "warnings"),
    [
        (
            {"type": ["message"], "role": "user", "content": "q"},
            [],
            ("item 0: unknown item type a list skipped",),
        ),
        (
            {"type": "message", "role": "user", "content": [{"type": [], "text": "q"}]},
            [("user", "", ["other:unknown"])],
            (),
        ),
        ({"type": "reasoning", "summary": 5}, [], ()),
        (
            {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_audio", "input_audio": "x"}],
            },
            [("user", "", ["other:input_audio"])],
            (),
        ),
    ],
    ids=["item-type-list", "part-type-list", "summary-number", "input_audio-string"],
)
def test_openai_responses_wrong_types(
    tmp_path: Path, item: dict[str, Any], kept: list[Any], warnings: tuple[str, ...]
) -> None:
    path = tmp_path / "r.json"
    path.write_text(json.dumps({"instructions": "i", "input": [item]}))
    for format in (None, "openai-responses"):  # detected, and forced
        session = _load(path, format)
        assert session is not None and session.system_prompt == "i"
        found = [
            (m.role, m.content, [f"{p.kind.value}:{p.label}" for p in m.parts])
            for m in session.messages
        ]
        assert found == kept
        assert session.meta.warnings == warnings


def test_openai_responses_reasoning_summary_string_is_one_text(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    item = {"type": "reasoning", "summary": "thought"}
    path.write_text(json.dumps({"instructions": "i", "input": [item]}))
    session = _load(path, "openai-responses")
    assert session is not None and session.messages[0].reasoning == "thought"


@pytest.mark.parametrize(
    ("message", "kept", "warnings"),
    [
        ({"role": ["user"], "content": "q"}, [], ("line 0: not a PicoClaw message, skipped",)),
        ({"role": "assistant", "content": "a", "tool_calls": 5}, [("assistant", "a", 0)], ()),
    ],
    ids=["role-list", "tool_calls-number"],
)
def test_picoclaw_wrong_types(
    tmp_path: Path, message: dict[str, Any], kept: list[Any], warnings: tuple[str, ...]
) -> None:
    path = tmp_path / "k.json"
    doc = {"key": "k", "created": "2026-01-01T00:00:00Z", "messages": [message]}
    path.write_text(json.dumps(doc))
    session = _load(path, "picoclaw")
    assert session is not None
    assert [(m.role, m.content, len(m.tool_calls)) for m in session.messages] == kept
    assert session.meta.warnings == warnings


def test_picoclaw_sniff_of_a_list_role(tmp_path: Path) -> None:
    path = _jsonl(tmp_path / "s.jsonl", [{"role": [], "content": "x"}])
    with pytest.raises(SessionLoadError, match="no known format: expected a transcript"):
        load_session(path)


def _seahorse(path: Path) -> sqlite3.Connection:
    con = sqlite3.connect(path)
    con.executescript(
        """
        CREATE TABLE conversations(conversation_id INTEGER PRIMARY KEY, session_key TEXT,
            updated_at TEXT);
        CREATE TABLE messages(message_id INTEGER PRIMARY KEY, conversation_id INTEGER,
            role TEXT, content TEXT, model_name TEXT, reasoning_content TEXT,
            token_count INTEGER, created_at TEXT);
        CREATE TABLE message_parts(part_id INTEGER PRIMARY KEY, message_id INTEGER, type TEXT,
            text TEXT, name TEXT, arguments TEXT, tool_call_id TEXT, media_uri TEXT,
            mime_type TEXT, ordinal INTEGER);
        CREATE TABLE summaries(summary_id TEXT PRIMARY KEY, content TEXT, token_count INTEGER,
            created_at TEXT);
        CREATE TABLE context_items(conversation_id INTEGER, ordinal INTEGER, item_type TEXT,
            summary_id TEXT, message_id INTEGER, token_count INTEGER);
        INSERT INTO conversations VALUES (1, 'agent:main', '2026-01-01');
        INSERT INTO messages VALUES (1, 1, 'user', 'q', '', '', 3, '2026-01-01');
        INSERT INTO messages VALUES (2, 1, 'assistant', 'a', '', '', 3, '2026-01-01');
        INSERT INTO context_items VALUES (1, 0, 'message', NULL, 1, 3);
        INSERT INTO context_items VALUES (1, 1, 'message', NULL, 2, 3);
        """
    )
    return con


@pytest.mark.parametrize(
    ("update", "kept", "title"),
    [
        ("UPDATE messages SET role = 'bogus' WHERE message_id = 1", ["a"], "agent:main"),
        ("UPDATE messages SET token_count = 'x'", ["q", "a"], "agent:main"),
        ("UPDATE context_items SET token_count = 'x'", ["q", "a"], "agent:main"),
        ("UPDATE conversations SET session_key = x'0001'", ["q", "a"], "\x00\x01"),
    ],
    ids=["unknown-role", "message-token_count-text", "item-token_count-text", "key-blob"],
)
def test_seahorse_wrong_column_types(
    tmp_path: Path, update: str, kept: list[str], title: str
) -> None:
    path = tmp_path / "seahorse.db"
    con = _seahorse(path)
    con.execute(update)
    con.commit()
    con.close()
    session = _load(path)
    assert session is not None
    assert [m.content for m in session.messages] == kept
    assert session.meta.title == title
    estimate = session.meta.warnings[-1]
    assert estimate.endswith("6 tokens over 2 context items (3, 3)"), "text counts fall back"


def test_seahorse_unknown_role_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "seahorse.db"
    con = _seahorse(path)
    con.execute("UPDATE messages SET role = 'bogus' WHERE message_id = 1")
    con.commit()
    con.close()
    session = _load(path)
    assert session is not None
    assert [m.content for m in session.messages] == ["a"]
    assert any("unknown role 'bogus'" in w for w in session.meta.warnings)


@pytest.mark.parametrize("calls", [5, "call_1", {"id": "c1"}])
def test_openai_chat_tool_calls_not_a_list(tmp_path: Path, calls: Any) -> None:
    path = tmp_path / "chat.json"
    doc = {
        "messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "tool_calls": calls}]
    }
    path.write_text(json.dumps(doc))
    session = _load(path)
    assert session is not None
    assert session.messages[1].tool_calls == ()
    assert any("tool_calls is not a list" in w for w in session.meta.warnings)
