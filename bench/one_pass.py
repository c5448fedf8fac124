"""Issue #35's figures (``[pass]``): what the user waits for, against the least a reader does.

The baseline is a ``python -c`` process that reads the file line by line with ``json.loads``;
each subject is a whole ``ctxtui`` process (start-up and imports included), timed alternately
with it. On a generated 64 MB Claude Code session (sub-agents beside it, recorded compactions,
split responses, 1-hour and 5-minute cache writes) and a 30 MB Codex rollout:

* ``fleet --no-simulate --no-cache FILE`` and ``report --json FILE`` (≤ 1.0 Claude / ≤ 1.5
  Codex), ``replay --json FILE`` (≤ 2.0 / ≤ 3.0, every audit included);
* the message list's first row on a 120×40 terminal (tmux), ≤ 1.5× the baseline (64 MB);
* ``--watch``: reading 1 MB appended to the 64 MB file, ≤ 0.1× the CPU of the first read
  (the importers' watcher, in a child process);
* the fleet index after 1 MB was appended: the warm run's extra time, ≤ 0.1× a cold run;
* where ccusage is on ``PATH`` (or in ``$CCUSAGE``): report and replay against ``ccusage claude
  session --json --offline`` and ``ccusage codex session --json --offline`` (≤ 1.0, ≤ 2.0).

* ``fleet`` cold over 1,000 generated sessions (``bench/fleet.py: fleet_dir``) against the
  sum of each file's baseline process, divided by the cores (≤ 1.2).
"""

from __future__ import annotations

import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import bench.common
from bench.common import Result, run_child
from bench.fleet import REPO, ccusage, fleet_dir, process_wall, write_transcript

SECTION = "pass"
SEED = 35
SUBAGENTS = 3
SUBAGENT_MB = 0.5
APPEND_MB = 1.0
BASELINE = (
    "import json, sys\n"
    "with open(sys.argv[1], 'rb') as f:\n"
    "    for line in f:\n"
    "        if line.strip():\n"
    "            json.loads(line)\n"
)
TARGETS = {
    # (agent): (fleet, report, replay)
    "claude-code": (1.0, 1.0, 2.0),
    "codex": (1.5, 1.5, 3.0),
}
FIRST_ROW = re.compile(r"^\s*0 (user|asst|tool|sys\w*)\b", re.MULTILINE)
"""The message list's first row as tmux shows it: index 0, then the role."""
FIRST_ROW_TIMEOUT = 300.0


def transcripts(claude_mb: float, codex_mb: float) -> dict[str, tuple[Path, float]]:
    """The two transcripts (written once into ``bench/out``), a Claude Code one with
    ``SUBAGENTS`` sub-agent files in its ``<stem>/subagents`` directory."""
    out = bench.common.OUT / "pass"
    found: dict[str, tuple[Path, float]] = {}
    for agent, megabytes in (("claude-code", claude_mb), ("codex", codex_mb)):
        path = out / f"{agent}-{megabytes:g}mb-{SEED}.jsonl"
        if not path.exists():
            write_transcript(agent, megabytes, SEED, path, shaped=True)
        if agent == "claude-code":
            subs = path.parent / path.stem / "subagents"
            for k in range(SUBAGENTS):
                sub = subs / f"agent-{k:04d}.jsonl"
                if not sub.exists():  # a tiny run (the smoke test) gets tiny sub-agents
                    size = min(SUBAGENT_MB, megabytes / 8)
                    write_transcript(agent, size, SEED + 1 + k, sub, shaped=True)
        found[agent] = (path, megabytes)
    return found


