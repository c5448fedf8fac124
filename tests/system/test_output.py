"""Safe output: protected paths by name and identity, no link replaced, umask modes, no leftovers.

Each test builds its files in ``tmp_path`` and goes through ``write_session``, the one entry
point both the CLI's ``compact -o`` and the app's export use.
"""

from __future__ import annotations

import os
import re
import signal
import stat
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from ctxtui.core.session.models import Message, Session, SessionMeta
from ctxtui.system.export import ExportError, write_session
from ctxtui.system.output import TEMP_MARKER, OutputError, atomic_write, protected_clash


def _session(source: Path | None = None) -> Session:
    return Session(
        messages=(Message(role="user", content="hello"), Message(role="assistant", content="hi")),
        meta=SessionMeta(source_path=str(source) if source else None, format="openai-chat"),
    )


@pytest.fixture
def umask() -> Iterator[object]:
    """Set the process umask inside a test and put the old one back."""
    old = os.umask(0o022)

    class Set:
        def __call__(self, mask: int) -> None:
            os.umask(mask)

    yield Set()
    os.umask(old)


# -- item 1: protected paths, after symlinks and hard links ----------------------------------


def test_a_protected_file_is_refused_by_name_link_and_hard_link(tmp_path: Path) -> None:
    meta = tmp_path / "s.meta.json"
    meta.write_text("{}")
    hard = tmp_path / "hard.json"
    os.link(meta, hard)
    soft = tmp_path / "soft.json"
    soft.symlink_to(meta)
    for target in (meta, tmp_path / "x" / ".." / "s.meta.json", hard, soft):
        (tmp_path / "x").mkdir(exist_ok=True)
        assert protected_clash(target, [meta]) == meta, target
    assert protected_clash(tmp_path / "other.json", [meta]) is None


def test_a_protected_file_that_does_not_exist_yet_is_still_refused(tmp_path: Path) -> None:
    db = tmp_path / "seahorse.db"
    db.write_bytes(b"")
    wal = tmp_path / "seahorse.db-wal"
    with pytest.raises(ExportError, match=r"refusing to overwrite .*seahorse\.db-wal"):
        write_session(_session(), wal, protected=[db, wal], force=True)
    assert not wal.exists()


def test_anything_inside_a_protected_directory_is_refused(tmp_path: Path) -> None:
    storage = tmp_path / "storage"
    (storage / "part" / "msg_1").mkdir(parents=True)
    alias = tmp_path / "alias"
    alias.symlink_to(storage)
    for target in (
        storage / "part" / "msg_1" / "prt_new.json",
        storage / "new.json",
        alias / "part" / "new.json",
    ):
        with pytest.raises(ExportError, match="refusing to write inside the source directory"):
            write_session(_session(), target, protected=[storage], force=True)
    assert sorted(p.name for p in storage.rglob("*")) == ["msg_1", "part"]
    write_session(_session(), tmp_path / "beside.json", protected=[storage])  # beside is fine


def test_a_nul_in_the_path_is_one_line_not_a_traceback(tmp_path: Path) -> None:
    with pytest.raises(ExportError, match="NUL character"):
        write_session(_session(), str(tmp_path / "a\0b.json"), protected=())


# -- item 2: never replace a symlink or a special file ---------------------------------------


def test_a_symlink_target_is_refused_even_with_force(tmp_path: Path) -> None:
    real = tmp_path / "real.json"
    real.write_text("mine")
    link = tmp_path / "link.json"
    link.symlink_to(real)
    with pytest.raises(ExportError, match="found a symbolic link"):
        write_session(_session(), link, force=True, protected=())
    assert link.is_symlink() and real.read_text() == "mine"


def test_a_dangling_symlink_is_refused_too(tmp_path: Path) -> None:
    link = tmp_path / "out.json"
    link.symlink_to(tmp_path / "nowhere.json")
    with pytest.raises(ExportError, match="found a symbolic link"):
        write_session(_session(), link, force=True, protected=())
    assert link.is_symlink() and not (tmp_path / "nowhere.json").exists()


def test_a_target_swapped_for_a_symlink_after_the_check_is_not_replaced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "out.json"
    out.write_text("old")
    real = tmp_path / "real.json"
    real.write_text("keep")
    from ctxtui.system import output

    def swap(fd: int) -> None:
        out.unlink()
        out.symlink_to(real)

    monkeypatch.setattr(output.os, "fsync", swap)
    with pytest.raises(OutputError, match="special file"):
        atomic_write(out, [b"new"])
    assert out.is_symlink() and real.read_text() == "keep"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json", "real.json"]


