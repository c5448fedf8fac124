"""The fleet's figures (issue #30 item 5) and ctxtui against a usage counter.

* ``[fleet]``: ``ctxtui fleet`` over generated sessions, each run in a fresh process. Cold
  (an empty index) against the sum of ``json.loads`` over every line of the same files
  divided by the cores the pool uses; warm (the index current) against a 1 s budget and
  against the cold run; a query of the index (every row, the document built) against 200 ms.
* ``[usage]``: on one large generated Claude Code session and one Codex rollout, ``ctxtui
  fleet --no-simulate FILE`` (usage and prices, no replay) and ``ctxtui replay FILE`` against
  ccusage's session report over the same file (``ccusage session --json --offline``, the npm
  package; its path from ``$CCUSAGE`` or ``PATH``). Without ccusage the section says so.

The transcripts come from ``tools/make_replay_samples.py`` (the agents' own record shapes,
usage on every request, the agent's own compactions), grown to the size asked and kept in
``bench/out`` so that later runs reuse them.
"""

from __future__ import annotations

import importlib.util
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import bench.common
from bench.common import Result, run_child

REPO = Path(__file__).resolve().parent.parent
DISTINCT = 20
"""Distinct generated sessions; the fleet holds copies of them under other names (the index
keys by path, and every copy is read and parsed like any other file)."""
USAGE_SKIPPED = (
    "[usage] skipped: ccusage is not installed or does not run here (npm install "
    "ccusage@20.0.24, then put it on PATH or name it in $CCUSAGE)"
)
WARM_BUDGET = 1.0
QUERY_BUDGET = 0.2


