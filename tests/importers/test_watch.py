"""Following a transcript while an agent writes it: new records appear, half lines wait."""

from __future__ import annotations

import json
import os
from pathlib import Path

from ctxtui.importers.watch import SessionWatcher


def _line(role: str, text: str) -> str:
    return json.dumps({"role": role, "content": text}) + "\n"


def _touch_later(path: Path) -> None:
    """Make sure a write in the same clock tick still looks like a change."""
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))


def test_appended_records_are_read_on_the_next_poll(tmp_path: Path) -> None:
    path = tmp_path / "chat.jsonl"
    path.write_text(_line("user", "hi") + _line("assistant", "hello"), encoding="utf-8")
    watcher = SessionWatcher(path)

    first = watcher.poll()
    assert first is not None and len(first.messages) == 2
    assert watcher.poll() is None  # nothing changed

    with path.open("a", encoding="utf-8") as fh:
        fh.write(_line("user", "more"))
        fh.write('{"role": "assistant", "content": "half a li')  # the agent is mid-write
    _touch_later(path)
    second = watcher.poll()
    assert second is not None
    assert [m.content for m in second.messages] == ["hi", "hello", "more"]

    with path.open("a", encoding="utf-8") as fh:
        fh.write('ne"}\n')
    _touch_later(path)
    third = watcher.poll()
    assert third is not None
    assert [m.content for m in third.messages][-1] == "half a line"


def test_a_rewritten_file_is_read_from_the_start(tmp_path: Path) -> None:
    path = tmp_path / "chat.jsonl"
    path.write_text(_line("user", "a") + _line("assistant", "b") + _line("user", "c"))
    watcher = SessionWatcher(path)
    assert watcher.poll() is not None
    replacement = tmp_path / "new.jsonl"
    replacement.write_text(_line("user", "c"))
    replacement.replace(path)  # PicoClaw rewrites its JSONL on compaction
    session = watcher.poll()
    assert session is not None and [m.content for m in session.messages] == ["c"]


def test_a_vanished_or_broken_file_keeps_the_last_session(tmp_path: Path) -> None:
    path = tmp_path / "chat.jsonl"
    path.write_text(_line("user", "hi"))
    watcher = SessionWatcher(path)
    assert watcher.poll() is not None
    path.write_bytes(b"\x00\x01\x02 not a transcript")
    _touch_later(path)
    assert watcher.poll() is None and watcher.error
    path.unlink()
    assert watcher.poll() is None and "gone" in (watcher.error or "")
    path.write_text(_line("user", "back"))
    session = watcher.poll()
    assert session is not None and watcher.error is None


def test_a_file_swapped_for_a_fifo_or_socket_is_said_and_never_opened(tmp_path: Path) -> None:
    import socket

    path = tmp_path / "chat.jsonl"
    path.write_text(_line("user", "hi"))
    watcher = SessionWatcher(path)
    assert watcher.poll() is not None
    path.unlink()
    os.mkfifo(path)  # no writer will ever come: an open that waits for one never returns
    assert watcher.poll() is None
    assert watcher.error == f"{path}: no longer a regular file: it is now a FIFO (named pipe)"
    path.unlink()
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(path))
        assert watcher.poll() is None and "it is now a socket" in (watcher.error or "")
    path.unlink()
    path.write_text(_line("user", "back"))
    session = watcher.poll()
    assert session is not None and watcher.error is None
