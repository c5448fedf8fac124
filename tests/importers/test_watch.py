"""Following a transcript while an agent writes it: new records appear, half lines wait."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

from ctxtui.importers.watch import SessionWatcher


def _line(role: str, text: str) -> str:
    return json.dumps({"role": role, "content": text}) + "\n"


def _later() -> Callable[[], float]:
    """A clock that stands still: every read took no time, so none is paced."""
    return lambda: 0.0


def _touch_later(path: Path) -> None:
    """Make sure a write in the same clock tick still looks like a change."""
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))


def test_appended_records_are_read_on_the_next_poll(tmp_path: Path) -> None:
    path = tmp_path / "chat.jsonl"
    path.write_text(_line("user", "hi") + _line("assistant", "hello"), encoding="utf-8")
    watcher = SessionWatcher(path, clock=_later())

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
    watcher = SessionWatcher(path, clock=_later())
    assert watcher.poll() is not None
    replacement = tmp_path / "new.jsonl"
    replacement.write_text(_line("user", "c"))
    replacement.replace(path)  # PicoClaw rewrites its JSONL on compaction
    session = watcher.poll()
    assert session is not None and [m.content for m in session.messages] == ["c"]


def test_a_vanished_or_broken_file_keeps_the_last_session(tmp_path: Path) -> None:
    path = tmp_path / "chat.jsonl"
    path.write_text(_line("user", "hi"))
    watcher = SessionWatcher(path, clock=_later())
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
    watcher = SessionWatcher(path, clock=_later())
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


def test_a_line_still_being_written_costs_only_the_bytes_added(tmp_path: Path) -> None:
    """100 MB appended to one unfinished line in 1 MB steps: each poll reads the step alone
    (no read of the file), and the line's end is read at once."""
    path = tmp_path / "chat.jsonl"
    path.write_text(_line("user", "hi"))
    watcher = SessionWatcher(path, clock=_later())
    assert watcher.poll() is not None
    loads: list[Path] = []
    import ctxtui.importers as importers

    real = importers.load_session

    def counted(p: Path | str, format: str | None = None) -> object:
        loads.append(Path(p))
        return real(p, format)

    importers.load_session = counted  # type: ignore[assignment]
    try:
        with path.open("a", encoding="utf-8") as fh:
            fh.write('{"role": "assistant", "content": "')
            for _ in range(100):
                fh.write("x" * 2**20)
                fh.flush()
                _touch_later(path)
                assert watcher.poll() is None
            fh.write('"}\n')
        _touch_later(path)
        session = watcher.poll()
    finally:
        importers.load_session = real
    assert loads == []  # the line was read from where the last read stopped, once complete
    assert session is not None and len(session.messages[-1].content) == 100 * 2**20


def test_a_rewrite_that_grows_the_file_is_read(tmp_path: Path) -> None:
    path = tmp_path / "chat.jsonl"
    path.write_text(_line("user", "a"))
    watcher = SessionWatcher(path, clock=_later())
    assert watcher.poll() is not None
    with path.open("r+", encoding="utf-8") as fh:  # same inode, longer, its head changed
        fh.write(_line("user", "b") + " " * 40)
    _touch_later(path)
    session = watcher.poll()
    assert session is not None and session.messages[0].content == "b"


def test_reads_are_paced_by_what_the_last_one_cost(tmp_path: Path) -> None:
    now = [0.0]
    path = tmp_path / "chat.jsonl"
    path.write_text(_line("user", "a"))
    watcher = SessionWatcher(path, clock=lambda: now[0])
    assert watcher.poll() is not None  # took 0 s on this clock: nothing to wait for
    with path.open("a", encoding="utf-8") as fh:
        fh.write(_line("user", "b"))
    _touch_later(path)
    watcher._not_before = 2.0  # as after a read of 2 / PACE seconds
    assert watcher.poll() is None
    now[0] = 2.0
    session = watcher.poll()
    assert session is not None and len(session.messages) == 2


def test_a_picoclaw_database_is_watched_as_a_database(tmp_path: Path) -> None:
    """PicoClaw's JSONL is followed record by record; its seahorse database is read whole,
    whether the format is detected or named (it was refused as binary data in a JSONL)."""
    from tests.importers.test_picoclaw import _seahorse

    path = tmp_path / "seahorse.db"
    _seahorse(path)
    for format in (None, "picoclaw"):
        watcher = SessionWatcher(path, format, clock=_later())
        session = watcher.poll()
        assert watcher.error is None, watcher.error
        assert session is not None and session.meta.format == "picoclaw"
        assert session.messages
