"""The sessions listing over hostile stores: FIFOs, sockets, loops, unreadable directories,
escapes in names, huge lines and sparse side files. Real files, FIFOs and processes; the
listing runs as ``ctxtui sessions`` in a child process wherever it could hang or blow up."""

from __future__ import annotations

import faulthandler
import json
import os
import resource
import shutil
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from ctxtui.core.errors import SessionLoadError
from ctxtui.importers import load_session
from ctxtui.stores.listing import count_messages, find_sessions
from ctxtui.tui.pick_rows import pick_rows

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_sessions"
WITHOUT_DAC = (
    "setpriv",
    "--bounding-set=-dac_override,-dac_read_search",
    "--inh-caps=-dac_override,-dac_read_search",
    "--",
)
"""Runs a command as root without the capabilities that let root read any directory: a
directory made unreadable (mode 0) is then unreadable to it, as to any user."""
MB = 1024 * 1024


def _line(record: dict[str, object]) -> str:
    return json.dumps(record, separators=(",", ":")) + "\n"


def _claude(path: Path, cwd: str = "/home/me/proj", model: str = "claude-sonnet-4-5") -> Path:
    """A two-message Claude Code session, fields in the CLI's own order."""
    path.parent.mkdir(parents=True, exist_ok=True)
    common = {"isSidechain": False, "userType": "external", "cwd": cwd, "sessionId": path.stem}
    path.write_text(
        _line({"parentUuid": None, **common, "type": "user",
               "message": {"role": "user", "content": "hi"},
               "uuid": "u1", "timestamp": "2026-03-02T10:00:00.000Z"})
        + _line({"parentUuid": "u1", **common, "type": "assistant",
                 "message": {"role": "assistant", "model": model,
                             "content": [{"type": "text", "text": "hello"}]},
                 "uuid": "a1", "timestamp": "2026-03-02T10:00:05.000Z"}),
        encoding="utf-8",
    )  # fmt: skip
    return path


def _env(home: Path) -> dict[str, str]:
    return {
        "HOME": str(home),
        "PATH": "/usr/bin:/bin",
        "PYTHONPATH": str(ROOT),
        "PYTHONDONTWRITEBYTECODE": "1",
        "LANG": "C.UTF-8",
    }


_MEASURED = (
    "import resource, subprocess, sys\n"
    "p = subprocess.run(sys.argv[1:], capture_output=True)\n"
    "sys.stdout.buffer.write(p.stdout)\n"
    "sys.stderr.buffer.write(p.stderr)\n"
    "kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss\n"
    "sys.stderr.write(f'\\nPEAK_KB={kb}\\n')\n"
    "sys.exit(p.returncode)\n"
)


def _sessions(
    home: Path,
    *args: str,
    unprivileged: bool = False,
    fsize: int | None = None,
    timeout: float = 60,
) -> tuple[subprocess.CompletedProcess[bytes], float, float]:
    """``ctxtui sessions ARGS`` under ``home`` in a child: the result, seconds, peak MB."""

    def limits() -> None:
        if fsize is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))

    start = time.perf_counter()
    command = [sys.executable, "-m", "ctxtui", "sessions", *args]
    done = subprocess.run(
        [sys.executable, "-c", _MEASURED, *(WITHOUT_DAC if unprivileged else ()), *command],
        env=_env(home),
        cwd=home,
        capture_output=True,
        timeout=timeout,
        preexec_fn=limits,
    )
    seconds = time.perf_counter() - start
    err, _, peak = done.stderr.rpartition(b"\nPEAK_KB=")
    done.stderr = err
    return done, seconds, int(peak.strip() or 0) / 1024


def _fifo(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(path)
    return path


def _socket(path: Path) -> socket.socket:
    path.parent.mkdir(parents=True, exist_ok=True)
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(path))
    return sock


def _json(done: subprocess.CompletedProcess[bytes]) -> dict[str, object]:
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    doc: dict[str, object] = json.loads(done.stdout)
    return doc


