"""A file name's bytes that are not UTF-8 (lone surrogates once decoded) are ``\\xNN`` in every
command's text, HTML and JSON, as docs/safety.md promises: never ``�``, never a ``\\udcff``
escape that a strict JSON reader refuses, and every output valid UTF-8."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from ctxtui.cli.main import main

SAMPLES = Path(__file__).resolve().parents[2] / "sample_sessions"

SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
"""A ``\\uD800``-``\\uDFFF`` escape: a lone surrogate in JSON text."""


@pytest.fixture
def named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """Samples under names with a byte that is not UTF-8 (``\\xff``, ``\\xfd``, ``\\xfe``)."""
    monkeypatch.setenv("CTXTUI_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    names = {
        "demo.json": b"ses\xff.json",
        "claude_code_compacted.jsonl": b"cc\xfd.jsonl",
        "codex_replay.jsonl": b"rollout-\xfe.jsonl",
    }
    out = {}
    for sample, name in names.items():
        path = tmp_path / os.fsdecode(name)
        shutil.copy(SAMPLES / sample, path)
        out[sample] = path
    return out


def _run(argv: list[str], capfd: pytest.CaptureFixture[bytes]) -> str:
    """The command's standard output, which must be valid UTF-8 (decoded strictly)."""
    capfd.readouterr()
    assert main(argv) == 0
    out, err = capfd.readouterr()
    err.decode("utf-8")
    return out.decode("utf-8")


def _json(argv: list[str], capfd: pytest.CaptureFixture[bytes]) -> Any:
    text = _run(argv, capfd)
    assert SURROGATE_ESCAPE.search(text) is None
    return json.loads(text)


def _strings(value: Any) -> list[str]:
    """Every string a JSON document holds, keys included."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in (k, *_strings(v))]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def test_report_names_the_undecodable_byte_in_text_json_and_html(
    named: dict[str, Path], capfdbinary: pytest.CaptureFixture[bytes]
) -> None:
    path = str(named["demo.json"])
    text = _run(["report", path], capfdbinary)
    assert "ses\\xff.json" in "".join(line.strip() for line in text.splitlines())
    assert "\ufffd" not in text
    doc = _json(["report", path, "--json"], capfdbinary)
    assert doc["session"]["path"] == path.replace("\udcff", "\\xff")
    html = _run(["report", path, "--html", "-o", "-"], capfdbinary)
    assert "ses\\xff.json" in html and "\ufffd" not in html


@pytest.mark.parametrize(
    ("command", "sample", "extra"),
    [
        ("replay", "claude_code_compacted.jsonl", []),
        ("retention", "claude_code_compacted.jsonl", []),
        ("compare", "demo.json", []),
        ("policy", "demo.json", []),
        ("fleet", "demo.json", ["--no-simulate", "--no-cache", "--workers", "1"]),
        ("tune", "codex_replay.jsonl", ["--agent", "codex"]),
    ],
)
def test_every_command_that_names_the_session_shows_the_byte(
    command: str,
    sample: str,
    extra: list[str],
    named: dict[str, Path],
    capfdbinary: pytest.CaptureFixture[bytes],
) -> None:
    path = str(named[sample])
    shown = re.sub("[\udc80-\udcff]", lambda m: f"\\x{ord(m[0]) - 0xDC00:02x}", path)
    text = _run([command, path, *extra], capfdbinary)
    assert "\ufffd" not in text
    if command in ("replay", "retention", "fleet"):  # the others' tables do not name the file
        unwrapped = "".join(line.strip() for line in text.splitlines())  # rich folds a path
        assert Path(shown).name in unwrapped
    strings = _strings(_json([command, path, *extra, "--json"], capfdbinary))
    assert shown in strings
    assert not any("\ufffd" in s for s in strings)


def test_sessions_json_writes_the_byte_not_a_lone_surrogate(
    named: dict[str, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capfdbinary: pytest.CaptureFixture[bytes],
) -> None:
    codex = tmp_path / "codex"
    day = codex / "sessions" / "2026" / "01" / "02"
    day.mkdir(parents=True)
    shutil.copy(named["codex_replay.jsonl"], day / os.fsdecode(b"rollout-\xfe.jsonl"))
    monkeypatch.setenv("CODEX_HOME", str(codex))
    assert "rollout-\\xfe.jsonl" in _run(["sessions"], capfdbinary)
    doc = _json(["sessions", "--json"], capfdbinary)
    (found,) = doc["sessions"]
    assert found["path"].endswith("rollout-\\xfe.jsonl")
    assert found["open"].endswith("rollout-\\xfe.jsonl")