def _env(cache: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["CTXTUI_CACHE_DIR"] = str(cache)
    env["PYTHONPATH"] = str(REPO)
    return env


def _wall(args: list[str], env: dict[str, str]) -> float:
    return run_child(args, env)[0]


def _paired(
    subject: Callable[[], float], baseline: Callable[[], float], repeats: int
) -> tuple[float, float]:
    """Medians of two whole processes, run alternately so the machine's noise hits both."""
    s: list[float] = []
    b: list[float] = []
    for _ in range(max(1, repeats)):
        b.append(baseline())
        s.append(subject())
    return statistics.median(s), statistics.median(b)


def commands(
    agent: str, transcript: tuple[Path, float], repeats: int, cache: Path, smoke: bool = False
) -> tuple[list[Result], dict[str, float]]:
    """fleet, report and replay of the ``transcript`` (its path and megabytes, as
    ``transcripts`` gives it) against the json.loads process (``smoke``: report only); also
    each command's median."""
    path, megabytes = transcript
    env = _env(cache)
    size = f"{agent} {megabytes:g} MB"
    targets = dict(zip(("fleet", "report", "replay"), TARGETS[agent], strict=True))
    argv = {
        "fleet": ["fleet", "--no-simulate", "--no-cache", "--json", str(path)],
        "report": ["report", "--json", str(path)],
        "replay": ["replay", "--json", str(path)],
    }
    baseline = ["-c", BASELINE, str(path)]
    out: list[Result] = []
    medians: dict[str, float] = {}
    for name, args in argv.items():
        if smoke and name != "report":
            continue
        subject, base = _paired(
            lambda a=args: _wall(["-m", "ctxtui", *a], env), lambda: _wall(baseline, env), repeats
        )
        medians[name] = subject
        shown = " ".join(args[:-1])
        out.append(
            Result(SECTION, size, shown, subject, "json.loads process", base, target=targets[name])
        )
    return out, medians


def _first_row_once(path: Path, env: dict[str, str]) -> float:
    """Seconds from starting the app in a 120×40 tmux window to its first message row."""
    name = f"ctxtui-bench-{os.getpid()}"
    command = " ".join(
        [
            f"env CTXTUI_CACHE_DIR={env['CTXTUI_CACHE_DIR']} PYTHONPATH={REPO}",
            sys.executable,
            "-m ctxtui",
            str(path),
        ]
    )
    start = time.perf_counter()
    subprocess.run(
        ["tmux", "new-session", "-d", "-s", name, "-x", "120", "-y", "40", command], check=True
    )
    try:
        while time.perf_counter() - start < FIRST_ROW_TIMEOUT:
            shown = subprocess.run(
                ["tmux", "capture-pane", "-p", "-t", name], capture_output=True, check=False
            ).stdout.decode(errors="replace")
            if FIRST_ROW.search(shown):
                return time.perf_counter() - start
            time.sleep(0.02)
        raise RuntimeError(f"no message row on screen after {FIRST_ROW_TIMEOUT:g} s")
    finally:
        _end_session(name)


def _end_session(name: str) -> None:
    """Kill tmux session ``name`` and wait until the app in it has exited: one still reading
    its file after the kill (a worker ends its read first) would share the cores with the
    next measurement."""
    panes = subprocess.run(
        ["tmux", "list-panes", "-t", name, "-F", "#{pane_pid}"], capture_output=True, check=False
    ).stdout.split()
    subprocess.run(["tmux", "kill-session", "-t", name], capture_output=True, check=False)
    deadline = time.monotonic() + 30.0
    for pid in (int(p) for p in panes):
        while time.monotonic() < deadline:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.02)


def first_row(path: Path, megabytes: float, repeats: int, cache: Path) -> list[Result]:
    """The message list's first row against the json.loads process (tmux, 120×40)."""
    if shutil.which("tmux") is None:
        print(f"[{SECTION}] first row: skipped (tmux is not on PATH)")
        return []
    env = _env(cache)
    subject, base = _paired(
        lambda: _first_row_once(path, env),
        lambda: _wall(["-c", BASELINE, str(path)], env),
        repeats,
    )
    return [
        Result(SECTION, f"claude-code {megabytes:g} MB", "first row at 120x40", subject,
               "json.loads process", base, target=1.5,
               note="from the tmux window's start to the row on screen"),
    ]  # fmt: skip


