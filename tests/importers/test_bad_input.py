"""Every bad input of issue #4 is refused with one line: the file, the line if known, what
was expected and what was found."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from ctxtui.core.errors import SessionLoadError
from ctxtui.importers import load_session


def _refusal(path: Path, format: str | None = None) -> SessionLoadError:
    with pytest.raises(SessionLoadError) as info:
        load_session(path, format)
    message = str(info.value)
    assert "\n" not in message, "the error must be one line"
    assert message.startswith(str(path)), "the error must name the file"
    return info.value


def test_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "empty.json"
    path.write_bytes(b"")
    assert "empty file" in str(_refusal(path))


def test_empty_file_with_a_format_given(tmp_path: Path) -> None:
    path = tmp_path / "empty.json"
    path.write_bytes(b"")
    assert "empty file" in str(_refusal(path, "openai-chat"))


def test_whitespace_only_file(tmp_path: Path) -> None:
    path = tmp_path / "blank.json"
    path.write_bytes(b"\n \r\n\t\n")
    assert "empty file" in str(_refusal(path))


def test_binary_garbage(tmp_path: Path) -> None:
    path = tmp_path / "garbage.json"
    path.write_bytes(bytes(range(256)) * 4)
    message = str(_refusal(path))
    assert "expected JSON text, found binary data" in message


def test_invalid_utf8_in_a_document(tmp_path: Path) -> None:
    path = tmp_path / "latin1.json"
    path.write_bytes(b'{\n "messages": [\n  {"role": "user", "content": "caf\xe9"}\n ]\n}\n')
    error = _refusal(path)
    assert error.line == 3
    assert "expected UTF-8 text, found invalid byte 0xe9" in str(error)


def test_json_scalar(tmp_path: Path) -> None:
    path = tmp_path / "scalar.json"
    path.write_text("42\n")
    assert "expected a JSON object or array, found a JSON number" in str(_refusal(path))


def test_json_scalar_with_a_format_given(tmp_path: Path) -> None:
    path = tmp_path / "scalar.json"
    path.write_text('\n"just a string"\n')
    assert "found a JSON string" in str(_refusal(path, "anthropic"))


def test_json_of_no_known_format(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_text('{"name": "demo", "version": 3}\n')
    message = str(_refusal(path))
    assert "no known format" in message
    assert "keys: name, version" in message


def test_truncated_json(tmp_path: Path) -> None:
    path = tmp_path / "cut.json"
    path.write_text('{\n "messages": [\n  {"role": "user", "content": "hi"},\n')
    assert "truncated JSON" in str(_refusal(path))


def test_absurdly_deep_nesting(tmp_path: Path) -> None:
    """The error names the line the nesting passes the limit on."""
    path = tmp_path / "deep.json"
    path.write_text('{"messages":\n' + "[" * 50_000 + "]" * 50_000 + "}\n")
    assert "deep.json:2: expected JSON, found nesting deeper than 1000 levels" in str(
        _refusal(path)
    )


def test_moderately_deep_nesting_past_the_limit(tmp_path: Path) -> None:
    path = tmp_path / "deep.json"
    text = '{"note": "[[[[\\"[[[",\n"messages":\n\n' + "[" * 1100 + "]" * 1100 + "}\n"
    path.write_text(text)
    assert "deep.json:4: expected JSON, found nesting deeper than 1000 levels" in str(
        _refusal(path)
    ), "brackets in strings, and an escaped quote, are not nesting"


def test_directory_instead_of_a_file(tmp_path: Path) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "a.txt").write_text("x")
    message = str(_refusal(folder))
    assert "expected a session file (or an OpenCode storage or PicoClaw sessions directory)" in (
        message
    )
    assert "found a directory that is neither" in message


def test_directory_with_a_file_format_given(tmp_path: Path) -> None:
    assert "expected a file, found a directory" in str(_refusal(tmp_path, "openai-chat"))


def test_missing_file(tmp_path: Path) -> None:
    assert "no such file" in str(_refusal(tmp_path / "nope.json"))


def test_permission_denied(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "secret.json"
    path.write_text('{"messages": []}')
    path.chmod(0)
    if os.access(path, os.R_OK):  # root ignores the mode: simulate the refusal instead
        real_open = os.open

        def no_open(p: Any, *args: Any, **kwargs: Any) -> int:
            if str(p) == str(path):
                raise PermissionError(13, "Permission denied")
            return real_open(p, *args, **kwargs)

        monkeypatch.setattr(os, "open", no_open)
    try:
        assert "permission denied" in str(_refusal(path))
    finally:
        path.chmod(0o644)


def test_unknown_format_name_lists_the_known_ones(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    path.write_text('{"messages": []}')
    with pytest.raises(SessionLoadError) as info:
        load_session(path, "bogus")
    assert "unknown format 'bogus'" in str(info.value)
    assert "openai-chat" in str(info.value) and "sharegpt" in str(info.value)


def test_wrong_format_forced_is_refused_not_crashed(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    path.write_text('{"conversations": []}')
    assert "expected OpenAI Chat messages" in str(_refusal(path, "openai-chat"))


def test_truncated_one_line_document_names_line_one(tmp_path: Path) -> None:
    """json counts the final newline as a line of its own; the cut is on the line with text."""
    path = tmp_path / "cut.json"
    path.write_text('{"messages": [{"role": "user", "content": "hi"}\n')
    error = _refusal(path)
    assert error.line == 1 and "truncated JSON" in str(error)


def test_a_jsonl_whose_only_line_is_corrupt(tmp_path: Path) -> None:
    path = tmp_path / "only.jsonl"
    path.write_text('{"role": "user", "content": "hi"\n')
    error = _refusal(path)
    assert error.line == 1 and "truncated JSON" in str(error)


def test_invalid_json_quotes_what_was_found(tmp_path: Path) -> None:
    path = tmp_path / "notes.jsonl"
    path.write_text("this is not json at all, just a long line of notes\n")
    error = _refusal(path)
    assert error.line == 1
    assert "expected JSON, found plain text 'this is not json at all,…'" in str(error)


def test_a_wrong_format_forced_names_the_detected_one(tmp_path: Path) -> None:
    path = tmp_path / "chat.json"
    path.write_text('{"messages": [{"role": "user", "content": "hi"}]}')
    message = str(_refusal(path, "codex"))
    assert "expected Codex CLI data (--format codex), found none" in message
    assert "it looks like openai-chat (try --format openai-chat" in message


def test_a_forced_format_on_an_unknown_file_gives_no_hint(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_text('{"name": "demo"}')
    message = str(_refusal(path, "claude-code"))
    assert message.endswith("expected Claude Code data (--format claude-code), found none")


def test_a_really_empty_session_of_the_forced_format_is_accepted(tmp_path: Path) -> None:
    path = tmp_path / "chat.json"
    path.write_text('{"messages": []}')
    session = load_session(path, "openai-chat")
    assert session.messages == () and session.meta.format == "openai-chat"


def test_format_names_ignore_case_and_underscores(tmp_path: Path) -> None:
    path = tmp_path / "chat.json"
    path.write_text('{"messages": [{"role": "user", "content": "hi"}]}')
    assert load_session(path, " OpenAI_Chat").meta.format == "openai-chat"


_DEEP = "[" * 100_000 + "]" * 100_000
"""JSON nested far past ``json.loads``' recursion limit, as it may sit inside a string field."""