def replay_samples() -> ModuleType:
    """``tools/make_replay_samples.py``, the transcripts' generator, loaded from its file."""
    spec = importlib.util.spec_from_file_location(
        "make_replay_samples", REPO / "tools" / "make_replay_samples.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while it runs
    spec.loader.exec_module(module)
    return module


def transcript(agent: str, megabytes: float, seed: int) -> Path:
    """A Claude Code session or Codex rollout of about ``megabytes`` (written once)."""
    path = bench.common.OUT / "transcripts" / f"{agent}-{megabytes:g}mb-{seed}-compact.jsonl"
    if not path.exists():
        write_transcript(agent, megabytes, seed, path)
    return path


SHAPED_COMPACT_AT = {"claude-code": 134_000, "codex": 114_000}
"""Prompt tokens at which a shaped transcript's agent compacts: about one recorded compaction
per 1.5 MB of Claude Code (about 40 in 64 MB) and per MB of Codex (30 in 30 MB); the samples'
own thresholds compact every ~140 KB."""
PAUSE_EVERY = 40
"""A shaped session's turns between two pauses of the user (past the 5-minute lifetime)."""


def _split_writes(lines: list[dict[str, object]], rng: random.Random) -> None:
    """Each response's cache write split between Anthropic's 1-hour and 5-minute lifetimes,
    as Claude Code writes them (the two lines of a split response share one usage)."""
    seen: set[int] = set()
    for line in lines:
        message = line.get("message")
        usage = message.get("usage") if isinstance(message, dict) else None
        if not isinstance(usage, dict) or id(usage) in seen or "cache_creation" in usage:
            continue
        seen.add(id(usage))
        write = int(usage.get("cache_creation_input_tokens") or 0)
        hour = write if rng.random() < 0.3 else round(write * rng.choice((0.0, 0.5, 0.8)))
        usage["cache_creation"] = {
            "ephemeral_5m_input_tokens": write - hour,
            "ephemeral_1h_input_tokens": hour,
        }


def write_transcript(
    agent: str, megabytes: float, seed: int, path: Path, *, shaped: bool = False
) -> Path:
    """Write a Claude Code session or Codex rollout of about ``megabytes`` to ``path``: the
    same seed and size always give the same bytes. ``shaped`` makes it read like a real
    session of that size: recorded compactions as often as a 200k window has them, the user's
    pauses, and (Claude Code) cache writes split between the 1-hour and 5-minute lifetimes."""
    tool = replay_samples()
    maker = tool.ClaudeCode() if agent == "claude-code" else tool.Codex()
    maker.rng.seed(seed)
    if agent == "claude-code":
        maker.session_id = f"5f1c2a9e-0d7b-4c3e-9a61-{seed:012d}"
    if shaped:
        maker.compact_at = SHAPED_COMPACT_AT[agent]
    shape = random.Random(seed + 1)
    target = int(megabytes * 1024 * 1024)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    written = 0
    turn = 0
    with tmp.open("w", encoding="utf-8") as out:
        while written < target:
            turn += 1
            if shaped and turn % PAUSE_EVERY == 0:
                maker.clock += shape.randint(340, 2_800)  # the user stepped away
            maker.turn(turn)
            if shaped and agent == "claude-code":
                _split_writes(maker.lines, shape)
            # compact, as the agents write them (ccusage only reads lines written so)
            text = "".join(_compact(line) + "\n" for line in maker.lines)
            maker.lines.clear()
            out.write(text)
            written += len(text.encode("utf-8"))
    tmp.replace(path)
    return path


def _compact(record: object) -> str:
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"))


def fleet_dir(count: int, megabytes: float) -> Path:
    """``count`` sessions, half Claude Code and half Codex, in one directory."""
    directory = bench.common.OUT / f"fleet-{count}x{megabytes:g}mb"
    done = directory / ".complete"
    if done.exists():
        return directory
    directory.mkdir(parents=True, exist_ok=True)
    sources = [
        transcript("claude-code" if k % 2 == 0 else "codex", megabytes, 100 + k)
        for k in range(min(DISTINCT, count))
    ]
    for n in range(count):
        source = sources[n % len(sources)]
        target = directory / f"{source.stem}-{n:05d}.jsonl"
        if not target.exists():
            os.link(source, target)  # the same bytes under another name
    done.write_text("")
    return directory


_PARSE_ALL = (
    "import json, sys, time, pathlib\n"
    "files = sorted(pathlib.Path(sys.argv[1]).glob('*.jsonl'))\n"
    "start = time.perf_counter()\n"
    "for f in files:\n"
    "    with f.open('rb') as fh:\n"
    "        for line in fh:\n"
    "            if line.strip():\n"
    "                json.loads(line)\n"
    "print(time.perf_counter() - start)\n"
)


def _env(cache: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["CTXTUI_CACHE_DIR"] = str(cache)
    env["PYTHONPATH"] = str(REPO)
    return env


def _fleet(directory: Path, cache: Path, *extra: str) -> float:
    wall, _, _ = run_child(["-m", "ctxtui", "fleet", "--json", str(directory), *extra], _env(cache))
    return wall


def fleet_sections(count: int, megabytes: float, repeats: int) -> list[Result]:
    """Cold and warm fleet runs, and a query of the index, each as a ratio."""
    directory = fleet_dir(count, megabytes)
    size = f"{count:,} sessions ({count * megabytes:,.0f} MB)"
    cores = os.cpu_count() or 1
    parse = statistics.median(
        float(run_child(["-c", _PARSE_ALL, str(directory)])[2]) for _ in range(max(1, repeats))
    )
    colds: list[float] = []
    warms: list[float] = []
    query = 0.0
    for _ in range(max(1, repeats)):
        with tempfile.TemporaryDirectory(prefix="ctxtui-bench-fleet-") as tmp:
            cache = Path(tmp)
            colds.append(_fleet(directory, cache))
            warms.append(_fleet(directory, cache))
            query = min(query or float("inf"), _query(cache))
    cold, warm = statistics.median(colds), statistics.median(warms)
    note = f"{cores} cores; json.loads of every line took {parse:.2f} s in one process"
    return [
        Result("fleet", size, "cold index", cold, f"json.loads / {cores} cores", parse / cores,
               target=1.2, note=note),
        Result("fleet", size, "warm index", warm, "budget", WARM_BUDGET, target=1.0),
        Result("fleet", size, "warm index", warm, "cold index", cold, target=0.5),
        Result("fleet", size, "query of the index", query, "budget", QUERY_BUDGET, target=1.0,
               note="every stored row read and the ctxtui.fleet/1 document built"),
    ]  # fmt: skip


def _query(cache: Path) -> float:
    """Every row the index holds under the plan preset, and the document over them."""
    from ctxtui.core.fleet import build_document
    from ctxtui.fleet.index import FleetIndex
    from ctxtui.fleet.job import Spec, apply

    spec = Spec()
    start = time.perf_counter()
    with FleetIndex(cache / "fleet.sqlite3", print) as index:
        rows = [apply(base, sim) for base, sim in index.rows(spec.fingerprint("plan"))]
    build_document(rows, preset="plan")
    took = time.perf_counter() - start
    assert rows, "the index held nothing"
    return took


# -- against ccusage ----------------------------------------------------------------------


def ccusage() -> str | None:
    """The ccusage executable: ``$CCUSAGE``, else on ``PATH``."""
    return os.environ.get("CCUSAGE") or shutil.which("ccusage")


def _ccusage_version(exe: str) -> str | None:
    try:
        done = subprocess.run([exe, "--version"], capture_output=True, timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.decode().strip() if done.returncode == 0 else None


def _home_with(agent: str, source: Path, root: Path) -> dict[str, str]:
    """A HOME holding only ``source``, where that agent (and ccusage) looks for it."""
    home = root / "home"
    if agent == "claude-code":
        place = home / ".claude" / "projects" / "-work-app" / f"{source.stem}.jsonl"
    else:
        place = (
            home
            / ".codex"
            / "sessions"
            / "2026"
            / "03"
            / "02"
            / "rollout-2026-03-02T09-00-00-b.jsonl"
        )
    place.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(source, place)
    env = _env(root / "cache")
    for name in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME"):
        env.pop(name, None)
    env["HOME"] = str(home)
    env["FILE"] = str(place)
    return env


def _check_ccusage_reads(args: list[str], env: dict[str, str]) -> None:
    """ccusage must have found the session and counted its tokens, or the ratio means
    nothing (it skips lines it does not recognise without a word)."""
    done = subprocess.run(args, capture_output=True, env=env, check=True)
    report = json.loads(done.stdout)
    sessions = report.get("sessions") or report.get("session") or []
    tokens = report.get("totals", {}).get("totalTokens", 0)
    if not sessions or not tokens:
        raise RuntimeError(f"ccusage found no usage in {env['FILE']}: the comparison is void")


def process_wall(args: list[str], env: dict[str, str]) -> float:
    """The wall time of one process, start-up included (what the user waits for)."""
    start = time.perf_counter()
    done = subprocess.run(args, capture_output=True, env=env, cwd=REPO, check=False)
    took = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(args)} failed: {done.stderr.decode()[-600:]}")
    return took


def usage_sections(
    repeats: int,
    claude_mb: float = 64,
    codex_mb: float = 30,
    emit: Callable[[str], None] = print,
) -> list[Result]:
    """``fleet --no-simulate`` and ``replay`` against ccusage's session report, per agent."""
    exe = ccusage()
    version = _ccusage_version(exe) if exe else None
    if exe is None or version is None:
        emit(USAGE_SKIPPED)
        return []
    out: list[Result] = []
    for agent, megabytes in (("claude-code", claude_mb), ("codex", codex_mb)):
        source = transcript(agent, megabytes, 7)
        with tempfile.TemporaryDirectory(prefix="ctxtui-bench-usage-") as tmp:
            env = _home_with(agent, source, Path(tmp))
            file = env["FILE"]
            theirs = [exe, "session", "--json", "--offline"]
            _check_ccusage_reads(theirs, env)
            fleet = [sys.executable, "-m", "ctxtui", "fleet", "--no-simulate", "--no-cache",
                     "--json", file]  # fmt: skip
            replay = [sys.executable, "-m", "ctxtui", "replay", "--json", file]
            base: list[float] = []
            ours: list[float] = []
            walked: list[float] = []
            for _ in range(max(1, repeats)):
                base.append(process_wall(theirs, env))
                ours.append(process_wall(fleet, env))
                walked.append(process_wall(replay, env))
        size = f"{agent} {megabytes:g} MB"
        them = statistics.median(base)
        label = f"ccusage {version} session"
        out += [
            Result("usage", size, "fleet --no-simulate", statistics.median(ours), label, them,
                   target=1.0),
            Result("usage", size, "replay", statistics.median(walked), label, them, target=2.0),
        ]  # fmt: skip
    return out


def emit_all(results: list[Result]) -> None:
    for r in results:
        print(r.line())


def main(argv: list[str] | None = None) -> int:
    """``python -m bench.fleet [COUNT] [MB]``: the fleet and usage sections alone."""
    args = sys.argv[1:] if argv is None else argv
    count = int(args[0]) if args else 1000
    megabytes = float(args[1]) if len(args) > 1 else 1.0
    emit_all(fleet_sections(count, megabytes, 1))
    emit_all(usage_sections(1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