# What the app pays per append under --watch: the session read on (``poll``) and, once the
# agent pauses, its full history read on (``history``); the open pays both whole.
_WATCH = (
    "import sys, time\n"
    "from ctxtui.importers.watch import SessionWatcher\n"
    "path, tail = sys.argv[1], sys.argv[2]\n"
    "w = SessionWatcher(path, None, clock=lambda: 0.0)  # a still clock: no pacing\n"
    "t = time.process_time(); assert w.poll() is not None; w.history()\n"
    "first = time.process_time() - t\n"
    "with open(path, 'ab') as out, open(tail, 'rb') as more: out.write(more.read())\n"
    "t = time.process_time(); grown = w.poll(); w.history(); again = time.process_time() - t\n"
    "assert grown is not None\n"
    "print(first, again)\n"
)


def _split(path: Path, extra_mb: float, into: Path) -> tuple[Path, Path]:
    """``path`` and the ``extra_mb`` of records that would follow it (a longer transcript
    of the same seed, cut at a line end): the copy to grow and what to append."""
    whole = path.read_bytes()
    cut = whole.rfind(b"\n", 0, len(whole) - int(extra_mb * 1024 * 1024)) + 1
    head, tail = into / path.name, into / "appended.jsonl"
    head.write_bytes(whole[:cut])
    tail.write_bytes(whole[cut:])
    return head, tail


def appended(path: Path, megabytes: float, repeats: int) -> list[Result]:
    """``--watch`` and the fleet index after ``APPEND_MB`` was appended (a quarter of a
    smaller file)."""
    grow = min(APPEND_MB, megabytes / 4)
    size = f"claude-code {megabytes - grow:g} MB + {grow:g} MB"
    watch_cpu: list[tuple[float, float]] = []
    extra: list[float] = []
    colds: list[float] = []
    for _ in range(max(1, repeats)):
        with tempfile.TemporaryDirectory(prefix="ctxtui-bench-pass-") as tmp:
            root = Path(tmp)
            head, tail = _split(path, grow, root)
            env = _env(root / "cache")
            stdout = run_child(["-c", _WATCH, str(head), str(tail)], env)[2]
            first, again = (float(x) for x in stdout.split())
            watch_cpu.append((again, first))
            head, tail = _split(path, grow, root)  # again, for the fleet
            fleet = ["-m", "ctxtui", "fleet", "--no-simulate", "--json", str(head)]
            cold = _wall(fleet, env)
            warm = _wall(fleet, env)
            with head.open("ab") as out:
                out.write(tail.read_bytes())
            grown = _wall(fleet, env)
            colds.append(cold)
            extra.append(max(0.0, grown - warm))
    again = statistics.median(a for a, _ in watch_cpu)
    first = statistics.median(f for _, f in watch_cpu)
    return [
        Result(SECTION, size, "--watch: CPU of the append", again, "CPU of the open", first,
               target=0.1),
        Result(SECTION, size, "warm fleet: extra after the append", statistics.median(extra),
               "cold fleet", statistics.median(colds), target=0.1),
    ]  # fmt: skip


def fleet_cold(count: int, megabytes: float) -> list[Result]:
    """A cold ``fleet`` over ``count`` sessions against Σ of their baseline processes ÷ the
    cores (each distinct file's baseline timed once: the copies are the same bytes)."""
    directory = fleet_dir(count, megabytes)
    files = sorted(directory.glob("*.jsonl"))
    by_inode: dict[int, float] = {}
    total = 0.0
    for f in files:
        inode = f.stat().st_ino
        if inode not in by_inode:
            by_inode[inode] = run_child(["-c", BASELINE, str(f)])[0]
        total += by_inode[inode]
    cores = os.cpu_count() or 1
    with tempfile.TemporaryDirectory(prefix="ctxtui-bench-pass-fleet-") as tmp:
        cold = _wall(["-m", "ctxtui", "fleet", "--json", str(directory)], _env(Path(tmp)))
    size = f"{count:,} sessions ({count * megabytes:,.0f} MB)"
    return [
        Result(SECTION, size, "fleet, cold index", cold, f"Σ json.loads processes / {cores}",
               total / cores, target=1.2, note=f"{len(by_inode)} distinct files timed"),
    ]  # fmt: skip


