"""Ctrl+C on ``ctxtui fleet``: a clean stop, what finished printed and kept in the index."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "sample_sessions" / "claude_code_replay.jsonl"
SESSIONS = 120


def _stored(index: Path) -> int:
    """Rows the running fleet has committed to its index (read-only: WAL lets us)."""
    if not index.exists():
        return 0
    try:
        con = sqlite3.connect(f"file:{index}?mode=ro", uri=True, timeout=1)
        try:
            return int(con.execute("SELECT count(*) FROM files").fetchone()[0])
        finally:
            con.close()
    except sqlite3.Error:
        return 0


@pytest.mark.slow
@pytest.mark.parametrize("workers", ["1", "2"])
def test_ctrl_c_prints_what_finished_and_keeps_it(tmp_path: Path, workers: str) -> None:
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    for n in range(SESSIONS):  # far more than finish before the interrupt
        os.link(SAMPLE, sessions / f"s{n:03d}.jsonl")
    env = {**os.environ, "PYTHONPATH": str(REPO), "CTXTUI_CACHE_DIR": str(tmp_path / "cache")}
    argv = [sys.executable, "-m", "ctxtui", "fleet", "--json", "--workers", workers]
    proc = subprocess.Popen(
        [*argv, str(sessions)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
    )
    index = tmp_path / "cache" / "fleet.sqlite3"
    deadline = time.monotonic() + 120
    while _stored(index) < 2 and time.monotonic() < deadline:  # some sessions finish
        time.sleep(0.2)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)  # the pool stops after its running sessions
    assert proc.returncode == 130, err.decode()
    doc = json.loads(out)
    assert doc["complete"] is False
    done = len(doc["sessions"])
    assert 0 < done < SESSIONS
    assert "Traceback" not in err.decode()
    assert f"interrupted; {done:,} of {SESSIONS} sessions done" in err.decode()
    assert _stored(index) >= done  # what finished is in the index for the next run


def test_a_pooled_fleet_exits_once_its_document_is_written(tmp_path: Path) -> None:
    """The pool's workers are joined before the CLI leaves: its exit skips the interpreter's
    own join, and a pooled run over the samples hung after printing in half the tries."""
    env = {**os.environ, "PYTHONPATH": str(REPO), "CTXTUI_CACHE_DIR": str(tmp_path / "cache")}
    argv = [sys.executable, "-m", "ctxtui", "fleet", "--json", "--no-cache", "--no-simulate"]
    for _ in range(5):  # a one-in-32 chance to miss the hang
        done = subprocess.run(
            [*argv, "--workers", "2", str(SAMPLE.parent)], capture_output=True, env=env, timeout=60
        )
        assert done.returncode == 0, done.stderr.decode()
        assert len(json.loads(done.stdout)["sessions"]) >= 10
