"""Bench sections ``watch`` and ``listing`` (issue #25, items 12 and 14).

``watch``: first, in this process, Claude Code transcripts of 4, 16 and 64 MB are watched
(``SessionWatcher``) and grown by 100 records (~100 KB) at a time: the read of an append is
timed against ``json.loads`` of the same lines (the cheapest way to read them at all, timed in
the same run), and the 64 MB file's append against the 4 MB file's (flat: target 1.5 for 16x
the file). Then a child process watches a JSONL file as ``--watch`` does (a poll every 0.25 s)
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
    """One Claude Code record of about 1 KB, chained to the one before."""
    role = "assistant" if i % 2 else "user"
    message: dict[str, object] = {"role": role, "content": f"message {i} " + "x" * 800}
    if role == "assistant":
        message |= {"id": f"msg_{i}", "model": "claude-sonnet-4", "usage": {"input_tokens": i}}
    value = {
        "type": role,
        "uuid": f"u{i}",
        "parentUuid": f"u{i - 1}" if i else None,
        "sessionId": "bench",
        "timestamp": f"2025-01-01T{i // 3_600_000 % 24:02d}:{i // 60_000 % 60:02d}:"
        f"{i // 1000 % 60:02d}.{i % 1000:03d}Z",
        "message": message,
    }
    return json.dumps(value) + "\n"


def _write_transcript(path: Path, megabytes: int) -> int:
    """A Claude Code transcript of about ``megabytes``; the number of records written."""
    count = 0
    with path.open("w", encoding="utf-8") as fh:
        while fh.tell() < megabytes * 2**20:
            fh.write(_record(count))
            count += 1
    return count


def _append_reads(
    sizes: tuple[int, ...], rounds: int, per_append: int
) -> dict[int, tuple[float, float, int]]:
    """Per file size: median seconds of a watcher's read of an append of ``per_append``
    records, of ``json.loads`` of the same lines, and the file's final size.

    The files are watched side by side and appended to in turn, round after round, so a
    busy moment of the machine falls on every size alike.
    """
    import gc
    import os
    import statistics

    from ctxtui.importers.watch import SessionWatcher

    with tempfile.TemporaryDirectory(prefix="ctxtui-bench-watch-") as tmp:
        files = {mb: Path(tmp) / f"live-{mb}.jsonl" for mb in sizes}
        counts = {mb: _write_transcript(path, mb) for mb, path in files.items()}
        watchers = {mb: SessionWatcher(path, clock=lambda: 0.0) for mb, path in files.items()}
        sessions = {mb: watcher.poll() for mb, watcher in watchers.items()}
        if any(session is None for session in sessions.values()):
            raise RuntimeError("a watcher read nothing")
        gc.collect()
        gc.freeze()  # as a shell does with an open session (ctxtui.system.heap)
        reads: dict[int, list[float]] = {mb: [] for mb in sizes}
        loads: dict[int, list[float]] = {mb: [] for mb in sizes}
        try:
            for _ in range(rounds):
                for mb, path in files.items():
                    first = counts[mb]
                    lines = [_record(i) for i in range(first, first + per_append)]
                    counts[mb] += per_append
                    with path.open("a", encoding="utf-8") as fh:
                        fh.write("".join(lines))
                    st = path.stat()  # a write in the same clock tick must look like a change
                    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
                    start = time.perf_counter()
                    read = watchers[mb].poll()
                    reads[mb].append(time.perf_counter() - start)
                    sessions[mb] = read  # the last session is let go after the clock stopped
                    if read is None or len(read.messages) != counts[mb]:
                        raise RuntimeError("the append was not read")
                    start = time.perf_counter()
                    for line in lines:
                        json.loads(line)
                    loads[mb].append(time.perf_counter() - start)
        finally:
            gc.unfreeze()
        return {
            mb: (statistics.median(reads[mb]), statistics.median(loads[mb]), path.stat().st_size)
            for mb, path in files.items()
        }


def watch_flat(sizes: tuple[int, ...] = (4, 16, 64), rounds: int = 15) -> list[Result]:
    """The read of an append against ``json.loads`` of its lines, and across file sizes."""
    per_append = 200
    measured = _append_reads(sizes, rounds, per_append)
    results = [
        Result(
            "watch", f"{mb} MB file", f"read of a {per_append}-record append", read,
            "json.loads of its lines", loads, "s", None,
            f"median of {rounds}; {size / 2**20:.0f} MB of ~1 KB Claude Code records",
        )
        for mb, (read, loads, size) in measured.items()
    ]  # fmt: skip
    small, big = min(sizes), max(sizes)
    results.append(
        Result(
            "watch", f"{big} MB / {small} MB file", f"append read at {big} MB",
            measured[big][0], f"at {small} MB", measured[small][0], "s", 1.5,
            f"flat: the file {big // small}x larger, the same {per_append} records appended",
        )
    )  # fmt: skip
    return results


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
            blocks: list[bytes] = []  # each record its own (a repeated uuid is ignored)
            while sum(map(len, blocks)) < megabytes * 2**20:
                first = 1 + 1000 * len(blocks)
                block = "".join(_record(i) for i in range(first, first + 1000)).encode()
                blocks.append(b"x" * len(block) if one_line else block)
            start = time.perf_counter()
            with path.open("ab") as fh:
                if one_line:
                    fh.write(b'{"type": "user", "message": {"role": "user", "content": "')
                written = 0
                for block in blocks:
                    fh.write(block)
                    fh.flush()
                    written += len(block)
                    time.sleep(max(0.0, start + written / _RATE - time.perf_counter()))
                if one_line:
                    fh.write(b'"}}\n')
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
