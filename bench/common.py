"""Timing helpers and the result record every benchmark returns, ratios first.

The machine is shared, so absolute seconds mean little: each figure is a subject timed
interleaved with its baseline in the same run, and the median of the repeats is kept.
"""

from __future__ import annotations

import gc
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from bench.generate import write_session

OUT = Path(__file__).resolve().parent / "out"
SIZES = (1_000, 10_000, 100_000)


@dataclass(frozen=True)
class Result:
    """One figure: subject over baseline (both medians), and the target it answers to."""

    section: str
    size: str
    subject: str
    subject_value: float
    baseline: str
    baseline_value: float
    unit: str = "s"
    target: float | None = None
    """The ratio must be at most this; ``None`` for reported-only figures."""
    note: str = ""

    @property
    def ratio(self) -> float:
        return self.subject_value / self.baseline_value if self.baseline_value else float("inf")

    @property
    def met(self) -> bool | None:
        return None if self.target is None else self.ratio <= self.target

    def verdict(self) -> str:
        if self.met is None:
            return "reported"
        return "met" if self.met else "MISSED"

    def line(self) -> str:
        target = f"≤ {self.target:g}" if self.target is not None else "—"
        return (
            f"[{self.section}] {self.size}: {self.subject} {fmt(self.subject_value, self.unit)}"
            f" / {self.baseline} {fmt(self.baseline_value, self.unit)}"
            f" = {self.ratio:.3f} (target {target}: {self.verdict()})"
            + (f"  {self.note}" if self.note else "")
        )


def fmt(value: float, unit: str) -> str:
    """Seconds as ms below one second; other units as given."""
    if unit == "s":
        return f"{value * 1000:.1f} ms" if value < 1 else f"{value:.2f} s"
    if unit == "MB":
        return f"{value:.1f} MB"
    return f"{value:g} {unit}"


def timed(fn: Callable[[], object]) -> float:
    """Seconds for one call, with the collector run before (not during) the call."""
    gc.collect()
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def paired(
    subject: Callable[[], object], baseline: Callable[[], object], repeats: int
) -> tuple[float, float]:
    """Medians of ``subject`` and ``baseline``, run alternately so noise hits both alike."""
    s: list[float] = []
    b: list[float] = []
    for _ in range(max(1, repeats)):
        b.append(timed(baseline))
        s.append(timed(subject))
    return statistics.median(s), statistics.median(b)


def session_file(size: int) -> Path:
    """The generated OpenAI-chat session of ``size`` messages (written once, then reused)."""
    return write_session(OUT / f"openai-{size}.json", size)


def label(size: int) -> str:
    return (
        f"{size // 1_000_000}M"
        if size >= 1_000_000
        else f"{size // 1000}k"
        if size >= 1000
        else str(size)
    )


_LAUNCHER = (
    "import os, subprocess, sys, time\n"
    "start = time.perf_counter()\n"
    "proc = subprocess.Popen(sys.argv[2:])\n"
    "_, status, usage = os.wait4(proc.pid, 0)\n"
    "wall = time.perf_counter() - start\n"
    "with open(sys.argv[1], 'w') as f:\n"
    "    f.write(f'{wall} {usage.ru_maxrss} {os.waitstatus_to_exitcode(status)}')\n"
)


def run_child(args: Sequence[str], env: dict[str, str] | None = None) -> tuple[float, int, str]:
    """Run ``python args…``; wall seconds, the child's own peak RSS in KiB, and its stdout.

    The child is started by a small launcher that reads its rusage with ``os.wait4`` (the
    ``RUSAGE_CHILDREN`` figure of that one child). Linux carries the *parent's* RSS into a
    child's ``ru_maxrss`` across fork+exec, so spawning straight from this (large) process
    would report at least this process's size; the launcher is ~10 MB, below any figure here.
    """
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "rusage"
        proc = subprocess.run(
            [sys.executable, "-c", _LAUNCHER, str(report), sys.executable, *args],
            capture_output=True,
            env=env,
            cwd=Path(__file__).resolve().parent.parent,
            check=False,
        )
        wall, maxrss, code = report.read_text().split()
    if int(code):
        raise RuntimeError(f"{' '.join(args)} failed ({code}): {proc.stderr.decode()[-800:]}")
    return float(wall), int(maxrss), proc.stdout.decode()


def machine() -> dict[str, str]:
    """What the figures were measured on."""
    model = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "nproc": str(os.cpu_count()),
        "cpu": model,
        "python": platform.python_version(),
        "platform": platform.platform(),
    }
