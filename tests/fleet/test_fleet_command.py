"""``ctxtui fleet``: one row per session whose figures are report's and replay's, the totals
their sum, the index re-reading only what changed, and bad files as rows."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

import ctxtui.fleet.job as job
from ctxtui.cli.main import main
from ctxtui.core.fleet import ROW_FIELDS, conversation_messages, totals
from ctxtui.importers import load_session
from tests.fleet.store import EXAMPLES, SAMPLES, make_store

PRESETS = ("plan", "codex", "claude-code")


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name, value in make_store(tmp_path).items():
        if value:
            monkeypatch.setenv(name, value)
        else:
            monkeypatch.delenv(name, raising=False)
    return tmp_path


@pytest.fixture
def opens(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """How often each session file was read by the job (both loads of one session count)."""
    seen: Counter[str] = Counter()
    real, real_history = job._load, job._read_history

    def counted(target: job.Target, spec: job.Spec, *, full_history: bool) -> Any:
        seen[target.path] += 1
        return real(target, spec, full_history=full_history)

    def counted_history(target: job.Target, spec: job.Spec) -> Any:
        seen[target.path] += 1
        return real_history(target, spec)

    monkeypatch.setattr(job, "_load", counted)
    monkeypatch.setattr(job, "_read_history", counted_history)
    return seen


def _json(capsys: pytest.CaptureFixture[str], *argv: str, code: int = 0) -> dict[str, Any]:
    capsys.readouterr()
    assert main(list(argv)) == code
    doc: dict[str, Any] = json.loads(capsys.readouterr().out)
    return doc


def _fleet(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    return _json(capsys, "fleet", "--json", "--workers", "1", *argv)


def test_every_row_has_report_and_replay_figures(
    store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = _fleet(capsys, "--compare", ",".join(PRESETS))
    rows = doc["sessions"]
    assert doc["schema"] == "ctxtui.fleet/1" and doc["preset"] == "plan"
    assert {r["agent"] for r in rows} == {"claude-code", "codex", "opencode", "picoclaw"}
    assert all(list(r) == list(ROW_FIELDS) for r in rows)
    parents = {Path(r["path"]).name: r["parent"] for r in rows}
    assert parents["agent-e5f6.jsonl"] is not None
    assert parents["agent-e5f6.jsonl"].endswith("c3d4-replay.jsonl")
    assert sum(p is not None for p in parents.values()) == 1
    per_preset: dict[str, list[Any]] = {p: [0, 0, 0.0] for p in PRESETS}
    for row in rows:
        assert row["error"] is None, row
        path = row["path"]
        # the fleet simulates under plan; report alone would take the agent's own preset
        report = _json(capsys, "report", path, "--json", "--preset", "plan")
        whole = conversation_messages(load_session(path, full_history=True))
        assert row["messages"] == whole >= report["session"]["message_count"]
        assert row["top_tool"] == (report["tools"][0]["name"] if report["tools"] else None)
        priced = report["cost"]["requests_priced"]
        assert row["cost_usd"] == (report["cost"]["total_usd"] if priced else None)
        assert row["cache_hit_ratio"] == report["cache"]["hit_ratio"]
        for preset in PRESETS:
            replayed = _json(capsys, "replay", path, "--json", "--preset", preset)
            simulated = [r["simulated_tokens"] for r in replayed["requests"]]
            per_preset[preset][0] += len(replayed["compactions"])
            per_preset[preset][1] = max(per_preset[preset][1], max(simulated, default=0))
            per_preset[preset][2] += replayed["what_if"]["simulated"]["cost_usd"] or 0.0
            if preset != "plan":
                continue
            reported = [r["reported_tokens"] for r in replayed["requests"]]
            assert row["requests"] == len(replayed["requests"])
            assert row["compactions_simulated"] == len(replayed["compactions"])
            assert row["compactions_recorded"] == len(replayed["recorded_compactions"])
            assert row["peak_simulated"] == max(simulated)
            assert row["peak_reported"] == max((r for r in reported if r is not None), default=None)
    assert [p["preset"] for p in doc["presets"]] == list(PRESETS)
    for p in doc["presets"]:
        compactions, peak, cost = per_preset[p["preset"]]
        assert [p["compactions_simulated"], p["peak_simulated"]] == [compactions, peak]
        assert p["cost_usd_simulated"] == pytest.approx(cost, abs=1e-6)  # the what-if run
        assert p["cost_usd_simulated"] > 0
    totals_ = doc["totals"]
    assert doc["recorded"] == {
        "compactions_recorded": totals_["compactions_recorded"],
        "peak_reported": totals_["peak_reported"],
        "cost_usd": totals_["cost_usd"],
    }
    assert sum(r["compactions_recorded"] for r in rows) > 0  # the compacted samples count
    assert sum(r["cost_usd"] is not None for r in rows) >= 4  # Claude Code and Codex are priced


def test_totals_and_groups_are_the_sums_of_the_rows(
    store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = _fleet(capsys)
    rows = doc["sessions"]
    assert doc["totals"] == totals(rows)
    assert doc["totals"]["messages"] == sum(r["messages"] for r in rows)
    for group in ("by_agent", "by_model", "by_project"):
        parts = doc[group].values()
        assert sum(g["sessions"] for g in parts) == len(rows)
        assert sum(g["messages"] for g in parts) == doc["totals"]["messages"]
        assert sum(g["requests"] for g in parts) == doc["totals"]["requests"]
        assert max(g["peak_simulated"] for g in parts) == doc["totals"]["peak_simulated"]
    days = doc["by_day"].values()  # each request on its own day
    assert sum(g["requests"] for g in days) == doc["totals"]["requests"]
    assert sum(g["cost_usd"] or 0 for g in days) == pytest.approx(doc["totals"]["cost_usd"])


def test_the_process_pool_gives_the_same_rows(
    store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    inline = _fleet(capsys, "--no-cache")
    pooled = _json(capsys, "fleet", "--json", "--no-cache", "--workers", "2")
    assert pooled == inline


def test_a_second_run_reads_only_the_changed_file(
    store: Path, capsys: pytest.CaptureFixture[str], opens: Counter[str]
) -> None:
    first = _fleet(capsys)
    assert set(opens) == {r["path"] for r in first["sessions"]}
    opens.clear()
    assert _fleet(capsys) == first
    assert not opens
    changed = next(r["path"] for r in first["sessions"] if r["agent"] == "picoclaw")
    with open(changed, "a", encoding="utf-8") as fh:
        fh.write(json.dumps({"role": "user", "content": "one more"}) + "\n")
    third = _fleet(capsys)
    assert set(opens) == {changed}
    row = next(r for r in third["sessions"] if r["path"] == changed)
    assert (
        row["messages"]
        == next(r["messages"] for r in first["sessions"] if r["path"] == changed) + 1
    )


def test_a_new_preset_reads_again_but_keeps_what_it_had(
    store: Path, capsys: pytest.CaptureFixture[str], opens: Counter[str]
) -> None:
    _fleet(capsys)
    opens.clear()
    _fleet(capsys, "--compare", "plan,codex")
    assert opens  # codex was not stored yet
    opens.clear()
    _fleet(capsys, "--preset", "codex")
    assert not opens


def test_no_cache_reads_everything_and_leaves_the_index_alone(
    store: Path, capsys: pytest.CaptureFixture[str], opens: Counter[str]
) -> None:
    doc = _fleet(capsys, "--no-cache")
    assert set(opens) == {r["path"] for r in doc["sessions"]}
    assert not (store / "cache" / "fleet.sqlite3").exists()


def test_the_index_is_in_the_cache_dir_and_never_beside_the_sessions(
    store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = sorted(p for p in (store / "home").rglob("*"))
    _fleet(capsys)
    assert sorted(p for p in (store / "home").rglob("*")) == before
    assert (store / "cache" / "fleet.sqlite3").is_file()


@pytest.mark.parametrize("content", ["garbage", "foreign"])
def test_a_corrupt_or_foreign_index_is_set_aside_with_one_line(
    store: Path, capsys: pytest.CaptureFixture[str], content: str
) -> None:
    index = store / "cache" / "fleet.sqlite3"
    index.parent.mkdir(parents=True)
    if content == "garbage":
        index.write_bytes(b"this is not a database" * 100)
    else:
        con = sqlite3.connect(index)
        con.execute("CREATE TABLE notes (text TEXT)")
        con.commit()
        con.close()
    capsys.readouterr()
    assert main(["fleet", "--json", "--workers", "1"]) == 0
    out = capsys.readouterr()
    assert json.loads(out.out)["sessions"]
    lines = out.err.strip().splitlines()
    assert len(lines) == 1 and "set aside as fleet.sqlite3.unusable-" in lines[0]
    assert len(list(index.parent.glob("fleet.sqlite3.unusable-*"))) == 1
    assert _fleet(capsys)["sessions"]  # the new index works


def test_only_the_last_unusable_index_is_kept_aside(
    store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each unusable index was set aside and never removed: they piled up."""
    index = store / "cache" / "fleet.sqlite3"
    index.parent.mkdir(parents=True)
    older = index.with_name("fleet.sqlite3.unusable-20250101-000000")
    older.write_bytes(b"an older unusable index")
    index.write_bytes(b"this is not a database" * 100)
    assert main(["fleet", "--json", "--workers", "1"]) == 0
    capsys.readouterr()
    kept = list(index.parent.glob("fleet.sqlite3.unusable-*"))
    assert len(kept) == 1 and kept[0] != older
    assert kept[0].read_bytes().startswith(b"this is not a database")


