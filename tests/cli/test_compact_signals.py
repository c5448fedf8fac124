"""``ctxtui compact -o`` killed mid-write leaves the old output and no temp file (issue 9,
item 4), through the command a user runs rather than the core's writer alone."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from ctxtui.system.output import TEMP_MARKER
from tests.cli.chats import agent_chat

_SLOW_COMPACT = """
import os, sys, time
from ctxtui.cli.main import main

def stall(fd):
    print("writing", flush=True)
    time.sleep(30)

os.fsync = stall  # the compacted session is in the temp file; hold it there
sys.exit(main(["compact", sys.argv[1], "-o", sys.argv[2], "--force"]))
"""


@pytest.mark.parametrize(
    "signum",
    [
        signal.SIGTERM,
        signal.SIGINT,
        signal.SIGQUIT,
        signal.SIGUSR1,
        signal.SIGUSR2,
        signal.SIGALRM,
        signal.SIGPWR,
        signal.SIGRTMIN,
    ],
    ids=lambda n: signal.Signals(n).name if n in iter(signal.Signals) else str(n),
)
def test_a_signal_during_compact_output_leaves_no_temp_file(tmp_path: Path, signum: int) -> None:
    source = tmp_path / "chat.json"
    source.write_text(json.dumps(agent_chat(40, ask="ask {k}", reply="done {k}", tool_chars=3_000)))
    out = tmp_path / "out.json"
    out.write_text("old")
    before = source.read_bytes()
    proc = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(_SLOW_COMPACT), str(source), str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    lines = iter(proc.stdout.readline, "")  # compact prints its figures before it writes
    assert "writing\n" in lines
    assert any(TEMP_MARKER in p.name for p in tmp_path.iterdir())
    proc.send_signal(signum)
    proc.wait(timeout=20)
    assert proc.returncode != 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["chat.json", "out.json"]
    assert out.read_text() == "old"
    assert source.read_bytes() == before
