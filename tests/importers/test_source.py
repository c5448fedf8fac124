"""One read path: a session file is checked and opened once, and detection and the importer
read that one source (``_stream.Source``), whatever the format and however it is detected."""

from __future__ import annotations

import gzip
import os
from pathlib import Path
from typing import Any

import pytest

from ctxtui.importers import load_session
from ctxtui.samples import samples_dir

SAMPLES = sorted(
    p for p in samples_dir().iterdir() if p.suffix in (".json", ".jsonl") and ".meta." not in p.name
)


def _opens_of(path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every ``os.open`` of ``path`` from here on (builtin ``open`` goes through it too)."""
    opened: list[str] = []
    real = os.open

    def counting(file: Any, *args: Any, **kwargs: Any) -> int:
        if os.fspath(file) == os.fspath(path):
            opened.append(os.fspath(file))
        return real(file, *args, **kwargs)

    monkeypatch.setattr(os, "open", counting)
    return opened


@pytest.mark.parametrize("sample", SAMPLES, ids=[p.name for p in SAMPLES])
@pytest.mark.parametrize("full_history", [False, True], ids=["load", "history"])
def test_a_sample_is_opened_once(
    sample: Path, full_history: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    opened = _opens_of(sample, monkeypatch)
    load_session(sample, full_history=full_history)
    assert len(opened) == 1


@pytest.mark.parametrize("format", [None, "openai-chat"])
def test_a_compressed_document_is_opened_once_and_parsed_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, format: str | None
) -> None:
    """Detection parses a pretty-printed document whole; the importer reuses that parse."""
    from ctxtui.importers import _reader

    path = tmp_path / "chat.json.gz"
    path.write_bytes(gzip.compress(b'{\n "messages": [{"role": "user", "content": "hi"}]\n}\n'))
    opened = _opens_of(path, monkeypatch)
    parses: list[int] = []
    real = _reader._fast_parse
    monkeypatch.setattr(_reader, "_fast_parse", lambda data: parses.append(1) or real(data))
    session = load_session(path, format)
    assert [m.content for m in session.messages] == ["hi"]
    assert len(opened) == 1 and len(parses) == 1


def test_a_file_swapped_after_the_open_is_still_the_one_read(tmp_path: Path) -> None:
    """Every read is of the descriptor opened first: a name swapped meanwhile (for a FIFO, or
    another file) changes nothing."""
    from ctxtui.importers._jsonl import iter_records
    from ctxtui.importers._stream import open_file

    path = tmp_path / "s.jsonl"
    path.write_text('{"a": 1}\n{"a": 2}\n')
    with open_file(path) as source:
        path.unlink()
        os.mkfifo(path)
        values = [r.value for r in iter_records(source, [])]
    assert values == [{"a": 1}, {"a": 2}]
