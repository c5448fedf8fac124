"""``ctxtui compact --summarizer openai`` as a real process against hostile servers.

Each mode must end within the stated time (each attempt bounded by ``--llm-timeout``, a call
with its retry by twice that), at most 300 MB peak RSS, with one line on stderr and exit 2.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time

import pytest

from ctxtui.samples import samples_dir
from tests.llm.hostile import hostile

SESSION = samples_dir() / "coding_agent_overflow.json"
SMALL = ["--context-window", "32768", "--max-tokens", "4096"]
TIMEOUT = 1.0
MAX_RSS_KB = 300 * 1024


def run_compact(url: str, *extra: str) -> tuple[int, str, str, int]:
    """Exit code, stdout, stderr and peak RSS (KB, from the kernel) of one ``compact`` run."""
    argv = [
        sys.executable, "-m", "ctxtui", "compact", str(SESSION), *SMALL,
        "--summarizer", "openai", "--llm-base-url", url, "--llm-model", "m",
        "--llm-timeout", str(TIMEOUT), *extra,
    ]  # fmt: skip
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(argv, stdout=out, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        texts = out.read().decode(), err.read().decode()
    return proc.returncode, *texts, usage.ru_maxrss


@pytest.mark.parametrize(
    ("mode", "words"),
    [
        ("huge-json", "passed 8,192 KB"),
        ("gzip-bomb", "passed 8,192 KB"),
        ("endless", "passed 256 KB of text"),
        ("endless-empty", "passed 8,192 KB"),
        ("endless-line", "stream line over"),
        ("huge-error", "HTTP 500"),
        ("drip-body", f"within {TIMEOUT:g} s"),
        ("drip-headers", f"within {TIMEOUT:g} s"),
        ("hang", f"within {TIMEOUT:g} s"),
    ],
)
def test_a_hostile_server_costs_one_line_exit_2_bounded_time_and_memory(
    mode: str, words: str
) -> None:
    with hostile(mode) as (url, log):
        started = time.monotonic()
        code, _out, err, rss = run_compact(url)
        elapsed = time.monotonic() - started
    assert code == 2, err
    assert rss <= MAX_RSS_KB, f"{rss // 1024} MB"
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "LLM summary failed" in lines[0] and words in lines[0], lines[0]
    assert log.opened and (held := log.held()) <= 2 * TIMEOUT + 0.5, (held, err)
    assert elapsed < 30


def test_escapes_in_the_summary_never_reach_stdout_raw() -> None:
    with hostile("escapes") as (url, _):
        _code, out, err, _ = run_compact(url, "--preview")
    assert "\x1b" not in out and "\x07" not in out
    assert "\x1b" not in err and "\x07" not in err
    assert "␛]52;c;ZXZpbA==␇" in out  # shown, literally


def test_escapes_in_an_error_body_never_reach_stderr_raw() -> None:
    with hostile("escapes-error") as (url, _):
        code, _out, err, _ = run_compact(url)
    assert code == 2
    assert "\x1b" not in err and "\x07" not in err
    assert "HTTP 400" in err and "␛]52" in err