def _ccusage_home(agent: str, source: Path, root: Path) -> tuple[dict[str, str], Path]:
    """A HOME holding only ``source`` (and its sub-agents), where the agent keeps it."""
    home = root / "home"
    if agent == "claude-code":
        place = home / ".claude" / "projects" / "-work-app" / source.name
        subs = source.parent / source.stem
        if subs.is_dir():
            shutil.copytree(subs, place.parent / place.stem)
    else:
        day = home / ".codex" / "sessions" / "2026" / "03" / "02"
        place = day / "rollout-2026-03-02T09-00-00-0197c3a1-7e2b-7c4d-9f10-3a2b1c0d9e8f.jsonl"
    place.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(source, place)
    env = _env(root / "cache")
    for name in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME"):
        env.pop(name, None)
    env["HOME"] = str(home)
    return env, place


def against_ccusage(
    found: dict[str, tuple[Path, float]],
    repeats: int,
    emit: Callable[[str], None],
    smoke: bool = False,
) -> list[Result]:
    """report and replay (``smoke``: report only) against ccusage's session report of the
    same file, paired."""
    exe = ccusage()
    if exe is None:
        emit(f"[{SECTION}] ccusage: skipped (not on PATH, nor in $CCUSAGE)")
        return []
    out: list[Result] = []
    for agent, (source, megabytes) in found.items():
        with tempfile.TemporaryDirectory(prefix="ctxtui-bench-ccusage-") as tmp:
            env, place = _ccusage_home(agent, source, Path(tmp))
            which = "claude" if agent == "claude-code" else "codex"
            theirs = [exe, which, "session", "--json", "--offline"]
            ours = {
                "report --json": [sys.executable, "-m", "ctxtui", "report", "--json", str(place)],
                "replay --json": [sys.executable, "-m", "ctxtui", "replay", "--json", str(place)],
            }
            if smoke:
                del ours["replay --json"]
            times: dict[str, list[float]] = {name: [] for name in ours}
            base: list[float] = []
            for _ in range(max(1, repeats)):
                base.append(process_wall(theirs, env))
                for name, args in ours.items():
                    times[name].append(process_wall(args, env))
        them = statistics.median(base)
        label = f"ccusage {which} session"
        for name, target in (("report --json", 1.0), ("replay --json", 2.0)):
            if name not in times:
                continue
            out.append(
                Result(SECTION, f"{agent} {megabytes:g} MB", name, statistics.median(times[name]),
                       label, them, target=target)
            )  # fmt: skip
    return out


def pass_sections(
    repeats: int,
    claude_mb: float = 64,
    codex_mb: float = 30,
    emit: Callable[[str], None] = print,
    fleet: tuple[int, float] = (1000, 1.0),
) -> list[Result]:
    """Every ``[pass]`` figure; each is emitted by the caller as it is returned."""
    found = transcripts(claude_mb, codex_mb)
    smoke = claude_mb < 1  # every kind of figure once, on one agent and one command
    if smoke:
        found = {"claude-code": found["claude-code"]}
    out: list[Result] = []
    with tempfile.TemporaryDirectory(prefix="ctxtui-bench-pass-cache-") as tmp:
        cache = Path(tmp)
        for agent, transcript in found.items():
            out += commands(agent, transcript, repeats, cache, smoke)[0]
        claude, claude_size = found["claude-code"]
        out += first_row(claude, claude_size, repeats, cache)
    out += appended(claude, claude_size, repeats)
    out += against_ccusage(found, repeats, emit, smoke)
    out += fleet_cold(*fleet)
    return out