def _opens(doc: dict[str, object]) -> set[str]:
    sessions = doc["sessions"]
    assert isinstance(sessions, list)
    return {s["open"] for s in sessions}


# --- item 9: FIFOs never hang anything -------------------------------------------------------


def test_open_regular_refuses_at_once_whatever_is_not_a_regular_file(tmp_path: Path) -> None:
    from ctxtui.importers._stream import NotRegularFileError, open_regular

    fifo = _fifo(tmp_path / "s.jsonl")
    sock = _socket(tmp_path / "t.jsonl")
    try:
        for path, kind in ((fifo, "FIFO"), (tmp_path, "directory"), (Path("/dev/null"), "device")):
            with pytest.raises(NotRegularFileError, match=kind):
                open_regular(path)
        with pytest.raises(OSError):  # a socket cannot even be opened
            open_regular(tmp_path / "t.jsonl")
    finally:
        sock.close()
    with pytest.raises(SessionLoadError, match="regular file, found a FIFO"):
        load_session(fifo)


def test_fifos_named_like_every_kind_of_session_are_passed_over(tmp_path: Path) -> None:
    home = tmp_path
    projects = home / ".claude" / "projects"
    good = _claude(projects / "p" / "s1.jsonl")
    _fifo(projects / "p" / "s2.jsonl")
    _fifo(projects / "p" / "s1" / "subagents" / "agent-x.jsonl")
    _fifo(home / ".codex" / "sessions" / "2026" / "03" / "02" / "rollout-2026-03-02-x.jsonl")
    _fifo(home / ".local" / "share" / "opencode" / "opencode.db")
    _fifo(home / ".picoclaw" / "workspace" / "sessions" / "chat.jsonl")

    done, _, _ = _sessions(home, "--json", timeout=30)  # hung forever before

    doc = _json(done)
    assert _opens(doc) == {str(good)}
    skipped = doc["skipped"]
    assert isinstance(skipped, list) and len(skipped) == 5
    assert all("FIFO" in s["reason"] for s in skipped)
    assert b"skipped 5 paths" in done.stderr


def test_a_file_swapped_for_a_fifo_between_check_and_open_is_refused_not_hung_on(
    tmp_path: Path,
) -> None:
    """A writer swaps a real transcript and a FIFO under one name, a millisecond each, while
    sessions are loaded from it (each load looks and opens several times): every load ends,
    read or refused; none waits for a writer on the FIFO."""
    kept = tmp_path / "fifos"
    kept.mkdir()
    path, real = tmp_path / "s.jsonl", tmp_path / "real.jsonl"
    shutil.copyfile(SAMPLES / "codex_rollout.jsonl", real)
    stop = threading.Event()

    def swap() -> None:
        n = 0
        while not stop.is_set():
            n += 1
            os.mkfifo(kept / f"f{n}")
            os.link(kept / f"f{n}", tmp_path / "next-fifo")
            os.link(real, tmp_path / "next-real")
            os.replace(tmp_path / "next-real", path)
            time.sleep(0.001)
            os.replace(tmp_path / "next-fifo", path)
            time.sleep(0.001)

    outcomes: list[str] = []

    def load() -> None:
        for _ in range(LOADS):
            try:
                load_session(path)
                outcomes.append("read")
            except Exception as err:
                outcomes.append(type(err).__name__)

    swapper = threading.Thread(target=swap, daemon=True)
    loader = threading.Thread(target=load, daemon=True)
    swapper.start()
    loader.start()
    loader.join(timeout=90)
    stop.set()
    swapper.join()
    hung, done = loader.is_alive(), len(outcomes)
    if hung:  # where it waits, for whoever reads the failure
        faulthandler.dump_traceback(all_threads=True)
    for fifo in kept.iterdir():  # let a stuck open return, so the test process can end
        try:
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        except OSError:
            continue  # no reader on this one
    assert not hung, f"a load hung on a FIFO after {done} loads"
    assert len(outcomes) == LOADS
    assert set(outcomes) <= {"read", "SessionLoadError"}


