"""A read its caller stops ends at the next question, with ``ReadStoppedError``: while the
lines are read and, for Claude Code, while its chain is converted after them. A read that
is never stopped is the same read as one without the question."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from ctxtui.core.errors import ReadStoppedError
from ctxtui.importers import _stream, load_session
from tests.generated import agent_lines

EVERY = 5
"""Records between two questions here: small, so a small transcript asks many times."""


@pytest.fixture(autouse=True)
def _ask_often(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_stream, "STOP_EVERY", EVERY)


@pytest.fixture(params=["claude-code", "codex"])
def transcript(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    path = tmp_path / f"{request.param}.jsonl"
    path.write_bytes(agent_lines(request.param, 59, 11))
    return path


def _stop_at(k: int, asked: list[int]) -> Callable[[], bool]:
    """A stop check that says stop at its ``k``-th question, counting them in ``asked``."""

    def stop() -> bool:
        asked.append(1)
        return len(asked) >= k

    return stop


@pytest.mark.parametrize("full_history", [False, True])
def test_a_read_never_stopped_is_the_read(transcript: Path, full_history: bool) -> None:
    asked: list[int] = []
    never = load_session(
        transcript, full_history=full_history, should_stop=lambda: bool(asked.append(1))
    )
    assert asked, "the read never asked whether to stop"
    assert never == load_session(transcript, full_history=full_history)


@pytest.mark.parametrize("full_history", [False, True])
def test_each_question_can_end_the_read(transcript: Path, full_history: bool) -> None:
    questions: list[int] = []
    load_session(
        transcript, full_history=full_history, should_stop=lambda: bool(questions.append(1))
    )
    total = len(questions)
    for k in sorted({1, 2, total // 3, total // 2, total - 1, total} - {0}):
        asked: list[int] = []
        with pytest.raises(ReadStoppedError):
            load_session(transcript, full_history=full_history, should_stop=_stop_at(k, asked))
        assert len(asked) == k  # it stopped at the question that said so, not later


def test_a_claude_code_read_also_stops_while_its_chain_is_converted(tmp_path: Path) -> None:
    path = tmp_path / "claude.jsonl"
    path.write_bytes(agent_lines("claude-code", 59, 11))
    lines = path.read_bytes().count(b"\n")
    questions: list[int] = []
    load_session(path, full_history=True, should_stop=lambda: bool(questions.append(1)))
    assert len(questions) > lines // EVERY  # more questions than the lines alone ask


def test_a_watcher_stopped_mid_read_keeps_nothing_of_it(transcript: Path) -> None:
    """``--watch``'s reads ask too: a stopped first read returns nothing and keeps no
    half-read state, and the next poll reads the file whole."""
    from ctxtui.importers.watch import SessionWatcher

    stopping = [True]
    watcher = SessionWatcher(transcript, clock=lambda: 0.0, should_stop=lambda: stopping[0])
    assert watcher.poll() is None and watcher.error is None
    stopping[0] = False
    read = watcher.poll()
    assert read is not None
    assert read.model_dump() == load_session(transcript).model_dump()


@pytest.mark.parametrize("full_history", [False, True], ids=["poll", "history"])
def test_a_watched_claude_code_read_also_stops_while_its_chain_is_converted(
    tmp_path: Path, full_history: bool
) -> None:
    """The watcher's reads ask during the conversion too, as ``load_session``'s do: its
    first read and the full history's, which a stopped worker would otherwise finish."""
    from ctxtui.importers.watch import SessionWatcher

    path = tmp_path / "claude.jsonl"
    path.write_bytes(agent_lines("claude-code", 59, 11))
    lines = path.read_bytes().count(b"\n")
    questions: list[int] = []
    watcher = SessionWatcher(path, clock=lambda: 0.0, should_stop=lambda: bool(questions.append(1)))
    read = watcher.history() if full_history else watcher.poll()
    assert read is not None
    assert len(questions) > lines // EVERY  # more questions than the lines alone ask