def test_a_deleted_session_leaves_the_index(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The index kept the rows (and simulations) of sessions deleted since, for ever."""
    from ctxtui.fleet.index import FleetIndex

    cache = tmp_path / "cache"
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    for name in ("a.json", "b.json"):
        shutil.copy(SAMPLES / "demo.json", sessions / name)
    monkeypatch.setenv("CTXTUI_CACHE_DIR", str(cache))
    _fleet(capsys, str(sessions))
    (sessions / "a.json").unlink()
    _fleet(capsys, str(sessions / "b.json"))  # a run over other paths prunes too
    with FleetIndex(cache / "fleet.sqlite3", print) as index:
        assert [Path(row["path"]).name for row, _ in index.rows()] == ["b.json"]
    con = sqlite3.connect(cache / "fleet.sqlite3")
    assert (
        con.execute("SELECT count(*) FROM simulated WHERE path LIKE '%a.json'").fetchone()[0] == 0
    )
    con.close()


def test_bad_files_are_rows_with_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CTXTUI_CACHE_DIR", str(tmp_path / "cache"))
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    (sessions / "broken.jsonl").write_text("{not json\n", encoding="utf-8")
    (sessions / "empty.json").write_bytes(b"")
    fifo = tmp_path / "fifo.jsonl"  # a directory's FIFOs are skipped; one given is a row
    os.mkfifo(fifo)
    (sessions / "good.json").write_text(
        json.dumps(
            {
                "messages": [
                    {"role": "user", "content": "hi"},
                    {"role": "assistant", "content": "hello"},
                ]
            }
        ),
        encoding="utf-8",
    )
    for argv in (("--workers", "1"), ("--workers", "2", "--no-cache")):
        capsys.readouterr()
        assert main(["fleet", "--json", str(sessions), str(fifo), *argv]) == 0
        rows = {Path(r["path"]).name: r for r in json.loads(capsys.readouterr().out)["sessions"]}
        assert set(rows) == {"broken.jsonl", "empty.json", "fifo.jsonl", "good.json"}
        assert rows["good.json"]["error"] is None and rows["good.json"]["messages"] == 2
        for name in ("broken.jsonl", "empty.json", "fifo.jsonl"):
            assert rows[name]["error"], name
            assert rows[name]["messages"] is None


def test_a_missing_path_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["fleet", str(tmp_path / "nope.jsonl")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no such file or directory" in err


def test_a_bad_knob_or_preset_is_one_line(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["fleet", "--compare", "plan,nope"]) == 2
    assert "unknown preset 'nope'" in capsys.readouterr().err


def test_cache_clear_removes_the_index(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _fleet(capsys)
    assert main(["cache", "clear"]) == 0
    assert "removed" in capsys.readouterr().out
    assert not (store / "cache" / "fleet.sqlite3").exists()
    assert main(["cache", "clear"]) == 0
    assert "nothing to clear" in capsys.readouterr().out


def test_no_simulate_reads_usage_only(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = _fleet(capsys, "--no-simulate")
    assert doc["preset"] is None
    for row in doc["sessions"]:
        assert row["messages"] is not None and row["peak_simulated"] is None


def test_the_table_names_every_session(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert main(["fleet", "--workers", "1"]) == 0
    out = capsys.readouterr().out
    assert "PEAK SIMULATED" in out and "picoclaw" in out and " sessions · " in out
    assert "  └ sub-agent" in out


def test_every_figure_says_recorded_or_simulated(
    store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The summary said "cost $X (plan)" for what was spent, beside a preset table whose
    "plan" row was the simulated run; the agents' table showed only simulated figures."""
    doc = _fleet(capsys, "--compare", "plan,codex")
    capsys.readouterr()
    assert main(["fleet", "--workers", "1", "--compare", "plan,codex"]) == 0
    out = capsys.readouterr().out
    t = doc["totals"]
    assert f"recorded ${t['cost_usd']:,.2f}" in out and "(plan)" not in out
    assert f"{t['compactions_simulated']} simulated under plan" in out
    agents = [line for line in out.splitlines() if line.startswith("AGENT  ")][-1]
    for heading in ("COMPACTIONS REC", "COMPACTIONS SIM", "PEAK REPORTED", "PEAK SIMULATED"):
        assert heading in agents
    lines = out.splitlines()
    table = lines[lines.index(next(x for x in lines if x.startswith("PRESET"))) :]
    assert table[1].split() == [
        "recorded",
        f"{t['compactions_recorded']:,}",
        f"{t['peak_reported']:,}",
        f"{t['cost_usd']:,.2f}",
    ]
    assert table[2].startswith("plan (simulated)") and table[3].startswith("codex (simulated)")


def test_by_block_prints_ccusages_blocks(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = _fleet(capsys, "--by", "block")
    blocks = doc["by_block"]
    assert blocks and all(g["end"] > g["start"] for g in blocks.values())
    assert sum(g["requests"] for g in blocks.values()) <= doc["totals"]["requests"]
    capsys.readouterr()
    assert main(["fleet", "--workers", "1", "--by", "block"]) == 0
    assert "5-HOUR BLOCK FROM (UTC)" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "why"),
    [
        (["--since", "yesterday"], "expected an ISO date"),
        (["--until", "2026-13-01"], "expected an ISO date"),
        (["--by", "hour"], "invalid choice"),
        (["--since", "2026-03-02", "--until", "2026-03-01"], "is after --until"),
    ],
)
def test_a_bad_period_or_range_is_one_line(
    store: Path, capsys: pytest.CaptureFixture[str], argv: list[str], why: str
) -> None:
    capsys.readouterr()
    try:
        code = main(["fleet", "--workers", "1", *argv])
    except SystemExit as done:  # a value refused at its flag exits through argparse
        code = int(str(done.code))
    assert code == 2
    err = capsys.readouterr().err
    assert why in err and "Traceback" not in err