LOADS = 1500
"""Loads raced against the swaps: before opens were checked on the descriptor, a load hung
within the first few hundred in nearly every run."""


def test_sqlite_is_never_left_waiting_on_a_fifo(tmp_path: Path) -> None:
    """SQLite opens by name after ctxtui's check; should a FIFO take the name in between, its
    blocking open is ended by the watchdog (here SQLite is pointed at the FIFO directly)."""
    from ctxtui.importers._sqlite import _connect

    fifo = _fifo(tmp_path / "opencode.db")
    outcome: list[object] = []

    def connect() -> None:
        try:
            con = _connect(f"{fifo.as_uri()}?mode=ro&immutable=1", fifo)
            outcome.append(con.execute("SELECT name FROM sqlite_master").fetchall())
        except sqlite3.Error as err:
            outcome.append(err)

    thread = threading.Thread(target=connect, daemon=True)
    thread.start()
    thread.join(timeout=10)
    if thread.is_alive():
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
    assert outcome, "SQLite waited for a writer on the FIFO"


# --- item 10: names and fields are shown literally --------------------------------------------

HOSTILE = "\x1b]52;c;aGVsbG8=\x07\x1b]0;pwned\x07\x1b[31mred\nsecond line\r\x9b2J"


def test_escapes_in_names_cwd_and_model_are_shown_literally(tmp_path: Path) -> None:
    home = tmp_path
    project = home / ".claude" / "projects" / f"p{HOSTILE}"
    _claude(project / f"s{HOSTILE}.jsonl", cwd=f"/w/{HOSTILE}", model=f"m{HOSTILE}")
    raw = os.fsencode(str(home / ".claude" / "projects" / "q")) + b"\xff\xfe"
    os.makedirs(raw)
    _claude(Path(os.fsdecode(raw + b"/s\xff.jsonl")))
    _claude(home / ".claude" / "projects" / "plain" / "s3.jsonl")

    table, _, _ = _sessions(home)
    doc = _json(_sessions(home, "--json")[0])

    assert table.returncode == 0, table.stderr
    out = table.stdout.decode("utf-8")  # printable: undecodable bytes shown as \xNN
    assert not any(c in out for c in "\x1b\x07\r\x9b")
    lines = out.splitlines()
    assert len(lines) == 1 + 3  # the header and one row per session: no newline broke a row
    assert "␛]52;c;aGVsbG8=␇" in out and "⏎second line" in out and "\\xff\\xfe" in out
    assert not any(c in doc_text for c in "\x1b\x07\x9b" for doc_text in [table.stdout.decode()])
    sessions = doc["sessions"]
    assert isinstance(sessions, list) and len(sessions) == 3
    assert {s["model"] for s in sessions} >= {f"m{HOSTILE}"}  # JSON keeps the data as data

    rows = pick_rows(find_sessions({"HOME": str(home)}), [])
    for row in rows:
        for cell in row.cells:
            assert cell.isprintable(), repr(cell)


def test_sessions_json_escapes_every_control_character(tmp_path: Path) -> None:
    _claude(tmp_path / ".claude" / "projects" / "p" / "s.jsonl", model=f"m{HOSTILE}\x85\u2028")
    done, _, _ = _sessions(tmp_path, "--json")
    assert not any(b in done.stdout for b in (b"\x1b", b"\x07", b"\xc2\x9b", b"\xc2\x85"))
    (entry,) = _json(done)["sessions"]  # type: ignore[misc]
    assert entry["model"] == f"m{HOSTILE}\x85\u2028"


# --- item 11: what cannot be read hides nothing else -----------------------------------------


