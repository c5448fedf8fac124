"""The exact tokenizers through the public CLI: offline, no fallback note, their own counts."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import pytest

from ctxtui.cli.main import main
from ctxtui.core.tokens.tokenizers import resolve


@pytest.fixture
def offline(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No socket connects, an empty tiktoken download cache, no count cache."""

    def refuse(*_args: object, **_kwargs: object) -> None:
        raise OSError("network disabled by test")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path / "tiktoken"))
    monkeypatch.setenv("CTXTUI_NO_CACHE", "1")


@pytest.fixture
def chat(tmp_path: Path) -> Path:
    path = tmp_path / "chat.json"
    messages = [
        {"role": "system", "content": "You are terse."},
        {"role": "user", "content": "Привет! Summarise 漢字 and emoji 👍🏽 please."},
        {"role": "assistant", "content": "Sure — here it is: 漢字 are Chinese characters."},
    ]
    path.write_text(json.dumps({"messages": messages}), encoding="utf-8")
    return path


def report(capsys: pytest.CaptureFixture[str], path: Path, spec: str) -> dict[str, Any]:
    assert main(["report", str(path), "--tokenizer", spec, "--json"]) == 0
    document: dict[str, Any] = json.loads(capsys.readouterr().out)
    return document


@pytest.mark.parametrize("spec", ["tiktoken:o200k_base", "llama3", "qwen2"])
def test_exact_families_count_offline_without_a_note(
    offline: None, chat: Path, capsys: pytest.CaptureFixture[str], spec: str
) -> None:
    document = report(capsys, chat, spec)
    assert document["tokenizer"] == {"requested": spec, "used": spec, "note": ""}
    assert document["policy"]["tokenizer"] == spec


def test_each_family_reports_its_own_counts(
    offline: None, chat: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each message's tokens in the report are the chosen family's, not cl100k's."""
    from ctxtui.importers import load_session

    messages = load_session(chat).messages
    seen: dict[str, list[int]] = {}
    for spec in ("tiktoken:cl100k_base", "tiktoken:o200k_base", "llama3", "qwen2"):
        tokenizer, _ = resolve(spec)
        rows = report(capsys, chat, spec)["messages"]
        seen[spec] = [row["tokens"] for row in rows]
        assert seen[spec] == [tokenizer.count_message(m) for m in messages]
    assert seen["tiktoken:o200k_base"] != seen["tiktoken:cl100k_base"]
    assert seen["qwen2"] != seen["llama3"]
