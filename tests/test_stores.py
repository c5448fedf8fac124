"""Session discovery: fake stores of all four agents under a temporary HOME."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
import zstandard

from ctxtui.importers import FoundSession
from ctxtui.importers._store_files import HEAD_BYTES
from ctxtui.stores.listing import count_messages, find_sessions


def _jsonl(path: Path, records: list[dict[str, object]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def _claude(root: Path, project: str, sid: str, when: str, model: str) -> Path:
    return _jsonl(
        root / "projects" / project / f"{sid}.jsonl",
        [
            {
                "type": "user",
                "uuid": "u1",
                "sessionId": sid,
                "cwd": "/home/me/proj",
                "timestamp": when,
                "message": {"role": "user", "content": "hi"},
            },
            {
                "type": "assistant",
                "uuid": "a1",
                "parentUuid": "u1",
                "sessionId": sid,
                "cwd": "/home/me/proj",
                "timestamp": when,
                "message": {
                    "role": "assistant",
                    "model": model,
                    "content": [{"type": "text", "text": "hello"}],
                },
            },
        ],
    )


def _codex(root: Path, when: str, name: str = "rollout-2026-11-02T10-00-00-abc.jsonl") -> Path:
    return _jsonl(
        root / "sessions" / "2026" / "11" / "02" / name,
        [
            {
                "timestamp": when,
                "type": "session_meta",
                "payload": {"id": "abc", "timestamp": when, "cwd": "/srv/app"},
            },
            {"timestamp": when, "type": "turn_context", "payload": {"model": "gpt-5-codex"}},
            {
                "timestamp": when,
                "type": "response_item",
                "payload": {"type": "message", "role": "user", "content": []},
            },
        ],
    )


def _opencode_db(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    con = sqlite3.connect(path)
    con.executescript(
        "CREATE TABLE session (id TEXT, directory TEXT, title TEXT, time_created INT, "
        "time_updated INT);"
        "CREATE TABLE message (id TEXT, session_id TEXT, time_created INT, data TEXT);"
        "INSERT INTO session VALUES ('ses_A', '/w/a', 'first', 1793448000000, 1793448000000);"
        "INSERT INTO session VALUES ('ses_B', '/w/b', 'second', 1793534400000, 1793534400000);"
        "INSERT INTO message VALUES ('msg_1', 'ses_B', 1, '{}');"
        "INSERT INTO message VALUES ('msg_2', 'ses_B', 2, '{}');"
    )
    con.commit()
    con.close()
    return path


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    return home


def _env(home: Path, **extra: str) -> dict[str, str]:
    return {"HOME": str(home), **extra}


def test_every_agents_store_is_listed_newest_first(home: Path) -> None:
    _claude(home / ".claude", "-home-me-proj", "s1", "2026-11-01T09:00:00Z", "claude-sonnet-4-5")
    _codex(home / ".codex", "2026-11-02T10:00:00Z")
    _opencode_db(home / ".local" / "share" / "opencode" / "opencode.db")
    sessions = home / ".picoclaw" / "workspace" / "sessions"
    _jsonl(sessions / "chat.jsonl", [{"role": "user", "content": "hi"}])
    (sessions / "chat.meta.json").write_text(
        json.dumps({"key": "k", "created_at": "2026-10-30T08:00:00Z", "scope": {"channel": "tg"}})
    )

    found = find_sessions(_env(home))

    assert [(f.agent, f.project) for f in found] == [
        ("codex", "/srv/app"),
        ("opencode", "/w/b"),
        ("claude-code", "/home/me/proj"),
        ("opencode", "/w/a"),
        ("picoclaw", "tg"),
    ]
    codex, newest_db, claude, _, _ = found
    assert codex.model == "gpt-5-codex"
    assert claude.model == "claude-sonnet-4-5"
    assert newest_db.open_target.endswith("opencode.db#ses_B")


def test_environment_overrides_move_each_store(home: Path, tmp_path: Path) -> None:
    _claude(tmp_path / "cc", "p", "s1", "2026-11-01T09:00:00Z", "m")
    _codex(tmp_path / "cx", "2026-11-02T10:00:00Z")
    _opencode_db(tmp_path / "xdg" / "opencode" / "opencode.db")
    _jsonl(tmp_path / "pc" / "workspace" / "sessions" / "k.jsonl", [{"role": "user"}])
    env = _env(
        home,
        CLAUDE_CONFIG_DIR=str(tmp_path / "cc"),
        CODEX_HOME=str(tmp_path / "cx"),
        XDG_DATA_HOME=str(tmp_path / "xdg"),
        PICOCLAW_HOME=str(tmp_path / "pc"),
    )
    assert sorted({f.agent for f in find_sessions(env)}) == [
        "claude-code",
        "codex",
        "opencode",
        "picoclaw",
    ]
    assert find_sessions(_env(home)) == []


def test_claude_code_subagents_are_listed_under_their_parent(home: Path) -> None:
    parent = _claude(home / ".claude", "p", "s1", "2026-11-01T09:00:00Z", "m")
    sub = _claude(parent.parent / "s1" / "subagents", ".", "agent-x", "2026-11-01T09:01:00Z", "m")
    sub = sub.rename(parent.parent / "s1" / "subagents" / "agent-x.jsonl")

    (listed,) = find_sessions(_env(home))

    assert listed.path == parent
    assert [c.path for c in listed.children] == [sub]


def test_an_older_clis_agent_files_beside_the_sessions_are_listed_under_their_parent(
    home: Path,
) -> None:
    parent = _claude(home / ".claude", "p", "s1", "2026-11-01T09:00:00Z", "m")
    agent = _claude(home / ".claude", "p", "agent-x", "2026-11-01T09:01:00Z", "m")  # sessionId s1
    agent.write_text(agent.read_text().replace('"agent-x"', '"s1"'), encoding="utf-8")
    orphan = _claude(home / ".claude", "p", "agent-y", "2026-11-01T09:02:00Z", "m")

    found = find_sessions(_env(home))

    assert [f.path for f in found] == [orphan, parent]
    assert [c.path for c in found[1].children] == [agent]


def test_inline_sub_agents_are_listed_under_their_parent_and_open_as_sessions(
    home: Path,
) -> None:
    from ctxtui.importers import load_session

    parent = _claude(home / ".claude", "p", "s1", "2026-11-01T09:00:00Z", "m")
    agent = {"sessionId": "s1", "cwd": "/home/me/proj", "isSidechain": True, "agentId": "ag"}
    side = [
        {**agent, "type": "user", "uuid": "g1", "parentUuid": None,
         "timestamp": "2026-11-01T09:00:05Z", "message": {"role": "user", "content": "look"}},
        {**agent, "type": "assistant", "uuid": "g2", "parentUuid": "g1",
         "message": {"role": "assistant", "model": "sub-m", "content": "seen"}},
        {"sessionId": "s1", "isSidechain": True, "type": "user", "uuid": "o1",
         "parentUuid": "a1", "message": {"role": "user", "content": "older CLI, no agentId"}},
    ]  # fmt: skip
    with parent.open("a", encoding="utf-8") as fh:
        fh.write("".join(json.dumps(r) + "\n" for r in side))

    (listed,) = find_sessions(_env(home))

    assert count_messages(listed) == 2  # the parent's own: sub-agents count for themselves
    assert [(c.open_target, count_messages(c), c.model) for c in listed.children] == [
        (f"{parent}#agent-ag", 2, "sub-m"),
        (f"{parent}#o1", 1, None),
    ]
    first = listed.children[0]
    assert first.started is not None and first.started.second == 5
    assert first.size == sum(len(json.dumps(r)) + 1 for r in side[:2])
    opened = load_session(first.open_target)
    assert [m.content for m in opened.messages] == ["look", "seen"]


def test_sessions_json_lists_an_inline_sub_agent_with_what_to_open(
    home: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from ctxtui.cli.main import main

    parent = _claude(home / ".claude", "p", "s1", "2026-11-01T09:00:00Z", "m")
    side = {"type": "user", "uuid": "g1", "parentUuid": "a1", "sessionId": "s1",
            "isSidechain": True, "agentId": "ag",
            "message": {"role": "user", "content": "x"}}  # fmt: skip
    with parent.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(side, separators=(",", ":")) + "\n")
    for name in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "XDG_DATA_HOME", "PICOCLAW_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(home))

    assert main(["sessions", "--json", "--count"]) == 0

    (entry,) = json.loads(capsys.readouterr().out)["sessions"]
    (sub,) = entry["subagents"]
    assert (sub["open"], sub["path"], sub["session_id"]) == (
        f"{parent}#agent-ag",
        str(parent),
        "agent-ag",
    )
    assert sub["messages"] == 1


def test_a_file_of_one_sub_agents_lines_lists_no_children(home: Path) -> None:
    agent = {"sessionId": "s1", "isSidechain": True, "agentId": "ag"}
    _jsonl(
        home / ".claude" / "projects" / "p" / "s1.jsonl",
        [{**agent, "type": "user", "uuid": "g1", "parentUuid": None, "message": {}}],
    )
    (listed,) = find_sessions(_env(home))
    assert listed.children == ()


def test_a_corrupt_file_is_listed_with_its_error(home: Path) -> None:
    bad = home / ".codex" / "sessions" / "2026" / "11" / "02" / "rollout-bad.jsonl.zst"
    bad.parent.mkdir(parents=True)
    bad.write_bytes(b"\x28\xb5\x2f\xfd" + b"\xff" * 64)
    _codex(home / ".codex", "2026-11-02T10:00:00Z")
    _opencode_db(home / ".local" / "share" / "opencode" / "opencode.db").write_bytes(b"junk" * 40)

    found = find_sessions(_env(home))

    errors = {f.path.name: f.error for f in found if f.error}
    assert set(errors) == {"rollout-bad.jsonl.zst", "opencode.db"}
    assert all(errors.values())
    assert any(f.error is None and f.agent == "codex" for f in found)


def test_a_zstd_rollout_is_read_and_its_plain_sibling_wins(home: Path) -> None:
    plain = _codex(home / ".codex", "2026-11-02T10:00:00Z")
    packed = plain.with_name(plain.name + ".zst")
    packed.write_bytes(zstandard.ZstdCompressor().compress(plain.read_bytes()))
    assert [f.path for f in find_sessions(_env(home))] == [plain]
    plain.unlink()
    (found,) = find_sessions(_env(home))
    assert (found.path, found.project) == (packed, "/srv/app")


def test_listing_reads_only_a_bounded_head(home: Path) -> None:
    path = _claude(home / ".claude", "p", "s1", "2026-11-01T09:00:00Z", "m")
    with path.open("a", encoding="utf-8") as fh:  # a long tail, and no newline at its end
        fh.write('{"type":"user","message":{"content":"' + "x" * (4 * HEAD_BYTES) + '"}}')
    (found,) = find_sessions(_env(home))
    assert found.error is None and found.model == "m"
    assert found.messages is None  # not counted until asked
    assert count_messages(found) == 2  # as the app opens it: a cut-off last line is set aside


def test_two_thousand_sessions_are_listed(home: Path) -> None:
    for i in range(2_000):
        _claude(home / ".claude", f"p{i % 20}", f"s{i}", f"2026-11-01T09:{i % 60:02}:00Z", "m")
    found = find_sessions(_env(home))
    assert len(found) == 2_000
    assert all(isinstance(f, FoundSession) and f.error is None for f in found)
    times = [f.sort_key for f in found]
    assert times == sorted(times, reverse=True)


def test_sessions_command_prints_json(home: Path) -> None:
    _claude(home / ".claude", "p", "s1", "2026-11-01T09:00:00Z", "claude-opus-4-1")
    out = subprocess.run(
        [sys.executable, "-m", "ctxtui", "sessions", "--json", "--count"],
        env={"HOME": str(home), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=True,
    )
    doc = json.loads(out.stdout)
    assert doc["schema"] == "ctxtui.sessions/1"
    (entry,) = doc["sessions"]
    assert (entry["agent"], entry["model"], entry["messages"]) == (
        "claude-code",
        "claude-opus-4-1",
        2,
    )


def test_a_live_opencode_database_is_listed_from_its_wal_without_touching_it(home: Path) -> None:
    db = _opencode_db(home / ".local" / "share" / "opencode" / "opencode.db")
    writer = sqlite3.connect(db)
    try:
        writer.execute("PRAGMA journal_mode=WAL")
        writer.execute("INSERT INTO session VALUES ('ses_C', '/w/c', 'live', 1793600000000, 1)")
        writer.commit()  # committed, but only in opencode.db-wal while the writer is open
        before = {p.name: p.read_bytes() for p in db.parent.iterdir()}
        found = find_sessions(_env(home))
        after = {p.name: p.read_bytes() for p in db.parent.iterdir()}
    finally:
        writer.close()
    assert "ses_C" in {f.session_id for f in found}
    assert after == before
