"""The console script leaves with ``os._exit`` after ``main``: output and exit handlers must
survive that (``ctxtui.cli.entry``)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SAMPLES = Path(__file__).resolve().parents[2] / "sample_sessions"

CHILD = """
import atexit, sys
atexit.register(lambda: sys.stderr.write("exit handler ran\\n"))
sys.argv = ["ctxtui", *sys.argv[1:]]
from ctxtui.cli.main import entry
entry()
"""


def _run(*args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-c", CHILD, *args], capture_output=True, timeout=120, check=False
    )


def test_a_piped_report_arrives_whole_and_exit_handlers_run() -> None:
    sample = SAMPLES / "claude_code_replay.jsonl"
    done = _run("report", "--json", str(sample))
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)  # the whole document, flushed before the fast exit
    assert report["schema"] == "ctxtui.report/1"
    assert done.stderr.decode().endswith("exit handler ran\n")


def test_a_refused_file_keeps_its_exit_code_and_its_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "notes.json"
    bad.write_text("hello")
    done = _run("report", str(bad))
    assert done.returncode == 2
    lines = done.stderr.decode().splitlines()
    assert lines[-1] == "exit handler ran" and len(lines) == 2 and "notes.json" in lines[0]


def test_the_installed_script_calls_entry() -> None:
    script = Path(sys.executable).with_name("ctxtui").read_text()
    assert "from ctxtui.cli.main import entry" in script
