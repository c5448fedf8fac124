"""A closed, full or vanished standard output or error, and ``-o`` into an agent's store: real
processes.

A closed stdout (``>&-``) or a full one (``> /dev/full``) is the environment's state, not a
bug: one line on stderr and exit 2, never a traceback or exit 3. A reader that goes away
(``| head``) is a quiet exit 0, as by convention. A stderr that loses a line costs the command
nothing of its stdout, and exit 2.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ctxtui.samples import samples_dir

DEMO = str(samples_dir() / "demo.json")
COMMANDS = [
    ["formats"],
    ["presets"],
    ["sessions"],
    ["sessions", "--json"],
    ["report", DEMO],
    ["report", "--json", DEMO],
    ["compact", DEMO],
    ["compact", DEMO, "-o", "-"],
    ["replay", DEMO],
    ["compare", DEMO],
    ["--version"],
    ["--help"],
    ["report", "--help"],
]


def _ctxtui(argv: list[str], home: Path, **kwargs: object) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")}
    return subprocess.run(  # type: ignore[call-overload, no-any-return]
        [sys.executable, "-m", "ctxtui", *argv],
        stderr=subprocess.PIPE,
        text=True,
        timeout=120,
        env=env,
        **kwargs,
    )


def _one_line_exit_2(done: subprocess.CompletedProcess[str], words: str) -> None:
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert lines and words in lines[-1], done.stderr
    if "-o" not in done.args:  # compact -o - tells its figures on stderr, then the error
        assert len(lines) == 1, done.stderr


@pytest.mark.parametrize("argv", COMMANDS, ids=" ".join)
def test_a_closed_stdout_is_one_line_and_exit_2(argv: list[str], tmp_path: Path) -> None:
    done = _ctxtui(argv, tmp_path, preexec_fn=lambda: os.close(1))
    _one_line_exit_2(done, "standard output is closed")


@pytest.mark.parametrize("argv", COMMANDS, ids=" ".join)
def test_a_full_stdout_is_one_line_and_exit_2(argv: list[str], tmp_path: Path) -> None:
    if argv[0] == "sessions" and len(argv) == 1:
        pytest.skip("with no session found, 'sessions' writes only to stderr")
    with open("/dev/full", "w") as full:
        done = _ctxtui(argv, tmp_path, stdout=full)
    _one_line_exit_2(done, "cannot write to standard output (No space left on device)")


def test_a_reader_that_goes_away_is_a_quiet_exit(tmp_path: Path) -> None:
    env = {**os.environ, "HOME": str(tmp_path)}
    writer = subprocess.Popen(
        [sys.executable, "-m", "ctxtui", "report", DEMO],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    assert writer.stdout is not None and writer.stderr is not None
    writer.stdout.read(10)
    writer.stdout.close()  # like `| head -c 10`
    err = writer.stderr.read().decode()
    assert writer.wait(timeout=60) == 0, err
    assert err == ""


@pytest.mark.parametrize(
    "store",
    [
        ".claude/projects/-work-app",
        ".codex/sessions/2026/01/01",
        ".local/share/opencode/storage",
        ".picoclaw/workspace/sessions",
    ],
)
def test_compact_never_writes_into_an_agents_store_even_with_force(
    store: str, tmp_path: Path
) -> None:
    folder = tmp_path / store
    folder.mkdir(parents=True)
    other = folder / "another-session.jsonl"
    other.write_text('{"the agent": "wrote this"}\n')
    done = _ctxtui(["compact", DEMO, "-o", str(other), "--force"], tmp_path)
    _one_line_exit_2(done, "session store")
    assert other.read_text() == '{"the agent": "wrote this"}\n'
    assert sorted(p.name for p in folder.iterdir()) == ["another-session.jsonl"]
    # and by another name: a symlink into the store
    (tmp_path / "link").symlink_to(folder)
    done = _ctxtui(["compact", DEMO, "-o", str(tmp_path / "link" / "new.json")], tmp_path)
    _one_line_exit_2(done, "session store")
    assert not (folder / "new.json").exists()


def test_report_o_never_writes_into_an_agents_store_either(tmp_path: Path) -> None:
    folder = tmp_path / ".codex" / "sessions"
    folder.mkdir(parents=True)
    other = folder / "rollout-x.jsonl"
    other.write_text("{}\n")
    done = _ctxtui(["report", DEMO, "--json", "-o", str(other), "--force"], tmp_path)
    _one_line_exit_2(done, "refusing to write inside Codex's session store")
    assert other.read_text() == "{}\n"


def test_a_closed_stderr_sends_nothing_to_stdout_and_no_file_takes_its_place(
    tmp_path: Path,
) -> None:
    out = tmp_path / "out.json"
    done = subprocess.run(
        [sys.executable, "-m", "ctxtui", "report", str(tmp_path / "missing.json")],
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=lambda: os.close(2),
    )
    assert done.returncode == 2 and done.stdout == ""  # the error line is not on stdout
    done = subprocess.run(
        [sys.executable, "-m", "ctxtui", "compact", DEMO, "-o", str(out)],
        stdout=subprocess.DEVNULL,
        timeout=60,
        preexec_fn=lambda: os.close(2),
    )
    assert done.returncode == 0 and out.read_bytes().startswith(b"{")


def _stderr_gone() -> int:
    """The write end of a pipe whose reader is already gone (``2>&1 >out | true``)."""
    read, write = os.pipe()
    os.close(read)
    return write


def _stderr_full() -> int:
    return os.open("/dev/full", os.O_WRONLY)


def _whole_document() -> bytes:
    """What ``compact DEMO -o -`` writes to a stdout that takes it all."""
    return subprocess.run(
        [sys.executable, "-m", "ctxtui", "compact", DEMO, "-o", "-"],
        capture_output=True,
        check=True,
        timeout=60,
    ).stdout


def _compact_into(stdout: Any, stderr: int, *args: str) -> int:
    """``compact DEMO *args`` with these streams; its exit code. ``stderr`` is closed after."""
    try:
        cmd = [sys.executable, "-m", "ctxtui", "compact", DEMO, *args]
        return subprocess.run(cmd, stdout=stdout, stderr=stderr, timeout=60).returncode
    finally:
        os.close(stderr)


@pytest.mark.parametrize("stderr", [_stderr_gone, _stderr_full], ids=["gone", "full"])
def test_a_lost_stderr_keeps_stdout_whole_and_exits_2(
    stderr: Callable[[], int], tmp_path: Path
) -> None:
    """``compact -o -``'s lines go to stderr; one that cannot be written must neither end the
    command before its document (it left an empty file) nor let it exit 0."""
    whole = _whole_document()
    out = tmp_path / "out.json"
    with out.open("wb") as sink:
        assert _compact_into(sink, stderr(), "-o", "-") == 2
    assert out.read_bytes() == whole


def test_a_closed_stderr_that_was_written_to_is_exit_2(tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    with out.open("wb") as sink:
        done = subprocess.run(
            [sys.executable, "-m", "ctxtui", "compact", DEMO, "-o", "-"],
            stdout=sink,
            timeout=60,
            preexec_fn=lambda: os.close(2),
        )
    assert done.returncode == 2 and json.loads(out.read_bytes())["schema"] == "ctxtui.session/1"


def test_a_lost_stderr_that_was_not_written_to_is_exit_0(tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    assert _compact_into(subprocess.DEVNULL, _stderr_gone(), "-o", str(out)) == 0
    assert out.read_bytes().startswith(b"{")


def test_stderr_on_stdouts_pipe_keeps_the_quiet_exit_of_a_reader_gone() -> None:
    """``2>&1 | head``: the one reader had enough of both; stdout's convention stands."""
    fd = _stderr_gone()
    assert _compact_into(fd, fd, "-o", "-") == 0


