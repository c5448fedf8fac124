"""Bench sections ``watch`` and ``listing`` (issue #25, items 12 and 14).

``watch``: a child process watches a JSONL file as ``--watch`` does (a poll every 0.25 s)
while this process appends records to it at a steady rate; the child's CPU seconds and peak
RSS are read when the appends have stopped and the last read is done. Two appends, one 5x
the other: the CPU time grows with the bytes appended (ratio target 6 for 5x), and stays a
fraction of the time the appends took.

``listing``: ``ctxtui sessions`` over an OpenCode database without an index on
``message.session_id`` (2k and 10k sessions, 5x): linear, ratio target 6.
"""

from __future__ import annotations

import json
import sqlite3
import tempfile
import time
from pathlib import Path

from bench.common import Result, run_child

_WATCHER = """
import resource, sys, time
from pathlib import Path
from ctxtui.importers.watch import SessionWatcher

path, stop = Path(sys.argv[1]), Path(sys.argv[2])
watcher = SessionWatcher(path)
reads = 0
while True:
    done = stop.exists()
    if watcher.poll() is not None:
        reads += 1
    elif done:
        break
    time.sleep(0.25)
usage = resource.getrusage(resource.RUSAGE_SELF)
print(usage.ru_utime + usage.ru_stime, reads)
"""

_RATE = 20 * 1024 * 1024
"""Bytes appended per second: an agent streaming a huge tool output, or a fast replay."""


def _record(i: int) -> str:
    return json.dumps({"role": "user" if i % 2 else "assistant", "content": "x" * 1000}) + "\n"


def _watch_once(megabytes: int, one_line: bool = False) -> tuple[float, float, int, float]:
    """CPU seconds of the watcher, seconds the appends took, its peak RSS (KiB), reads.

    ``one_line``: the bytes extend one record still being written (a huge tool output
    streamed into the transcript), finished after the last append.
    """
    import subprocess
    import sys

    with tempfile.TemporaryDirectory(prefix="ctxtui-bench-watch-") as tmp:
        path, stop = Path(tmp) / "live.jsonl", Path(tmp) / "stop"
        path.write_text(_record(0), encoding="utf-8")
        report = Path(tmp) / "out"
        with report.open("w") as out:
            child = subprocess.Popen(
                [
                    sys.executable,
                    "-c",
                    _LAUNCH,
                    sys.executable,
                    "-c",
                    _WATCHER,
                    str(path),
                    str(stop),
                ],
                stdout=out,
                cwd=Path(__file__).resolve().parent.parent,
            )
            time.sleep(1.0)  # the first read
            block = "".join(_record(i) for i in range(1000)).encode()
            if one_line:
                block = b"x" * len(block)
            start = time.perf_counter()
            with path.open("ab") as fh:
                if one_line:
                    fh.write(b'{"role": "user", "content": "')
                written = 0
                while written < megabytes * 2**20:
                    fh.write(block)
                    fh.flush()
                    written += len(block)
                    time.sleep(max(0.0, start + written / _RATE - time.perf_counter()))
                if one_line:
                    fh.write(b'"}\n')
            appending = time.perf_counter() - start
            stop.touch()
            child.wait(timeout=600)
        cpu, reads, maxrss = report.read_text().split()
    return float(cpu), appending, int(maxrss), float(reads)


_LAUNCH = (
    "import os, subprocess, sys\n"
    "proc = subprocess.Popen(sys.argv[1:], stdout=subprocess.PIPE)\n"
    "out = proc.stdout.read().decode().split()\n"
    "_, status, usage = os.wait4(proc.pid, 0)\n"
    "print(*out, usage.ru_maxrss)\n"
)


def watch_append(small_mb: int = 20, big_mb: int = 100) -> list[Result]:
    small_cpu, _, _, _ = _watch_once(small_mb)
    big_cpu, big_wall, big_rss, reads = _watch_once(big_mb)
    line_cpu, line_wall, line_rss, line_reads = _watch_once(big_mb, one_line=True)
    note = (
        f"{reads:.0f} reads while {big_mb} MB were appended in {big_wall:.1f} s; "
        f"watcher peak RSS {big_rss / 1024:.0f} MB"
    )
    line_note = (
        f"{big_mb} MB into one unfinished record: {line_reads:.0f} reads, "
        f"peak RSS {line_rss / 1024:.0f} MB"
    )
    return [
        Result(
            "watch", f"{big_mb} MB, one line", "watcher CPU", line_cpu, "append time",
            line_wall, "s", 0.5, line_note,
        ),
        Result(
            "watch", f"{big_mb} MB", "watcher CPU", big_cpu, f"{small_mb} MB", small_cpu,
            "s", 6.0, note,
        ),
        Result(
            "watch", f"{big_mb} MB", "watcher CPU", big_cpu, "append time", big_wall,
            "s", 0.5, "a fraction of one core while the file grows",
        ),
    ]  # fmt: skip


def _opencode_home(root: Path, sessions: int) -> Path:
    db = root / ".local" / "share" / "opencode" / "opencode.db"
    db.parent.mkdir(parents=True)
    con = sqlite3.connect(db)
    con.executescript(
        "CREATE TABLE session (id TEXT, directory TEXT, title TEXT, time_created INT, "
        "time_updated INT);"
        "CREATE TABLE message (id TEXT, session_id TEXT, time_created INT, data TEXT);"
    )
    con.executemany(
        "INSERT INTO session VALUES (?, '/w', 't', 1793448000000, ?)",
        ((f"ses_{i}", i) for i in range(sessions)),
    )
    con.executemany(
        "INSERT INTO message VALUES (?, ?, 1, '{}')",
        ((f"msg_{i}", f"ses_{i % sessions}") for i in range(10 * sessions)),
    )
    con.commit()
    con.close()
    return root


def listing(small: int = 2_000, big: int = 10_000) -> list[Result]:
    times: dict[int, float] = {}
    with tempfile.TemporaryDirectory(prefix="ctxtui-bench-listing-") as tmp:
        for n in (small, big):
            home = _opencode_home(Path(tmp) / str(n), n)
            env = {"HOME": str(home), "PATH": "/usr/bin:/bin", "PYTHONDONTWRITEBYTECODE": "1"}
            times[n] = min(run_child(["-m", "ctxtui", "sessions", "--json"], env)[0] for _ in "ab")
    return [
        Result(
            "listing", f"{big // 1000}k sessions", "sessions", times[big],
            f"{small // 1000}k", times[small], "s", 6.0,
            "OpenCode database without an index on message.session_id, 10 messages each",
        )
    ]  # fmt: skip