def _listed(doc: dict[str, Any]) -> dict[str, Any]:
    out = {}
    for entry in doc["sessions"]:
        out[entry["open"]] = entry["messages"]
        out.update(_listed({"sessions": entry["subagents"]}))
    return out


def test_sessions_count_the_whole_file_as_the_fleet_does(
    store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``ctxtui sessions`` printed "-" for every session's messages: after a fleet run it
    has the fleet's whole-file counts from the index, and ``--count`` counts the same."""
    counted = _listed(_json(capsys, "sessions", "--json", "--count"))
    assert _listed(_json(capsys, "sessions", "--json")) == dict.fromkeys(counted)
    fleet = {row["path"]: row["messages"] for row in _fleet(capsys)["sessions"]}
    assert _listed(_json(capsys, "sessions", "--json")) == counted
    assert {k: v for k, v in fleet.items() if k in counted} == counted
    replay = next(k for k in counted if k.endswith("c3d4-replay.jsonl"))
    assert counted[replay] == 523  # three compactions: 72 after the last
    capsys.readouterr()
    assert main(["sessions"]) == 0
    assert " 523 " in capsys.readouterr().out


def test_the_table_shows_escapes_literally(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CTXTUI_CACHE_DIR", str(tmp_path / "cache"))
    name = tmp_path / "red\x1b[31m.json"
    name.write_text(
        json.dumps({"model": "m\x1b]0;title\x07", "messages": [{"role": "user", "content": "hi"}]}),
        encoding="utf-8",
    )
    capsys.readouterr()
    assert main(["fleet", "--workers", "1", str(name)]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out and "red␛[31m.json" in out


def test_no_sessions_is_said_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "XDG_DATA_HOME", "PICOCLAW_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("CTXTUI_CACHE_DIR", str(tmp_path / "cache"))
    assert main(["fleet"]) == 0
    out = capsys.readouterr()
    assert out.out == "" and out.err.startswith("no sessions found in the Claude Code")
    doc = _json(capsys, "fleet", "--json")
    assert doc["sessions"] == [] and doc["totals"]["sessions"] == 0


def test_knobs_replay_every_session_under_them(
    store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plain = _fleet(capsys)["totals"]["compactions_simulated"]
    tight = _fleet(capsys, "--context-window", "12000")["totals"]["compactions_simulated"]
    assert tight > plain
    assert main(["fleet", "--tail-min", "9000", "--tail-max", "100"]) == 2
    assert "--tail-min" in capsys.readouterr().err


def _two_session_db(path: Path) -> list[str]:
    """The demo OpenCode database with a copy of its session under another id."""
    shutil.copy(EXAMPLES / "opencode_demo.db", path)
    con = sqlite3.connect(path)
    with con:
        con.execute(
            "INSERT INTO session SELECT 'ses_02COPY', project_id, parent_id, slug, directory, "
            "title, version, time_created + 1000, time_updated + 1000, time_compacting, "
            "time_archived FROM session"
        )
        con.execute(
            "INSERT INTO message SELECT id || '_copy', 'ses_02COPY', time_created, "
            "time_updated, data FROM message"
        )
        con.execute(
            "INSERT INTO part SELECT id || '_copy', message_id || '_copy', 'ses_02COPY', "
            "time_created, time_updated, data FROM part"
        )
    ids = [sid for (sid,) in con.execute("SELECT id FROM session ORDER BY time_updated DESC")]
    con.close()
    return ids


def test_a_directory_splits_an_opencode_database_into_its_sessions(
    store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A database found in a directory is one row per session, keyed ``PATH#ID`` as
    ``ctxtui sessions`` lists it, each with that session's own figures."""
    folder = store / "given"
    folder.mkdir()
    db = folder / "opencode.db"
    ids = _two_session_db(db)
    doc = _fleet(capsys, str(folder))
    rows = doc["sessions"]
    assert [r["path"] for r in rows] == [f"{db}#{sid}" for sid in ids]
    assert all(r["agent"] == "opencode" and r["error"] is None for r in rows)
    for row in rows:
        report = _json(capsys, "report", row["path"], "--json")
        assert row["messages"] == report["session"]["message_count"]
    listed = _json(capsys, "sessions", "--json")
    store_db = [s for s in listed["sessions"] if s.get("agent") == "opencode"]
    assert store_db, "the store's database is listed"
    whole = _fleet(capsys)
    assert {r["path"] for r in whole["sessions"] if r["agent"] == "opencode"} == {
        s["open"] for s in store_db
    }


def test_a_directory_holding_opencode_storage_is_one_row_per_session(
    store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The storage's sessions are rows keyed by their ``message/ses_*`` directory, as ``ctxtui
    sessions`` lists them; its message, part and session files are no rows of their own."""
    from tests.importers.test_opencode import _two_sessions

    root = _two_sessions(store / "given")
    rows = _fleet(capsys, str(store / "given"))["sessions"]
    assert [r["path"] for r in rows] == [str(root / "message" / s) for s in ("ses_A", "ses_B")]
    assert all(r["agent"] == "opencode" and r["error"] is None for r in rows)
    assert [r["messages"] for r in rows] == [1, 1]


def _with_inline_agent(path: Path) -> None:
    """The Claude Code sample with a sub-agent an older CLI wrote into the file itself."""
    shutil.copy(SAMPLES / "claude_code_replay.jsonl", path)
    agent = {"sessionId": "s1", "cwd": "/home/me/proj", "isSidechain": True, "agentId": "ag"}
    side = [
        {**agent, "type": "user", "uuid": "g1", "parentUuid": None,
         "timestamp": "2026-11-01T09:00:05Z", "message": {"role": "user", "content": "look"}},
        {**agent, "type": "assistant", "uuid": "g2", "parentUuid": "g1",
         "timestamp": "2026-11-01T09:00:06Z",
         "message": {"role": "assistant", "model": "claude-sonnet-4-5", "content": "seen"}},
    ]  # fmt: skip
    with path.open("a", encoding="utf-8") as fh:
        fh.write("".join(json.dumps(r) + "\n" for r in side))


def test_a_directory_splits_inline_sub_agents_into_rows_of_their_own(
    store: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Claude Code transcript holding a sub-agent inline is two rows: itself, then the
    sub-agent keyed ``PATH#ID`` with the transcript as its ``parent``, as ``ctxtui sessions``
    lists them; a second run over the unchanged file takes the split from the index."""
    import ctxtui.importers as importers

    folder = store / "given"
    folder.mkdir()
    transcript = folder / "abc.jsonl"
    _with_inline_agent(transcript)
    searched: list[Path] = []
    real = importers.inline_chains

    def counted(path: Path) -> Any:
        searched.append(path)
        return real(path)

    monkeypatch.setattr(importers, "inline_chains", counted)
    doc = _fleet(capsys, str(folder))
    rows = doc["sessions"]
    assert [(r["path"], r["parent"]) for r in rows] == [
        (str(transcript), None),
        (f"{transcript}#agent-ag", str(transcript)),
    ]
    sub = rows[1]
    assert sub["error"] is None and sub["messages"] == 2
    report = _json(capsys, "report", sub["path"], "--json")
    assert sub["messages"] == report["session"]["message_count"]
    assert searched == [transcript]
    assert _fleet(capsys, str(folder)) == doc
    assert searched == [transcript]  # the index knew the file had not changed
    with transcript.open("a", encoding="utf-8") as fh:
        fh.write("\n")
    _fleet(capsys, str(folder))
    assert searched == [transcript, transcript]


@pytest.mark.parametrize(
    ("address", "why"),
    [
        ("garbage", "expected tcp://HOST:PORT"),
        ("", "expected tcp://HOST:PORT"),
        ("[::1:8786", "expected tcp://[IPv6]:PORT"),
        ("inproc://", "inproc:// is not supported"),
        ("tls://", "tls:// is not supported"),
        ("tcp://host:0", "the port must be a number from 1 to 65535"),
        ("tcp://host:http", "the port must be a number from 1 to 65535"),
        ("tcp://a b:8786", "with a host name or address"),
    ],
)
def test_a_malformed_dask_address_is_one_line_before_any_file_is_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], address: str, why: str
) -> None:
    """These exited 3 with a traceback (or needed the 'dask' extra to say anything)."""
    (tmp_path / "s.json").write_text('{"messages": [{"role": "user", "content": "hi"}]}')
    assert main(["fleet", "--no-cache", "--dask", address, str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and why in err and f"--dask {address!r}" in err


@pytest.mark.parametrize(
    ("address", "host", "port"),
    [
        ("tcp://127.0.0.1:8786", "127.0.0.1", 8786),
        ("scheduler.local:8786", "scheduler.local", 8786),
        ("tcp://[::1]:8786", "::1", 8786),
    ],
)
def test_a_dask_address_names_a_host_and_port(address: str, host: str, port: int) -> None:
    from ctxtui.fleet.run import dask_address

    assert dask_address(address) == (host, port)


def test_a_name_that_is_not_utf8_keeps_the_index(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    opens: Counter[str],
) -> None:
    """SQLite refused the path of a file named with a byte that is not UTF-8, and the index
    was turned off for the whole run (every session read again, every run)."""
    monkeypatch.setenv("CTXTUI_CACHE_DIR", str(tmp_path / "cache"))
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    odd = sessions / os.fsdecode(b"ses\xff.json")
    shutil.copy(SAMPLES / "demo.json", odd)
    shutil.copy(SAMPLES / "demo.json", sessions / "plain.json")
    first = _fleet(capsys, str(sessions))
    assert "running without it" not in capsys.readouterr().err
    assert len(first["sessions"]) == 2 and not any(r["error"] for r in first["sessions"])
    opens.clear()
    assert _fleet(capsys, str(sessions)) == first
    assert not opens, "the second run read what the index holds"
