"""Reading an append costs the appended bytes: ``--watch`` adds the complete lines written
since the last read to the session (``Live`` importers, ``_jsonl.Cursor``), and the session
it ends with is the one a whole read of the file gives."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ctxtui.core.errors import SessionLoadError
from ctxtui.importers import load_session
from ctxtui.importers.watch import SessionWatcher
from ctxtui.samples import samples_dir

EXAMPLES = Path("/work/shared/reference/examples")
FOLLOWED = sorted(
    p
    for p in [*samples_dir().glob("*.jsonl"), *EXAMPLES.glob("*.jsonl")]
    if load_session(p).meta.format in ("claude-code", "codex")
)


@pytest.mark.parametrize("sample", FOLLOWED, ids=[p.name for p in FOLLOWED])
@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_reading_in_pieces_gives_the_whole_read(
    sample: Path, tmp_path: Path, data: st.DataObject
) -> None:
    """The watcher between appends, half-written lines included, gives what a whole read
    gives: the session (``poll``) and, once its last line is written, the full history
    (``history``), each read on from its last read rather than again."""
    size = sample.stat().st_size
    cuts = data.draw(st.lists(st.integers(1, size - 1), max_size=4), label="cuts")
    target = tmp_path / f"piece-{len(cuts)}-{sum(cuts)}{sample.suffix}"
    raw = sample.read_bytes()
    watcher = SessionWatcher(target, format=load_session(sample).meta.format, clock=lambda: 0.0)
    target.write_bytes(b"")
    start = 0
    seen = None
    followers = set()
    for cut in [*sorted(set(cuts)), size]:
        with target.open("ab") as fh:
            fh.write(raw[start:cut])
        start = cut
        st_ = target.stat()
        os.utime(target, ns=(st_.st_atime_ns, st_.st_mtime_ns + 1_000_000))
        seen = watcher.poll() or seen
        try:
            whole = load_session(target, full_history=True)
        except SessionLoadError:  # no complete line yet: the watcher says the same
            with pytest.raises(SessionLoadError):
                watcher.history()
            continue
        history = watcher.history()
        if raw[:cut].endswith(b"\n"):  # a last line without one waits for it, as in ``poll``
            assert history.model_dump() == whole.model_dump()
        if watcher._history is not None:
            followers.add(id(watcher._history[0]))
    whole = load_session(target)
    assert seen is not None
    assert seen.model_dump() == whole.model_dump()
    assert watcher._follower is not None, "followed, not read again from the start"
    assert watcher._history is not None, "the history followed too"
    assert len(followers) <= 2, "one history follower from the first complete line on"


@pytest.mark.parametrize("sample", FOLLOWED, ids=[p.name for p in FOLLOWED])
@pytest.mark.parametrize("full_history", [False, True], ids=["load", "history"])
@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_live_importers_read_in_pieces_as_they_read_whole(
    sample: Path, full_history: bool, tmp_path: Path, data: st.DataObject
) -> None:
    """The importers' ``Live`` with a cursor, the file growing between reads, for both what
    the model sees now and the full history (what ``replay`` walks)."""
    from ctxtui.importers import importer
    from ctxtui.importers._jsonl import Cursor, iter_records
    from ctxtui.importers._stream import open_file

    module = importer(load_session(sample).meta.format)
    raw = sample.read_bytes()
    cuts = data.draw(st.lists(st.integers(1, len(raw) - 1), max_size=4), label="cuts")
    target = tmp_path / f"live-{len(cuts)}-{sum(cuts)}.jsonl"
    live, cursor = module.Live(full_history=full_history), Cursor()
    for cut in [*sorted(set(cuts)), len(raw)]:
        target.write_bytes(raw[:cut])
        with open_file(target) as source:
            typed = getattr(module.Live, "RECORD", None)
            live.add(iter_records(source, live.warnings, cursor=cursor, typed=typed))
            pieces = live.session(str(target), cursor.end_warnings())
    with open_file(target) as source:
        whole = (module.load_history if full_history else module.load)(source)
        assert live.dropped == source.dropped.count
    assert pieces.model_dump() == whole.model_dump()


def _claude_line(i: int, parent: str | None) -> str:
    role = "user" if i % 2 == 0 else "assistant"
    message = {"role": role, "content": f"message {i} " + "x" * 200}
    if role == "assistant":
        message |= {"id": f"msg_{i}", "model": "claude-sonnet-4", "usage": {"input_tokens": i}}
    value = {
        "type": role,
        "uuid": f"u{i}",
        "parentUuid": parent,
        "sessionId": "s",
        "timestamp": f"2025-01-01T00:{i // 3600 % 60:02d}:{i // 60 % 60:02d}.{i % 60:03d}Z",
        "message": message,
    }
    return json.dumps(value) + "\n"


def _read_bytes() -> int:
    """Bytes this process has read through system calls so far (``/proc/self/io``)."""
    for line in Path("/proc/self/io").read_text().splitlines():
        if line.startswith("rchar:"):
            return int(line.split()[1])
    raise AssertionError("no rchar in /proc/self/io")


@pytest.mark.skipif(not Path("/proc/self/io").exists(), reason="needs /proc/self/io")
@pytest.mark.parametrize("appended", [1, 20])
def test_an_append_reads_the_appended_bytes_not_the_file(tmp_path: Path, appended: int) -> None:
    """A 4 MB transcript grows by a few records: the poll reads those, not the 4 MB again."""
    path = tmp_path / "session.jsonl"
    lines = [_claude_line(i, f"u{i - 1}" if i else None) for i in range(16_000)]
    path.write_text("".join(lines))
    watcher = SessionWatcher(path, format="claude-code", clock=lambda: 0.0)
    assert watcher.poll() is not None
    more = "".join(_claude_line(i, f"u{i - 1}") for i in range(16_000, 16_000 + appended))
    with path.open("a") as fh:
        fh.write(more)
    st_ = path.stat()
    os.utime(path, ns=(st_.st_atime_ns, st_.st_mtime_ns + 1_000_000))
    before = _read_bytes()
    session = watcher.poll()
    read = _read_bytes() - before
    assert session is not None and len(session.messages) == 16_000 + appended
    assert read < 200_000 + 4 * len(more), f"{read:,} bytes read for {len(more):,} appended"
    assert path.stat().st_size > 4_000_000


@pytest.mark.skipif(not Path("/proc/self/io").exists(), reason="needs /proc/self/io")
def test_a_watched_history_reads_the_appended_bytes_not_the_file(tmp_path: Path) -> None:
    """The full history a watched transcript shows once the agent pauses is read on from
    the last pause: a 4 MB transcript that grew by 20 records costs those records."""
    path = tmp_path / "session.jsonl"
    lines = [_claude_line(i, f"u{i - 1}" if i else None) for i in range(16_000)]
    path.write_text("".join(lines))
    watcher = SessionWatcher(path, format="claude-code", clock=lambda: 0.0)
    assert len(watcher.history().messages) == 16_000
    more = "".join(_claude_line(i, f"u{i - 1}") for i in range(16_000, 16_020))
    with path.open("a") as fh:
        fh.write(more)
    before = _read_bytes()
    history = watcher.history()
    read = _read_bytes() - before
    assert len(history.messages) == 16_020
    assert read < 200_000 + 4 * len(more), f"{read:,} bytes read for {len(more):,} appended"
    path.write_text("".join(lines[:100]))  # rewritten: read whole again, not read on
    assert len(watcher.history().messages) == 100


def test_a_followed_file_rewritten_in_place_is_read_from_the_start(tmp_path: Path) -> None:
    """Same inode, longer, but another transcript (its first bytes differ): not an append,
    so the follower is dropped and the file read whole."""
    path = tmp_path / "session.jsonl"
    path.write_text(_claude_line(0, None) + _claude_line(1, "u0"))
    watcher = SessionWatcher(path, clock=lambda: 0.0)
    assert watcher.poll() is not None and watcher._follower is not None
    other = "".join(_claude_line(i, f"u{i - 1}" if i else None) for i in range(3))
    for old, new in (
        ('Uuid": "u', 'Uuid": "v'),
        ('uuid": "u', 'uuid": "v'),
        ("message ", "MESSAGE "),
    ):
        other = other.replace(old, new)
    with path.open("r+") as fh:  # in place: the inode stays
        fh.write(other)
    st_ = path.stat()
    os.utime(path, ns=(st_.st_atime_ns, st_.st_mtime_ns + 1_000_000))
    session = watcher.poll()
    assert session is not None
    assert [m.content[:9] for m in session.messages] == ["MESSAGE 0", "MESSAGE 1", "MESSAGE 2"]
    assert session.model_dump() == load_session(path).model_dump()


def _touched(path: Path) -> None:
    st_ = path.stat()  # a write within one clock tick must still look like a change
    os.utime(path, ns=(st_.st_atime_ns, st_.st_mtime_ns + 1_000_000))


def test_a_followed_file_that_shrank_or_became_a_fifo_is_read_whole_again(tmp_path: Path) -> None:
    path = tmp_path / "session.jsonl"
    lines = [_claude_line(i, f"u{i - 1}" if i else None) for i in range(4)]
    path.write_text("".join(lines))
    watcher = SessionWatcher(path, clock=lambda: 0.0)
    assert watcher.poll() is not None and watcher._follower is not None
    path.write_text("".join(lines[:2]))  # truncated in place: the inode stays
    _touched(path)
    session = watcher.poll()
    assert session is not None and len(session.messages) == 2
    path.unlink()
    os.mkfifo(path)  # no writer will ever come: an open that waits for one never returns
    assert watcher.poll() is None and "now a FIFO" in (watcher.error or "")
    path.unlink()
    path.write_text("".join(lines))
    session = watcher.poll()
    assert session is not None and len(session.messages) == 4 and watcher.error is None
    with path.open("a") as fh:
        fh.write(_claude_line(4, "u3") + _claude_line(5, "u4")[:40])  # a line half written
    _touched(path)
    session = watcher.poll()
    assert session is not None and len(session.messages) == 5
    assert session.meta.warnings[-1].startswith("line 6: incomplete last line ignored")
    with path.open("a") as fh:
        fh.write(_claude_line(5, "u4")[40:])
    _touched(path)
    session = watcher.poll()
    assert session is not None and session.model_dump() == load_session(path).model_dump()


def _chat_lines() -> bytes:
    """A JSONL file of Chat messages: calls, their results (current and legacy), usage, a
    line that is not an object and a corrupt one."""
    rows: list[object] = [{"role": "system", "content": "be brief"}]
    for i in range(6):
        rows.append({"role": "user", "content": f"question {i}"})
        call = {"id": f"c{i}", "type": "function", "function": {"name": "ls", "arguments": "{}"}}
        rows.append({"role": "assistant", "content": None, "tool_calls": [call]})
        rows.append({"role": "tool", "tool_call_id": f"c{i}", "content": f"files {i}"})
        rows.append({"role": "assistant", "function_call": {"name": "cat", "arguments": "{}"}})
        rows.append({"role": "function", "name": "cat", "content": "text"})
        usage = {"prompt_tokens": 10 * i, "completion_tokens": 1e400 if i == 3 else 2}
        rows.append({"role": "assistant", "content": f"answer {i}", "usage": usage})
    text = "\n".join(json.dumps(r) for r in rows).replace("1e+400", "1e400")
    lines = text.split("\n")
    lines.insert(9, "[1, 2]")
    lines.insert(12, '{"role": "user", "content": ')
    return ("\n".join(lines) + "\n").encode()


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_openai_chat_jsonl_read_in_pieces_gives_the_whole_read(
    tmp_path: Path, data: st.DataObject
) -> None:
    raw = _chat_lines()
    cuts = data.draw(st.lists(st.integers(1, len(raw) - 1), max_size=4), label="cuts")
    target = tmp_path / f"chat-{len(cuts)}-{sum(cuts)}.jsonl"
    target.write_bytes(b"")
    watcher = SessionWatcher(target, format="openai-chat", clock=lambda: 0.0)
    seen, start = None, 0
    for cut in [*sorted(set(cuts)), len(raw)]:
        with target.open("ab") as fh:
            fh.write(raw[start:cut])
        start = cut
        _touched(target)
        seen = watcher.poll() or seen
    whole = load_session(target, "openai-chat")
    assert seen is not None and watcher._follower is not None
    assert seen.model_dump() == whole.model_dump()
    assert any("token counts ignored" in w for w in whole.meta.warnings)


def test_another_agents_file_under_one_agents_path_is_read_as_what_it_holds(
    tmp_path: Path,
) -> None:
    """A Codex rollout moved over a watched file in ``.claude/projects``: the path says
    Claude Code, the content Codex, and the watcher reads what ``load_session`` reads (a
    follower started from the path's hint read an empty Claude Code session)."""
    from ctxtui.samples import samples_dir

    folder = tmp_path / ".claude" / "projects" / "x"
    folder.mkdir(parents=True)
    path = folder / "live.jsonl"
    path.write_bytes((samples_dir() / "claude_code_compacted.jsonl").read_bytes())
    watcher = SessionWatcher(path, clock=lambda: 0.0)
    first = watcher.poll()
    assert first is not None and first.meta.format == "claude-code"
    assert watcher.history().meta.format == "claude-code"
    moved = tmp_path / "moved.jsonl"
    moved.write_bytes((samples_dir() / "codex_rollout.jsonl").read_bytes())
    moved.replace(path)
    grown = watcher.poll()
    whole = load_session(path)
    assert whole.meta.format == "codex"
    assert grown is not None and grown.model_dump() == whole.model_dump()
    assert watcher.history().model_dump() == load_session(path, full_history=True).model_dump()


def test_a_watched_read_keeps_no_stop_check_and_its_state_still_pickles(tmp_path: Path) -> None:
    """The stop check a read is handed is the read's: the state kept after it holds none
    (it would keep the worker alive, and a state with a lambda cannot be stored)."""
    path = tmp_path / "session.jsonl"
    path.write_text("".join(_claude_line(i, f"u{i - 1}" if i else None) for i in range(50)))
    watcher = SessionWatcher(
        path, format="claude-code", clock=lambda: 0.0, should_stop=lambda: False
    )
    assert watcher.poll() is not None
    watcher.history()
    for kept in (watcher._follower, watcher._history and watcher._history[0]):
        assert kept is not None and kept.live.should_stop is None
        assert kept.dumps()
