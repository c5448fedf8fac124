"""``ctxtui tune``'s figure (issue #39): the search costs no more than its replays.

``ctxtui tune DIR --agent claude-code --json`` over generated Claude Code sessions, in a fresh
process, against the candidates' replays themselves: for every distinct session, each
candidate's replay and score timed in one process with the counts already cached, added up
over the fleet and divided by the cores the pool uses. The counts are in the cache when
``tune`` runs (it reuses them, as after a ``fleet`` run); everything it does beyond the
replays (start-up, reading, the pool, the document) is the difference; the target is 1.2.
"""

from __future__ import annotations

import os
import statistics
import tempfile
from pathlib import Path

import bench.common
from bench.common import Result, run_child
from bench.fleet import REPO, transcript

DISTINCT = 10
"""Distinct generated sessions; the fleet holds hard links to them under other names."""

_REPLAYS = (
    "import sys, time\n"
    "from ctxtui.core.policies.policy import policy_for_session\n"
    "from ctxtui.core.pricing.cost import session_cost\n"
    "from ctxtui.core.tuning.space import SPACES, candidate_policy, grid\n"
    "from ctxtui.fleet.tune import _scale, _score, engine_for, replay_under\n"
    "from ctxtui.importers import load_session\n"
    "total = 0.0\n"
    "for path in sys.argv[1:]:\n"
    "    history = load_session(path, full_history=True)\n"
    "    base = policy_for_session('claude-code', history)\n"
    "    recorded = session_cost(history)\n"
    "    engine = engine_for(history)\n"
    "    replay_under(engine, base)  # the counts, made before the clock starts\n"
    "    scale = None\n"
    "    for settings in grid(SPACES['claude-code']):\n"
    "        start = time.perf_counter()\n"
    "        walked = replay_under(engine, candidate_policy('claude-code', settings, base))\n"
    "        scale = _scale(walked) if scale is None else scale\n"
    "        _score(walked, recorded, scale)\n"
    "        total += time.perf_counter() - start\n"
    "print(total)\n"
)


def tune_dir(count: int, megabytes: float) -> tuple[Path, list[Path]]:
    """``count`` Claude Code sessions in one directory, and the distinct ones among them."""
    directory = bench.common.OUT / f"tune-{count}x{megabytes:g}mb"
    sources = [transcript("claude-code", megabytes, 300 + k) for k in range(min(DISTINCT, count))]
    done = directory / ".complete"
    if not done.exists():
        directory.mkdir(parents=True, exist_ok=True)
        for n in range(count):
            target = directory / f"session-{n:05d}.jsonl"
            if not target.exists():
                os.link(sources[n % len(sources)], target)
        done.write_text("")
    return directory, sources


def tune_sections(count: int, megabytes: float, repeats: int) -> list[Result]:
    """``tune`` over the fleet against its candidates' replays ÷ the cores."""
    directory, sources = tune_dir(count, megabytes)
    cores = os.cpu_count() or 1
    runs: list[float] = []
    replays: list[float] = []
    for _ in range(max(1, repeats)):
        with tempfile.TemporaryDirectory(prefix="ctxtui-bench-tune-") as tmp:
            env = dict(os.environ, CTXTUI_CACHE_DIR=tmp, PYTHONPATH=str(REPO), HOME=tmp)
            # The replays first: they leave the counts in the cache, as a fleet run would.
            distinct = float(run_child(["-c", _REPLAYS, *map(str, sources)], env)[2])
            replays.append(distinct * count / len(sources))
            args = ["-m", "ctxtui", "tune", str(directory), "--agent", "claude-code", "--json"]
            runs.append(run_child(args, env)[0])
    run, replay = statistics.median(runs), statistics.median(replays)
    note = f"{cores} cores; 10 candidates; the replays took {replay:.2f} s in one process"
    return [
        Result("tune", f"{count:,} sessions ({count * megabytes:g} MB)", "tune", run,
               f"replays / {cores} cores", replay / cores, target=1.2, note=note),
    ]  # fmt: skip