def test_an_unreadable_directory_hides_no_later_session(tmp_path: Path) -> None:
    """Nine sessions in three projects; one project and one session's own directory cannot
    be read by ``sessions`` (run without root's power to read any directory)."""
    projects = tmp_path / ".claude" / "projects"
    made = [_claude(projects / f"p{p}" / f"s{p}{i}.jsonl") for p in "abc" for i in range(3)]
    (projects / "pa" / "sa0" / "subagents").mkdir(parents=True)
    _claude(projects / "pa" / "sa0" / "subagents" / "agent-1.jsonl")
    (projects / "pa" / "sa0").chmod(0)  # the session's sub-agent directory
    (projects / "pb").chmod(0)  # a whole project

    done, _, _ = _sessions(tmp_path, "--json", unprivileged=True)

    doc = _json(done)
    readable = {str(p) for p in made if p.parent.name != "pb"}
    assert _opens(doc) == readable  # six: only pb's three are missing
    skipped = doc["skipped"]
    assert isinstance(skipped, list)
    assert {s["path"] for s in skipped} == {
        str(projects / "pa" / "sa0" / "subagents"),
        str(projects / "pb"),
    }
    assert {s["reason"] for s in skipped} == {"permission denied"}
    assert b"skipped 2 paths that could not be read" in done.stderr

    table, _, _ = _sessions(tmp_path, unprivileged=True)
    assert table.returncode == 0 and len(table.stdout.splitlines()) == 1 + 6
    assert b"skipped 2 paths" in table.stderr


def test_a_sessions_unreadable_sub_agent_directory_is_passed_over_where_costs_look(
    tmp_path: Path,
) -> None:
    """``subagent_paths`` (a session's costs with its sub-agents) walks the same directory."""
    parent = _claude(tmp_path / "p" / "s.jsonl")
    (tmp_path / "p" / "s" / "subagents").mkdir(parents=True)
    _fifo(tmp_path / "p" / "s" / "subagents" / "agent-f.jsonl")
    _claude(tmp_path / "p" / "s" / "subagents" / "agent-a.jsonl")
    code = (
        "import sys; from ctxtui.importers.subagents import subagent_paths; "
        "print(subagent_paths(sys.argv[1], 'claude-code'))"
    )
    run = [sys.executable, "-c", code, str(parent)]
    listed = subprocess.run(run, capture_output=True, text=True, env=_env(tmp_path), check=True)
    assert listed.stdout.strip() == repr(
        [str(tmp_path / "p" / "s" / "subagents" / "agent-a.jsonl")]
    )
    (tmp_path / "p" / "s").chmod(0)
    try:
        hidden = subprocess.run(
            [*WITHOUT_DAC, *run], capture_output=True, text=True, env=_env(tmp_path)
        )
    finally:
        (tmp_path / "p" / "s").chmod(0o755)
    assert (hidden.returncode, hidden.stdout.strip(), hidden.stderr) == (0, "[]", "")


# --- item 12: bounded resources ----------------------------------------------------------------


def test_a_huge_single_line_costs_the_listing_a_bounded_read(tmp_path: Path) -> None:
    """A 150 MB sidechain record on one line (inline sub-agents are searched in every
    Claude Code transcript): the listing used to copy and parse it whole (~3x its size)."""
    path = _claude(tmp_path / ".claude" / "projects" / "p" / "s.jsonl")
    with path.open("a", encoding="utf-8") as fh:
        fh.write('{"parentUuid":"a1","isSidechain":true,"agentId":"ag","type":"user",')
        fh.write('"message":{"role":"user","content":"')
        for _ in range(150):
            fh.write("x" * MB)
        fh.write('"},"uuid":"g1","timestamp":"2026-03-02T10:01:00.000Z"}\n')

    done, _, peak = _sessions(tmp_path, "--json")

    (entry,) = _json(done)["sessions"]  # type: ignore[misc]
    (child,) = entry["subagents"]
    assert child["open"] == f"{path}#agent-ag"
    assert child["started"] == "2026-03-02T10:01:00+00:00"
    assert peak <= 120, f"{peak:.0f} MB"  # ~50: the line is never mapped in or copied


