"""A session seen growing is read on from the importer state the index kept, not from its
start, and gives the row a cold read of the grown file gives; a cold run keeps no state."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxtui.fleet.index import FleetIndex
from ctxtui.fleet.job import Spec
from ctxtui.fleet.run import path_targets, run_fleet
from ctxtui.importers import resume

SAMPLES = Path(__file__).resolve().parents[2] / "sample_sessions"


def _halves(name: str) -> tuple[bytes, bytes]:
    """The sample cut after the middle line, the second half ending mid-line once more."""
    raw = (SAMPLES / name).read_bytes()
    cut = raw.index(b"\n", len(raw) // 2) + 1
    return raw[:cut], raw[cut:]


def _grown_once(path: Path, first: bytes, spec: Spec, index: FleetIndex) -> None:
    """A cold run over ``first``'s first lines, then one over ``first``: the file was seen
    growing, so the second run keeps its importer state."""
    path.write_bytes(first[: first.index(b"\n") + 1])
    targets = path_targets([str(path.parent)])
    run_fleet(targets, spec, index=index)
    assert index.state(str(path), spec.base_fingerprint()) is None, "a cold run keeps none"
    path.write_bytes(first)
    run_fleet(targets, spec, index=index)


@pytest.mark.parametrize("name", ["claude_code_replay.jsonl", "codex_replay.jsonl"])
@pytest.mark.parametrize("simulate", [False, True], ids=["usage", "simulated"])
def test_a_grown_session_is_read_on_from_its_state(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, simulate: bool
) -> None:
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    path = sessions / name
    first, rest = _halves(name)
    spec = Spec(simulate=simulate)
    warnings: list[str] = []
    index = FleetIndex(tmp_path / "cache" / "fleet.sqlite3", warnings.append)
    _grown_once(path, first + rest[: len(rest) // 3], spec, index)  # mid-way through a line
    targets = path_targets([str(sessions)])
    assert index.state(str(path), spec.base_fingerprint()) is not None

    path.write_bytes(first + rest)
    started: list[Path] = []
    real_start = resume.Resumable.start.__func__  # type: ignore[attr-defined]

    def start(cls: type[resume.Resumable], source, *args, **kwargs):  # type: ignore[no-untyped-def]
        started.append(source.path)
        return real_start(cls, source, *args, **kwargs)

    monkeypatch.setattr(resume.Resumable, "start", classmethod(start))
    grown = run_fleet(targets, spec, index=index)
    assert started == [], "read on from the stored state, not from the start"
    assert grown.read == 1
    monkeypatch.undo()

    cold = run_fleet(targets, spec)  # no index: the grown file read whole
    assert grown.rows("plan") == cold.rows("plan")
    index.close()
    assert not warnings


def test_a_rewritten_session_is_read_whole_and_its_state_replaced(tmp_path: Path) -> None:
    """Anything but an append (here the first line changed) is read from the start."""
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    path = sessions / "s.jsonl"
    first, rest = _halves("codex_replay.jsonl")
    spec = Spec(simulate=False)
    index = FleetIndex(tmp_path / "cache" / "fleet.sqlite3", lambda _w: None)
    _grown_once(path, first, spec, index)
    targets = path_targets([str(sessions)])
    before = index.state(str(path), spec.base_fingerprint())
    assert before is not None
    path.write_bytes(first.replace(b"{", b" {", 1) + rest)
    grown = run_fleet(targets, spec, index=index)
    assert grown.rows(None) == run_fleet(targets, spec).rows(None)
    assert index.state(str(path), spec.base_fingerprint()) not in (None, before)
    index.close()


def test_a_session_no_longer_written_keeps_no_state(tmp_path: Path) -> None:
    """A state is kept only for a file written recently (an agent may still append to it)."""
    import os

    sessions = tmp_path / "sessions"
    sessions.mkdir()
    path = sessions / "s.jsonl"
    first, _rest = _halves("codex_replay.jsonl")
    spec = Spec(simulate=False)
    index = FleetIndex(tmp_path / "cache" / "fleet.sqlite3", lambda _w: None)
    path.write_bytes(first[: first.index(b"\n") + 1])
    run_fleet(path_targets([str(sessions)]), spec, index=index)
    path.write_bytes(first)
    old = path.stat().st_mtime - 2 * resume.GROWING_SECONDS
    os.utime(path, (old, old))
    run_fleet(path_targets([str(sessions)]), spec, index=index)
    assert index.state(str(path), spec.base_fingerprint()) is None
    index.close()


def test_reopening_a_session_the_index_knows_reads_on_from_its_state(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ctxtui.fleet.index import resumed_history
    from ctxtui.importers import load_session

    sessions = tmp_path / "sessions"
    sessions.mkdir()
    path = sessions / "s.jsonl"
    first, rest = _halves("claude_code_replay.jsonl")
    db = tmp_path / "cache" / "fleet.sqlite3"
    index = FleetIndex(db, lambda _w: None)
    _grown_once(path, first, Spec(simulate=False), index)
    index.close()
    path.write_bytes(first + rest)
    monkeypatch.setattr(resume.Resumable, "start", None)  # any read from the start fails
    history = resumed_history(str(path), index_path=db)
    monkeypatch.undo()
    assert history.model_dump() == load_session(path, full_history=True).model_dump()
