"""The fleet's process pool: a worker that dies costs its rows one retry, then they fail and
the run says so; no more workers than sessions; small files batched; no worker outlives the
command, whatever signal ends it."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import pytest

import ctxtui.fleet.run as run_module
from ctxtui.cli.main import main
from ctxtui.fleet.job import Outcome, Spec, Target
from ctxtui.fleet.run import BATCH_BYTES, batches, executor_for, path_targets, run_fleet

REPO = Path(__file__).resolve().parents[2]
SAMPLES = REPO / "sample_sessions"
needs_fork = pytest.mark.skipif(
    sys.platform != "linux", reason="the workers inherit the test's patch through fork"
)


def _sessions(tmp_path: Path, n: int, sample: str = "demo.json") -> Path:
    directory = tmp_path / "sessions"
    directory.mkdir()
    suffix = Path(sample).suffix
    for k in range(n):
        shutil.copy(SAMPLES / sample, directory / f"s{k:02d}{suffix}")
    return directory


def _killing(marker: Path | None, victim: str) -> Any:
    """A job that kills its worker on ``victim``: every time, or (with ``marker``) once."""
    real = run_module.session_row

    def job(
        target: Target,
        spec: Spec,
        presets: tuple[str, ...] | None = None,
        grown: bytes | None = None,
    ) -> Outcome:
        if target.path.endswith(victim) and (marker is None or not marker.exists()):
            if marker is not None:
                marker.touch()
            os.kill(os.getpid(), signal.SIGKILL)
        return real(target, spec, presets, grown)

    return job


@needs_fork
def test_a_worker_killed_once_costs_nothing_but_a_retry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    sessions = _sessions(tmp_path, 8)
    monkeypatch.setattr(run_module, "session_row", _killing(tmp_path / "died", "s03.json"))
    code = main(["fleet", "--json", "--no-cache", "--workers", "2", str(sessions)])
    doc = json.loads(capsys.readouterr().out)
    assert code == 0 and doc["complete"] is True
    assert len(doc["sessions"]) == 8 and not any(row["error"] for row in doc["sessions"])


@needs_fork
def test_rows_whose_worker_dies_twice_fail_and_the_run_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A file that kills its worker every time: before, every row still in the pool became
    a "BrokenProcessPool" error with exit 0 and ``complete: true``."""
    sessions = _sessions(tmp_path, 8)
    monkeypatch.setattr(run_module, "session_row", _killing(None, "s03.json"))
    code = main(["fleet", "--json", "--no-cache", "--workers", "2", str(sessions)])
    captured = capsys.readouterr()
    doc = json.loads(captured.out)
    assert code == 1 and doc["complete"] is False
    failed = {Path(row["path"]).name: row["error"] for row in doc["sessions"] if row["error"]}
    # only the few beside it in the pool when it struck again fail with it
    assert "s03.json" in failed and len(failed) <= run_module.retry_window()
    assert len(doc["sessions"]) == 8
    assert all("BrokenProcessPool" in error for error in failed.values())
    (line,) = captured.err.strip().splitlines()
    assert line.startswith("ctxtui fleet: ") and " failed twice (first: the job failed: " in line
    assert "BrokenProcessPool" in line
    assert line.endswith(f"; {8 - len(failed)} of 8 sessions done")


