"""Ctrl+C on ``ctxtui tune``: a clean stop, the document over what finished, exit 130."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "sample_sessions" / "claude_code_replay.jsonl"
SESSIONS = 2000  # a minute of work at the least: the interrupt always lands mid-run


@pytest.mark.slow
@pytest.mark.parametrize(
    ("workers", "signum"),
    [("1", signal.SIGINT), ("2", signal.SIGINT), ("2", signal.SIGTERM)],
    ids=["1-INT", "2-INT", "2-TERM"],
)
def test_ctrl_c_prints_the_document_over_what_finished(
    tmp_path: Path, workers: str, signum: signal.Signals
) -> None:
    """Exit 128 + the signal, as ``fleet`` and ``report`` exit: 130 for Ctrl+C, 143 for
    SIGTERM."""
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    for n in range(SESSIONS):  # far more than finish before the interrupt
        os.link(SAMPLE, sessions / f"s{n:03d}.jsonl")
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO),
        "CTXTUI_CACHE_DIR": str(tmp_path / "cache"),
        "HOME": str(tmp_path),
    }
    argv = [sys.executable, "-m", "ctxtui", "tune", "--agent", "claude-code", "--json"]
    proc = subprocess.Popen(
        [*argv, "--workers", workers, str(sessions)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    time.sleep(4)  # start-up, and some sessions replayed
    proc.send_signal(signum)
    out, err = proc.communicate(timeout=120)  # the pool stops after its running sessions
    assert proc.returncode == 128 + signum, err.decode()
    doc = json.loads(out)
    assert doc["interrupted"] is True
    assert len(doc["sessions"]) < SESSIONS
    assert "Traceback" not in err.decode()
    assert f"interrupted; {len(doc['sessions']):,} sessions scored" in err.decode()