def test_tiny_sidechain_lines_cost_a_bounded_parse(tmp_path: Path) -> None:
    path = _claude(tmp_path / ".claude" / "projects" / "p" / "s.jsonl")
    line = _line({"parentUuid": "a1", "isSidechain": True, "agentId": "ag", "type": "user",
                  "message": {"role": "user", "content": "ok"}, "uuid": "g{}",
                  "timestamp": "2026-03-02T10:01:00.000Z"})  # fmt: skip
    with path.open("a", encoding="utf-8") as fh:
        for block in range(64 * MB // (len(line) * 1000)):
            fh.write("".join(line.replace("g{}", f"g{block}-{i}") for i in range(1000)))

    done, _, peak = _sessions(tmp_path, "--json")

    (entry,) = _json(done)["sessions"]  # type: ignore[misc]
    assert [c["open"] for c in entry["subagents"]] == [f"{path}#agent-ag"]
    assert peak <= 300, f"{peak:.0f} MB"


def _opencode(path: Path, sessions: int, messages: int = 0) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    con = sqlite3.connect(path)
    con.executescript(
        "CREATE TABLE session (id TEXT, directory TEXT, title TEXT, time_created INT, "
        "time_updated INT);"
        "CREATE TABLE message (id TEXT, session_id TEXT, time_created INT, data TEXT);"
        "CREATE TABLE part (id TEXT, message_id TEXT, session_id TEXT, data TEXT);"
    )
    con.executemany(
        "INSERT INTO session VALUES (?, '/w', 't', 1793448000000, ?)",
        ((f"ses_{i}", i) for i in range(sessions)),
    )
    con.executemany(
        "INSERT INTO message VALUES (?, ?, 1, '{}')",
        ((f"msg_{i}", f"ses_{i % sessions}") for i in range(messages)),
    )
    con.commit()
    con.close()
    return path


def test_a_sparse_huge_wal_is_never_copied(tmp_path: Path) -> None:
    """A 5 GiB sparse ``-wal`` beside an OpenCode database: copying it would fill the disk.
    The child may write at most 64 MiB to any file (``RLIMIT_FSIZE``), so a copy kills it."""
    db = _opencode(tmp_path / ".local" / "share" / "opencode" / "opencode.db", 3)
    with open(db.with_name("opencode.db-wal"), "wb") as wal:
        wal.truncate(5 * 1024**3)

    done, _, _ = _sessions(tmp_path, "--json", fsize=64 * MB)

    assert {s["session_id"] for s in _json(done)["sessions"]} == {"ses_0", "ses_1", "ses_2"}  # type: ignore[attr-defined]


def test_opening_a_database_with_a_huge_wal_says_what_is_left_out(tmp_path: Path) -> None:
    db = _opencode(tmp_path / "opencode.db", 1, 2)
    with open(db.with_name("opencode.db-wal"), "wb") as wal:
        wal.truncate(5 * 1024**3)
    session = load_session(f"{db}#ses_0")
    assert "read without the database's -wal/-journal (5,120 MiB)" in session.meta.warnings[0]


# --- the done-when: a whole hostile home ------------------------------------------------------


def test_a_hostile_home_is_listed_in_bounded_time_and_memory(tmp_path: Path) -> None:
    home = tmp_path
    projects = home / ".claude" / "projects"
    good = [_claude(projects / "p1" / "s1.jsonl"), _claude(projects / "p3" / "s3.jsonl")]
    good.append(_claude(projects / f"p{HOSTILE}" / f"s{HOSTILE}.jsonl", cwd=HOSTILE))
    _claude(projects / "p2" / "s2.jsonl")
    (projects / "p2").chmod(0)
    _fifo(projects / "p1" / "fifo.jsonl")
    sockets = [_socket(projects / "p1" / "sock.jsonl")]
    (projects / "p3" / "loop.jsonl").symlink_to("loop.jsonl")
    (projects / "p3" / "dir-loop").symlink_to(".")
    codex = home / ".codex" / "sessions" / "2026" / "03" / "02"
    codex.mkdir(parents=True)
    shutil.copyfile(SAMPLES / "codex_rollout.jsonl", codex / "rollout-2026-03-02-a.jsonl")
    good.append(codex / "rollout-2026-03-02-a.jsonl")
    _fifo(codex / "rollout-2026-03-02-b.jsonl")
    (codex / "loop").symlink_to("..")
    db = _opencode(home / ".local" / "share" / "opencode" / "opencode.db", 10_000, 20_000)
    _fifo(db.with_name("opencode-old.db"))
    _fifo(home / ".picoclaw" / "workspace" / "sessions" / "chat.jsonl")

    try:
        done, seconds, peak = _sessions(home, "--json", unprivileged=True, timeout=60)
    finally:
        for sock in sockets:
            sock.close()

    doc = _json(done)
    listed = _opens(doc)
    assert {str(p) for p in good} <= listed
    assert len(listed) == len(good) + 10_000  # every readable session, nothing else
    assert peak <= 300, (seconds, peak)  # its time is bounded by the child's timeout


# --- #29 item 3: the picker's facts ------------------------------------------------------------


def test_a_session_opening_with_a_large_image_names_its_project_model_and_start(
    tmp_path: Path,
) -> None:
    path = tmp_path / ".claude" / "projects" / "-w-app" / "s.jsonl"
    path.parent.mkdir(parents=True)
    common = {"isSidechain": False, "userType": "external", "cwd": "/w/app", "sessionId": "s"}
    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                         "data": "A" * (3 * MB)}}  # fmt: skip
    path.write_text(
        _line({"parentUuid": None, **common, "type": "user",
               "message": {"role": "user", "content": [image, {"type": "text", "text": "?"}]},
               "uuid": "u1", "timestamp": "2026-03-02T09:15:00.000Z"})
        + _line({"parentUuid": "u1", **common, "type": "assistant",
                 "message": {"role": "assistant", "model": "claude-opus-4-1",
                             "content": [{"type": "text", "text": "a cat"}]},
                 "uuid": "a1", "timestamp": "2026-03-02T09:15:09.000Z"}),
        encoding="utf-8",
    )  # fmt: skip
    os.utime(path, (1_800_000_000, 1_800_000_000))  # written much later than it began

    (entry,) = _json(_sessions(tmp_path, "--json", "--count")[0])["sessions"]  # type: ignore[misc]

    assert (entry["project"], entry["model"], entry["started"]) == (
        "/w/app",
        "claude-opus-4-1",
        "2026-03-02T09:15:00+00:00",
    )
    assert entry["messages"] == len(load_session(path).messages) == 2
    (row,) = pick_rows(find_sessions({"HOME": str(tmp_path)}), [])
    assert row.cells[1] == "/w/app" and row.cells[2] == "claude-opus-4-1"
    assert row.cells[3].startswith("2026-03-0")  # the first record's day, local time