# -- item 3: a new file's mode is 0o666 & ~umask, never the source's -------------------------


@pytest.mark.parametrize(
    ("source_mode", "mask", "expected"),
    [(0o666, 0o077, 0o600), (0o000, 0o022, 0o644), (0o600, 0o022, 0o644), (0o644, 0o027, 0o640)],
)
def test_a_new_file_gets_the_umask_mode_not_the_sources(
    tmp_path: Path, umask: object, source_mode: int, mask: int, expected: int
) -> None:
    src = tmp_path / "src.json"
    src.write_text("{}")
    src.chmod(source_mode)
    umask(mask)  # type: ignore[operator]
    out = write_session(_session(src), tmp_path / "new.json", protected=())
    assert stat.S_IMODE(out.stat().st_mode) == expected


def test_an_overwritten_file_keeps_its_own_mode(tmp_path: Path, umask: object) -> None:
    shared = tmp_path / "shared.json"
    shared.write_text("old")
    shared.chmod(0o664)
    umask(0o077)  # type: ignore[operator]
    write_session(_session(), shared, force=True, protected=())
    assert stat.S_IMODE(shared.stat().st_mode) == 0o664


# -- item 4: the temp file never survives ----------------------------------------------------


@pytest.mark.parametrize("error", [KeyboardInterrupt, RuntimeError, MemoryError])
def test_an_interrupted_write_removes_its_temp_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, error: type[BaseException]
) -> None:
    out = tmp_path / "out.json"
    out.write_text("old")

    def interrupted(fd: int) -> None:
        raise error

    monkeypatch.setattr(os, "fsync", interrupted)
    with pytest.raises(error):
        write_session(_session(), out, force=True, protected=())
    assert out.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["out.json"]


def test_an_exception_between_chunks_removes_the_temp_file(tmp_path: Path) -> None:
    seen: list[str] = []

    def chunks() -> Iterator[bytes]:
        yield b"x" * 1000
        seen.extend(p.name for p in tmp_path.iterdir())
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        atomic_write(tmp_path / "out.json", chunks())
    assert len(seen) == 1 and re.fullmatch(r"\.out\.json\.ctxtui-tmp-[0-9a-f]{8}", seen[0])
    assert list(tmp_path.iterdir()) == []


def test_a_very_long_name_still_gets_a_valid_temp_name(tmp_path: Path) -> None:
    out = tmp_path / ("n" * 250 + ".json")
    write_session(_session(), out, protected=())
    assert [p.name for p in tmp_path.iterdir()] == [out.name]


_SLOW_WRITER = """
import os, sys, time
from pathlib import Path
from ctxtui.system.export import write_session
from ctxtui.core.session.models import Message, Session

def stall(fd):
    print("writing", flush=True)
    time.sleep(30)

os.fsync = stall  # the data is in the temp file; hold it there
session = Session(messages=(Message(role="user", content="x" * 100_000),))
write_session(session, Path(sys.argv[1]), force=True, protected=())
"""


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
def test_a_signal_during_the_write_removes_the_temp_file(tmp_path: Path, signum: int) -> None:
    out = tmp_path / "out.json"
    out.write_text("old")
    proc = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(_SLOW_WRITER), str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    assert proc.stdout.readline() == "writing\n"
    assert any(TEMP_MARKER in p.name for p in tmp_path.iterdir())
    proc.send_signal(signum)
    proc.wait(timeout=20)
    assert proc.returncode == -signum  # the process still dies by the signal it was sent
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json"]
    assert out.read_text() == "old"


_THREAD_WRITER = """
import os, sys, threading, time
from pathlib import Path
from ctxtui.system.export import write_session
from ctxtui.core.session.models import Message, Session

started = threading.Event()

def stall(fd):
    started.set()
    time.sleep(30)

os.fsync = stall
session = Session(messages=(Message(role="user", content="x"),))
worker = threading.Thread(
    target=write_session, args=(session, Path(sys.argv[1])), kwargs={"protected": ()}, daemon=True
)
worker.start()
started.wait(10)
print(sorted(p.name for p in Path(sys.argv[1]).parent.iterdir()), flush=True)
"""


def test_a_write_in_a_worker_thread_cut_short_by_exit_leaves_no_temp_file(tmp_path: Path) -> None:
    """Signal handlers belong to the main thread; a worker's temp file is removed at exit."""
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(_THREAD_WRITER), str(tmp_path / "out.json")],
        capture_output=True,
        text=True,
        timeout=20,
    )
    assert proc.returncode == 0, proc.stderr
    assert TEMP_MARKER in proc.stdout  # the write was under way when the interpreter exited
    assert list(tmp_path.iterdir()) == []
