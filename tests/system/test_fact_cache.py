"""The facts file: audits primed from it equal audits found afresh and read no stored message
again; a bad, foreign or out-of-date file reads as empty."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ctxtui.cli.main import main
from ctxtui.core.session.models import Message, Session, ToolCall
from ctxtui.core.summaries import segment_facts
from ctxtui.core.summaries.segment_facts import (
    HEAD_CHARS,
    keep_facts,
    remember_facts,
)
from ctxtui.core.summaries.segment_facts import (
    segment_facts as facts_of,
)
from ctxtui.samples import samples_dir
from ctxtui.system import fact_cache
from ctxtui.system.fact_cache import FactCache


def _session(n: int = 30) -> Session:
    messages: list[Message] = []
    for i in range(n):
        call = ToolCall(id=f"c{i}", name="bash", arguments=f'{{"command": "pytest tests/t{i}.py"}}')
        messages += [
            Message(role="user", content=f"fix src/mod_{i}.py, keep the timeout at {i} s"),
            Message(role="assistant", content="", tool_calls=(call,)),
            Message(
                role="tool",
                tool_call_id=f"c{i}",
                content=f"FAILED tests/t{i}.py::test_x - ValueError: bad {i}\n" + "x" * (i * 500),
            ),
        ]
    messages.append(Message(role="tool", content="E  KeyError: 'late'\n" + "y" * (HEAD_CHARS * 3)))
    return Session(messages=tuple(messages))


def _all_facts(session: Session) -> tuple[object, ...]:
    return facts_of(session, 0, len(session.messages) - 1)


def test_primed_facts_equal_fresh_ones_and_read_no_stored_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = FactCache(tmp_path, min_chars=0)
    first = _session()
    assert remember_facts(first, store)
    fresh = _all_facts(first)
    assert keep_facts(first, store) and store.path.exists()
    assert not keep_facts(first, store)  # nothing new since: nothing written

    read: list[Message] = []
    real = segment_facts.message_facts

    def counted(m: Message, limit: int = HEAD_CHARS * 2) -> object:
        read.append(m)
        return real(m, limit)

    monkeypatch.setattr(segment_facts, "message_facts", counted)
    again = _session()  # another object with the same messages: a second run
    assert remember_facts(again, store)
    assert _all_facts(again) == fresh
    assert read == []
    # a session not seen before is read, and only its new messages
    grown = Session(messages=(*again.messages, Message(role="user", content="see lib/new.py")))
    assert remember_facts(grown, store)
    assert _all_facts(grown)[-1].text == "lib/new.py"  # type: ignore[attr-defined]
    assert [m.content for m in read] == ["see lib/new.py"]


def test_small_sessions_are_left_alone(tmp_path: Path) -> None:
    store = FactCache(tmp_path)  # a million characters at least
    session = _session(3)
    assert not remember_facts(session, store)
    _all_facts(session)
    assert not keep_facts(session, store) and not store.path.exists()


@pytest.mark.parametrize("what", ["foreign", "truncated", "other rules", "fifo", "huge"])
def test_a_bad_file_reads_as_empty(tmp_path: Path, what: str) -> None:
    store = FactCache(tmp_path, min_chars=0)
    session = _session(4)
    remember_facts(session, store)
    _all_facts(session)
    assert keep_facts(session, store)
    data = store.path.read_bytes()
    store.path.unlink()
    if what == "foreign":
        store.path.write_bytes(b"\x81\xa1k\xa1v")
    elif what == "truncated":
        store.path.write_bytes(data[: len(data) - 7])
    elif what == "other rules":
        store.path.write_bytes(data.replace(b"CTXTUI-FACTS\n0", b"CTXTUI-FACTS\n9", 1))
    elif what == "fifo":
        os.mkfifo(store.path)  # a read would wait for a writer forever
    else:
        with store.path.open("wb") as f:
            f.truncate(fact_cache.MAX_BYTES + 1)
    assert store.load() == {}


def test_entries_are_bounded_newest_first(tmp_path: Path) -> None:
    store = FactCache(tmp_path, max_entries=2)
    older = {b"a" * 16: (("path", "a.py", "a.py", 1),), b"b" * 16: ()}
    assert store.store([(b"c" * 16, ())], older)
    assert list(store.load()) == [b"c" * 16, b"a" * 16]


def test_replay_warm_is_replay_cold(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The command writes the file and a second run reads it, to the same document."""
    monkeypatch.setenv("CTXTUI_CACHE_DIR", str(tmp_path))
    small = {"max_entries": fact_cache.MAX_ENTRIES, "min_chars": 0}
    monkeypatch.setattr(FactCache.__init__, "__kwdefaults__", small)
    sample = str(samples_dir() / "claude_code_replay.jsonl")
    assert main(["replay", sample, "--json"]) == 0
    cold = capsys.readouterr().out
    stored = FactCache(tmp_path).load()
    assert stored and all(isinstance(k, bytes) and len(k) == 17 for k in stored)  # hash + flags
    assert main(["replay", sample, "--json"]) == 0
    assert capsys.readouterr().out == cold


def test_the_same_words_typed_and_injected_keep_their_own_facts(tmp_path: Path) -> None:
    """A user's instruction and the harness's copy of it hash alike for the counts; their
    facts differ (only the typed one instructs), and each is stored as its own."""
    store = FactCache(tmp_path, min_chars=0)
    text = "Always run uv run pytest -x first; never edit src/app/config.py by hand."

    def session() -> Session:
        return Session(
            messages=(
                Message(role="user", content=text),
                Message(role="user", content=text, injected=True),
                Message(role="tool", content="Error: boom", is_error=True),
                Message(role="tool", content="Error: boom"),
            )
        )

    def kinds(s: Session) -> list[set[str]]:
        index = segment_facts.fact_index(s)
        return [{kind for kind, *_ in index.facts(i)} for i in range(len(s.messages))]

    first = session()
    remember_facts(first, store)
    fresh = kinds(first)
    assert "instruction" in fresh[0] and "instruction" not in fresh[1]
    assert keep_facts(first, store)
    again = session()
    remember_facts(again, store)
    assert kinds(again) == fresh