def test_message_counts_are_the_whole_file_sub_agents_included(tmp_path: Path) -> None:
    """``--count`` counts every message of the file once, as ``ctxtui fleet`` does: the
    compacted Claude Code and Codex sessions count what their compactions replaced."""
    from ctxtui.core.fleet import conversation_messages

    projects = tmp_path / ".claude" / "projects" / "p"
    parent = projects / "s.jsonl"
    projects.mkdir(parents=True)
    shutil.copyfile(SAMPLES / "claude_code_compacted.jsonl", parent)
    subagents = projects / "s" / "subagents"
    subagents.mkdir(parents=True)
    sub = subagents / "agent-a.jsonl"  # every line of a sub-agent's file is a sidechain
    records = [{"parentUuid": f"m{i - 1}" if i else None, "isSidechain": True, "agentId": "a",
                "cwd": "/w", "sessionId": "s", "type": "user" if i % 2 == 0 else "assistant",
                "message": {"role": "user" if i % 2 == 0 else "assistant", "content": f"t{i}"},
                "uuid": f"m{i}", "timestamp": f"2026-03-02T10:00:0{i}.000Z"}
               for i in range(6)]  # fmt: skip
    sub.write_text("".join(_line(r) for r in records), encoding="utf-8")
    codex = tmp_path / ".codex" / "sessions" / "2026" / "03" / "02" / "rollout-2026-03-02-c.jsonl"
    codex.parent.mkdir(parents=True)
    shutil.copyfile(SAMPLES / "codex_replay.jsonl", codex)

    doc = _json(_sessions(tmp_path, "--json", "--count")[0])

    counted = {}
    for entry in doc["sessions"]:  # type: ignore[attr-defined]
        counted[entry["open"]] = entry["messages"]
        counted.update({c["open"]: c["messages"] for c in entry["subagents"]})
    whole = {p: conversation_messages(load_session(p, full_history=True)) for p in (parent, codex)}
    assert counted == {str(parent): whole[parent], str(sub): 6, str(codex): whole[codex]}
    assert whole[parent] > len(load_session(parent).messages)
    assert whole[codex] > len(load_session(codex).messages)
    assert len(load_session(sub).messages) == 6


