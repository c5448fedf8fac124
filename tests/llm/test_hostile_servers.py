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


PEAK_AT_EXIT = (
    "import atexit, os, runpy, sys\n"
    "def peak():\n"
    "    with open('/proc/self/status') as status, open(os.environ['PEAK_FILE'], 'w') as out:\n"
    "        out.write(next(l for l in status if l.startswith('VmHWM:')).split()[1])\n"
    "atexit.register(peak)\n"
    "sys.argv[0] = 'ctxtui'\n"
    "runpy.run_module('ctxtui', run_name='__main__')\n"
)
"""Runs ctxtui and writes its own peak RSS (``VmHWM``, KB) as it exits. The kernel's ``wait4``
figure will not do: Linux carries a process's high-water mark across ``execve``, so a child of
a test worker that had grown to 700 MB reported 700 MB whatever ctxtui used."""


def run_compact(url: str, *extra: str) -> tuple[int, str, str, int]:
    """Exit code, stdout, stderr and peak RSS (KB, ctxtui's own) of one ``compact`` run."""
    argv = [
        sys.executable, "-c", PEAK_AT_EXIT, "compact", str(SESSION), *SMALL,
        "--summarizer", "openai", "--llm-base-url", url, "--llm-model", "m",
        "--llm-timeout", str(TIMEOUT), *extra,
    ]  # fmt: skip
    with (
        tempfile.TemporaryFile() as out,
        tempfile.TemporaryFile() as err,
        tempfile.TemporaryDirectory() as tmp,
    ):
        peak_file = os.path.join(tmp, "peak")
        env = {**os.environ, "PEAK_FILE": peak_file}
        code = subprocess.run(argv, stdout=out, stderr=err, env=env, check=False).returncode
        out.seek(0)
        err.seek(0)
        texts = out.read().decode(), err.read().decode()
        with open(peak_file) as peak:
            rss = int(peak.read())
    return code, *texts, rss


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
    assert 1 <= len(log.opened) <= 2, "one try and at most one retry"
    # Each mode would hold the connection for ever: a bound far past the two timeouts tells
    # that from a hang-up at the deadline on a machine of any load (speed lives in bench/).
    assert (held := log.held()) <= 2 * TIMEOUT + 10, (held, err)
    assert elapsed < 60


def test_a_stream_that_fails_prints_none_of_its_text() -> None:
    """The endless stream sends 256 KB of text before the cap stops it: none of it is printed,
    the stand-in is, and the error is the one line on stderr."""
    with hostile("endless") as (url, _):
        code, out, err, _ = run_compact(url)
    assert code == 2 and "passed 256 KB of text" in err
    assert "x" * 1000 not in out, f"{out.count('x'):,} x printed"
    assert "(the local stand-in, because the LLM call failed)" in out


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


HANGING_LOOKUP = (
    "import runpy, socket, sys, time\n"
    "real = socket.getaddrinfo\n"
    "def lookup(host, *args, **kwargs):\n"
    "    if str(host).endswith('.hangs.invalid'):\n"
    "        time.sleep(120)\n"
    "    return real(host, *args, **kwargs)\n"
    "socket.getaddrinfo = lookup\n"
    "sys.argv[0] = 'ctxtui'\n"
    "runpy.run_module('ctxtui', run_name='__main__')\n"
)
"""Runs ctxtui with a resolver that never answers for ``*.hangs.invalid``."""


def test_a_hanging_name_lookup_ends_within_the_timeout() -> None:
    """The lookup happens before there is a socket to shut: it must be bounded all the same."""
    argv = [
        sys.executable, "-c", HANGING_LOOKUP, "compact", str(SESSION), *SMALL,
        "--summarizer", "openai", "--llm-base-url", "https://api.hangs.invalid/v1",
        "--llm-model", "m", "--llm-timeout", str(TIMEOUT),
    ]  # fmt: skip
    env = {**os.environ, "OPENAI_API_KEY": "sk-test"}
    started = time.monotonic()
    done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=60, check=False)
    elapsed = time.monotonic() - started
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2, done.stderr
    assert len(lines) == 1 and f"within {TIMEOUT:g} s" in lines[0], done.stderr
    assert elapsed < 60, elapsed  # the lookup sleeps 120 s; startup under load takes a few
