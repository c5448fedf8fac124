"""The fleet's runner: stopping keeps what finished, in the run and in the index."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ctxtui.fleet.index import FleetIndex
from ctxtui.fleet.job import Spec, Target
from ctxtui.fleet.run import Finished, RunHooks, executor_for, path_targets, run_fleet

SAMPLES = Path(__file__).resolve().parents[2] / "sample_sessions"


def _targets(tmp_path: Path, n: int) -> list[Target]:
    for k in range(n):
        shutil.copy(SAMPLES / "demo.json", tmp_path / f"s{k}.json")
    return path_targets([str(tmp_path)])


@pytest.mark.parametrize("pooled", [False, True], ids=["here", "pool"])
def test_ctrl_c_keeps_what_finished(tmp_path: Path, pooled: bool) -> None:
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    targets = _targets(sessions, 6)
    warnings: list[str] = []
    index = FleetIndex(tmp_path / "cache" / "fleet.sqlite3", warnings.append)
    seen: list[int] = []

    def on_result(i: int, done: Finished) -> None:
        seen.append(i)
        if len(seen) == 2:
            raise KeyboardInterrupt

    executor = (lambda tasks: executor_for(tasks, workers=2)) if pooled else None
    run = run_fleet(
        targets, Spec(), executor=executor, index=index, hooks=RunHooks(on_result=on_result)
    )
    assert run.interrupted and not run.complete
    assert sorted(run.finished) == sorted(seen) and len(seen) == 2
    assert len(index.rows(Spec().fingerprint("plan"))) == 2  # what finished is in the index
    again = run_fleet(targets, Spec(), index=index)
    assert again.complete and again.read == 4
    index.close()
    assert not warnings


def test_should_stop_ends_the_run_between_sessions(tmp_path: Path) -> None:
    targets = _targets(tmp_path, 3)
    run = run_fleet(targets, Spec(), hooks=RunHooks(should_stop=lambda: True))
    assert run.interrupted and not run.finished


def test_progress_counts_up_to_the_total(tmp_path: Path) -> None:
    targets = _targets(tmp_path, 3)
    seen = []
    run_fleet(targets, Spec(), hooks=RunHooks(on_progress=seen.append))
    assert [p.done for p in seen] == [0, 1, 2, 3]
    assert seen[-1].total == 3 and seen[-1].read == 3 and seen[-1].left == 0


@pytest.mark.parametrize(
    "name",
    ["claude_code_replay.jsonl", "claude_code_compacted.jsonl", "codex_replay.jsonl", "demo.json"],
)
def test_the_opened_session_is_cut_from_the_history_exactly(name: str) -> None:
    """One read serves both: the session as opened is the history's tail (what ``report``
    reads), so the fleet reads each file once."""
    from ctxtui.fleet.job import _opened
    from ctxtui.importers import load_session

    history = load_session(SAMPLES / name, full_history=True)
    opened = _opened(history)
    assert opened is not None
    assert opened.messages == load_session(SAMPLES / name).messages


def test_the_progress_line_says_done_rate_and_time_left(monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    import ctxtui.commands.fleet as command
    from ctxtui.fleet.run import Progress

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setattr(command, "PROGRESS_AFTER_SECONDS", 0.0)
    stream = Terminal()
    line = command.ProgressLine(stream)
    line(Progress(done=30, total=120, read=10, elapsed=3.0))
    shown = stream.getvalue()
    assert "fleet: 30 / 120 sessions · 10 read · 10.0/s · 9 s left" in shown
    line.close()
    assert stream.getvalue().endswith("\r\x1b[K")
    quiet = io.StringIO()  # not a terminal: nothing
    command.ProgressLine(quiet)(Progress(1, 2, 1, 1.0))
    assert quiet.getvalue() == ""