def test_one_size_convention_in_the_cli_and_the_picker(tmp_path: Path) -> None:
    path = _claude(tmp_path / ".claude" / "projects" / "p" / "s.jsonl")
    with path.open("a", encoding="utf-8") as fh:
        fh.write(" " * (3_400_000 - path.stat().st_size) + "\n")
    table, _, _ = _sessions(tmp_path)
    (row,) = pick_rows(find_sessions({"HOME": str(tmp_path)}), [])
    assert row.cells[4].strip() == "3.4 MB"
    assert " 3.4 MB " in table.stdout.decode()


def test_count_messages_is_the_apps_count_for_a_listed_entry(tmp_path: Path) -> None:
    rollout = tmp_path / ".codex" / "sessions" / "rollout-2026-03-02-d.jsonl"
    rollout.parent.mkdir(parents=True)
    shutil.copyfile(SAMPLES / "codex_rollout.jsonl", rollout)
    (found,) = find_sessions({"HOME": str(tmp_path)})
    assert count_messages(found) == len(load_session(rollout).messages) == 19


def test_opencode_counts_are_the_apps_and_the_database_is_read_once(tmp_path: Path) -> None:
    import ctxtui.importers._opencode_sqlite as opencode_sqlite

    db = tmp_path / ".local" / "share" / "opencode" / "opencode.db"
    db.parent.mkdir(parents=True)
    shutil.copyfile(Path("/work/shared/reference/examples/opencode_demo.db"), db)
    _copy_sessions(db, "copy-")
    found = find_sessions({"HOME": str(tmp_path)})
    reads: list[Path] = []
    real = opencode_sqlite.message_counts

    def counted(path: Path, finish: Any) -> dict[str, int]:
        reads.append(path)
        return real(path, finish)

    opencode_sqlite.message_counts = counted  # type: ignore[assignment]
    try:
        counts = {f.open_target: count_messages(f) for f in found}
    finally:
        opencode_sqlite.message_counts = real  # type: ignore[assignment]
    assert counts == {t: len(load_session(t).messages) for t in counts}
    assert len(reads) == 1 and len(counts) == len(found) == 2


def _copy_sessions(db: Path, prefix: str) -> None:
    """Every session of ``db`` once more, its ids (and those it refers to) prefixed."""
    con = sqlite3.connect(db)
    refs = {"id", "session_id", "message_id"}
    for table in ("session", "message", "part"):
        columns = [row[1] for row in con.execute(f"PRAGMA table_info({table})")]
        rows = con.execute(f"SELECT * FROM {table}").fetchall()
        marks = ", ".join("?" * len(columns))
        con.executemany(
            f"INSERT INTO {table} VALUES ({marks})",
            [
                [_prefixed(prefix, c in refs, v) for c, v in zip(columns, r, strict=True)]
                for r in rows
            ],
        )
    con.commit()
    con.close()


def _prefixed(prefix: str, ref: bool, value: object) -> object:
    return prefix + value if ref and isinstance(value, str) else value