def _full_nonblocking_pipe() -> tuple[int, int]:
    """A pipe whose write end is non-blocking and already full: (read end, write end)."""
    import fcntl

    read, write = os.pipe()
    fcntl.fcntl(write, fcntl.F_SETFL, fcntl.fcntl(write, fcntl.F_GETFL) | os.O_NONBLOCK)
    with contextlib.suppress(BlockingIOError):
        while True:
            os.write(write, b"x" * 4096)
    with contextlib.suppress(BlockingIOError):
        while True:
            os.write(write, b"x")
    return read, write


def test_a_full_nonblocking_stderr_drops_its_lines_and_keeps_stdout_whole(
    tmp_path: Path,
) -> None:
    """A line to a non-blocking stderr that would block raised BlockingIOError through the
    buffer: no document on stdout, exit 120."""
    whole = _whole_document()
    read, write = _full_nonblocking_pipe()
    out = tmp_path / "out.json"
    try:
        with out.open("wb") as sink:
            assert _compact_into(sink, write, "-o", "-") == 2
    finally:
        os.close(read)
    assert out.read_bytes() == whole


def test_a_full_nonblocking_stdout_is_waited_on_and_written_whole() -> None:
    """The same on stdout ended in an internal error (exit 3): ``FileIO.write`` returns None
    for a full non-blocking pipe, and the buffer raised BlockingIOError. The guarded stdout
    waits for room, as a blocking descriptor does, and writes every byte."""
    import threading
    import time

    from ctxtui.system.streams import _GuardedRaw

    read, write = _full_nonblocking_pipe()
    got: list[bytes] = []

    def drain_later() -> None:
        time.sleep(0.2)  # the write below meets a full pipe first, whatever the timing
        with os.fdopen(read, "rb") as fh:
            got.append(fh.read())

    reader = threading.Thread(target=drain_later)
    reader.start()
    raw = _GuardedRaw(write, "w", closefd=True)
    try:
        assert raw.write(b"the document") == len(b"the document")
    finally:
        raw.close()
    reader.join(timeout=60)
    assert got[0].lstrip(b"x") == b"the document"