def test_absurd_nesting_inside_a_string_field_is_not_a_traceback(tmp_path: Path) -> None:
    """JSON kept in a string (ShareGPT calls, a ``tools`` string, Codex shell output, an
    OpenCode ``data`` column) is read as invalid JSON, not raised on as ``RecursionError``."""
    sharegpt = tmp_path / "sharegpt.json"
    turns = [{"from": "human", "value": "q"}, {"from": "function_call", "value": _DEEP}]
    sharegpt.write_text(json.dumps({"conversations": turns}))
    session = load_session(sharegpt)
    assert session.messages[-1].tool_calls[0].arguments == _DEEP
    chat = tmp_path / "chat.json"
    chat.write_text(json.dumps({"messages": [{"role": "user", "content": "q"}], "tools": _DEEP}))
    assert load_session(chat, "openai-chat").tools == ()
    rollout = tmp_path / "rollout.jsonl"
    output = '{"metadata": {"exit_code": 1}, "deep": ' + _DEEP + "}"
    item = {"type": "function_call_output", "call_id": "c", "output": output}
    rollout.write_text(json.dumps({"timestamp": "t", "type": "response_item", "payload": item}))
    assert not load_session(rollout, "codex").messages[0].is_error


def test_absurd_nesting_in_an_opencode_data_column(tmp_path: Path) -> None:
    path = tmp_path / "opencode.db"
    con = sqlite3.connect(path)
    con.executescript(
        """
        CREATE TABLE session(id TEXT, title TEXT, time_updated INTEGER);
        CREATE TABLE message(id TEXT, session_id TEXT, time_created INTEGER, data TEXT);
        CREATE TABLE part(id TEXT, message_id TEXT, session_id TEXT, data TEXT);
        INSERT INTO session VALUES ('ses_1', 't', 1);
        """
    )
    con.execute("INSERT INTO message VALUES ('msg_1', 'ses_1', 1, ?)", (_DEEP,))
    con.commit()
    con.close()
    session = load_session(path)
    assert any("data is not a JSON object" in w for w in session.meta.warnings)