@needs_fork
def test_a_persistent_killer_takes_few_sessions_with_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before, every session pending when the pool broke failed (1,481 of 5,000)."""
    sessions = _sessions(tmp_path, 24)
    monkeypatch.setattr(run_module, "session_row", _killing(None, "s00.json"))
    monkeypatch.setattr(run_module, "retry_window", lambda: 2)
    targets = path_targets([str(sessions)])
    run = run_fleet(targets, Spec(), executor=lambda tasks: executor_for(tasks, workers=2))
    names = {Path(targets[i].path).name for i in run.failed}
    assert "s00.json" in names and len(names) <= 2
    assert len(run.finished) == 24 and not run.complete


def test_never_more_workers_than_tasks() -> None:
    """``--workers 64`` on 11 sessions started 65 processes."""
    with executor_for(11, workers=64) as pool:
        assert isinstance(pool, ProcessPoolExecutor)
        assert pool._max_workers == 11
    with executor_for(3) as pool:
        assert isinstance(pool, ProcessPoolExecutor)
        assert pool._max_workers == min(3, os.cpu_count() or 1)


def test_small_files_share_a_task_and_a_large_one_runs_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    sessions = _sessions(tmp_path, 40)
    (sessions / "big.json").write_bytes((SAMPLES / "demo.json").read_bytes())
    with (sessions / "big.json").open("ab") as big:
        big.truncate(BATCH_BYTES * 2)
    targets = path_targets([str(sessions)])
    todo = [(i, ("plan",), {}) for i in range(len(targets))]
    tasks = batches(todo, targets)
    assert 8 <= len(tasks) < len(targets)  # four tasks a core at least, fewer than files
    big = next(i for i, t in enumerate(targets) if t.path.endswith("big.json"))
    assert [[(big, ("plan",), {})]] == [t for t in tasks if any(j[0] == big for j in t)]
    assert sorted(j[0] for t in tasks for j in t) == list(range(len(targets)))


def test_batched_rows_are_the_rows_read_one_by_one(tmp_path: Path) -> None:
    sessions = _sessions(tmp_path, 6)
    targets = path_targets([str(sessions)])
    here = run_fleet(targets, Spec())
    pooled = run_fleet(targets, Spec(), executor=lambda tasks: executor_for(tasks, workers=2))
    assert pooled.complete and pooled.rows("plan") == here.rows("plan")


def _children(pid: int) -> set[int]:
    kids: set[int] = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        kids |= {int(k) for k in (task / "children").read_text().split()}
    return kids


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="reads /proc")
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP], ids=["TERM", "HUP"])
def test_a_signal_ends_the_workers_with_the_command(tmp_path: Path, signum: int) -> None:
    """SIGTERM or SIGHUP left two workers alive 60 s later (Ctrl+C was clean)."""
    sessions = _sessions(tmp_path, 120, "claude_code_replay.jsonl")
    env = {**os.environ, "PYTHONPATH": str(REPO), "CTXTUI_CACHE_DIR": str(tmp_path / "cache")}
    argv = [sys.executable, "-m", "ctxtui", "fleet", "--json", "--no-cache", "--workers", "2"]
    proc = subprocess.Popen(
        [*argv, str(sessions)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
    )
    deadline = time.monotonic() + 60
    workers: set[int] = set()
    while len(workers) < 2 and time.monotonic() < deadline:
        time.sleep(0.2)
        workers = _children(proc.pid)
    time.sleep(1)  # the workers are reading
    proc.send_signal(signum)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 128 + signum, err.decode()
    assert json.loads(out)["complete"] is False
    assert "Traceback" not in err.decode()
    time.sleep(0.5)
    alive = [pid for pid in workers if Path(f"/proc/{pid}").exists()]
    assert not alive


def test_a_stopped_pools_manager_thread_fails_without_a_traceback(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A stop terminates the pool's workers under its manager thread, which can then fail on
    the pipes they left (seen once in a loaded run of ``tune`` stopped by SIGTERM): that
    failure goes nowhere, while any other thread's still reaches the hook that prints it."""
    import threading

    reached: list[threading.Thread | None] = []
    monkeypatch.setattr(threading, "excepthook", lambda args: reached.append(args.thread))
    monkeypatch.setattr(run_module, "_hook_before", [])
    pool = ProcessPoolExecutor(max_workers=1)
    pool.submit(time.sleep, 30)
    manager = pool._executor_manager_thread  # started by the first submit
    assert isinstance(manager, threading.Thread)
    run_module._stop_workers(pool)
    err = OSError(9, "Bad file descriptor")
    threading.excepthook(threading.ExceptHookArgs((OSError, err, None, manager)))
    assert reached == []
    other = threading.Thread(target=lambda: None)
    threading.excepthook(threading.ExceptHookArgs((OSError, err, None, other)))
    assert reached == [other]
