"""Every bad input of issue #4 is refused with one line: the file, the line if known, what
was expected and what was found."""

from __future__ import annotations

import os
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
    path = tmp_path / "deep.json"
    path.write_text('{"messages":\n' + "[" * 5000 + "]" * 5000 + "}\n")
    assert "nesting deeper than 200 levels" in str(_refusal(path))


def test_moderately_deep_nesting_past_the_limit(tmp_path: Path) -> None:
    path = tmp_path / "deep.json"
    path.write_text('{"messages":\n' + "[" * 300 + "]" * 300 + "}\n")
    assert "nesting deeper than 200 levels" in str(_refusal(path))


def test_directory_instead_of_a_file(tmp_path: Path) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "a.txt").write_text("x")
    assert "expected a file, found a directory" in str(_refusal(folder))


def test_directory_with_a_file_format_given(tmp_path: Path) -> None:
    assert "expected a file, found a directory" in str(_refusal(tmp_path, "openai-chat"))


def test_missing_file(tmp_path: Path) -> None:
    assert "no such file" in str(_refusal(tmp_path / "nope.json"))


def test_permission_denied(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "secret.json"
    path.write_text('{"messages": []}')
    path.chmod(0)
    if os.access(path, os.R_OK):  # root ignores the mode: simulate the refusal instead
        real_access = os.access
        real_open = Path.open

        def no_access(p: Any, mode: int, *args: Any, **kwargs: Any) -> bool:
            return False if str(p) == str(path) else real_access(p, mode, *args, **kwargs)

        def no_open(self: Path, *args: Any, **kwargs: Any) -> Any:
            if str(self) == str(path):
                raise PermissionError(13, "Permission denied")
            return real_open(self, *args, **kwargs)

        monkeypatch.setattr(os, "access", no_access)
        monkeypatch.setattr(Path, "open", no_open)
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


def test_missing_importer_module_is_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys

    path = tmp_path / "s.json"
    path.write_text('{"messages": []}')
    monkeypatch.setitem(sys.modules, "ctxtui.importers.sharegpt", None)
    with pytest.raises(SessionLoadError, match="sharegpt importer is not available"):
        load_session(path, "sharegpt")


def test_wrong_format_forced_is_refused_not_crashed(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    path.write_text('{"conversations": []}')
    assert "expected OpenAI Chat messages" in str(_refusal(path, "openai-chat"))
