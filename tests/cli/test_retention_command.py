"""``ctxtui retention``: the ``ctxtui.retention/2`` contract on the bundled samples, the table,
one-line errors; and the ``retention`` blocks ``replay --json`` gained."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from syrupy.assertion import SnapshotAssertion

from ctxtui.cli.main import main
from ctxtui.commands.retention import LEGEND, render
from ctxtui.samples import samples_dir

SAMPLES = samples_dir()
KINDS = {"path", "command", "error", "test", "identifier", "number", "url", "instruction"}
BLOCK = {
    "source", "request", "replaced", "summary_tokens", "kinds", "dropped", "needed_after",
    "duplicated_lines",
}  # fmt: skip
CAPPED = {"dropped_per_kind", "dropped_unlisted"}
"""What ``retention``'s blocks add to ``replay``'s: the cap on the listed facts, the rest."""


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    assert main(["retention", *argv, "--json"]) == 0
    doc: dict[str, Any] = json.loads(capsys.readouterr().out)
    return doc


def _check_block(c: dict[str, Any], capped: bool = True) -> None:
    assert set(c) == (BLOCK | CAPPED if capped else BLOCK)
    assert set(c["kinds"]) == KINDS
    assert set(c["replaced"]) == {"from", "to", "tokens"}
    lost = sum(v["total"] - v["kept"] for v in c["kinds"].values())
    assert len(c["dropped"]) + c.get("dropped_unlisted", 0) == lost
    for d in c["dropped"]:
        assert set(d) == {"kind", "text", "message_index", "salience", "needed_after"}
        assert c["replaced"]["from"] <= d["message_index"] <= c["replaced"]["to"]
    saliences = [d["salience"] for d in c["dropped"]]
    assert saliences == sorted(saliences, reverse=True)
    needed = c["needed_after"]
    assert needed["total"] - needed["kept"] == sum(d["needed_after"] for d in c["dropped"])


@pytest.mark.parametrize(
    ("name", "recorded"),
    [
        ("claude_code_compacted.jsonl", 1),
        ("claude_code_replay.jsonl", 3),
        ("codex_replay.jsonl", 2),
    ],
)
def test_every_recorded_compaction_is_audited_beside_the_stand_in(
    capsys: pytest.CaptureFixture[str], name: str, recorded: int
) -> None:
    doc = _json(capsys, str(SAMPLES / name))
    assert doc["schema"] == "ctxtui.retention/2"
    assert doc["session"]["recorded_compactions"] == recorded
    audits = doc["compactions"]
    for c in audits:
        _check_block(c)
    pairs = [audits[i : i + 2] for i in range(0, 2 * recorded, 2)]
    assert len(pairs) == recorded
    for rec, stand_in in pairs:
        assert (rec["source"], stand_in["source"]) == ("recorded", "stand-in")
        assert rec["replaced"] == stand_in["replaced"]
        assert rec["request"] == stand_in["request"] is not None
        # the same facts: the same totals per kind
        assert {k: v["total"] for k, v in rec["kinds"].items()} == {
            k: v["total"] for k, v in stand_in["kinds"].items()
        }
        assert rec["replaced"]["tokens"] > rec["summary_tokens"] > 0


def test_a_session_without_compactions_audits_the_preview(
    capsys: pytest.CaptureFixture[str],
) -> None:
    doc = _json(capsys, str(SAMPLES / "demo.json"))
    [preview] = doc["compactions"]
    _check_block(preview)
    assert preview["source"] == "stand-in" and preview["request"] is None
    assert sum(v["total"] for v in preview["kinds"].values()) > 20


def test_the_table_names_what_was_lost(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["retention", str(SAMPLES / "claude_code_compacted.jsonl")]) == 0
    out = capsys.readouterr().out
    assert "retention · " in out and "kept / total per kind" in out
    assert "dup       summary lines repeating" in out  # every heading explained
    assert "lost by recorded · request 10, most salient first:" in out
    assert "https://docs.python.org/3/objects.inv" in out


@pytest.mark.parametrize("width", [80, 120])
def test_the_tables_fit_the_terminal_and_say_what_they_mean(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    snapshot: SnapshotAssertion,
    width: int,
) -> None:
    """At 80 and 120 columns every line fits, no cell is cut, and every heading and mark of
    the tables is explained under them (the text is the snapshot)."""
    monkeypatch.setenv("COLUMNS", str(width))
    monkeypatch.chdir(SAMPLES)  # the title names the file as given: the same on any machine
    assert main(["retention", "claude_code_replay.jsonl"]) == 0
    out = capsys.readouterr().out
    _check_fits(out, width)
    assert out == snapshot


def _check_fits(out: str, width: int) -> None:
    lines = out.splitlines()
    assert max(map(len, lines)) <= width
    rows = [k for k, line in enumerate(lines) if line.startswith("─")]
    assert rows  # under each table's headings
    headings = [lines[k - 1] for k in rows]
    assert not any("…" in line for line in lines if not line.startswith("  … "))
    explained = {line.split()[0] for line in LEGEND}
    for line in headings:
        for word in line.split():
            assert word in explained | {"kind", "recorded", "stand-in", "now"} or (
                word.startswith("×") and "×N" in explained
            ), word


def test_many_compactions_still_fit_80_columns(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A long session's widest figures (request 35,890, message #72,263, 123,456 tokens, 9,872
    facts in one summary) and hundreds of compactions: one row per summary within 80
    columns, no cell cut."""
    assert main(["retention", str(SAMPLES / "claude_code_replay.jsonl"), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    widest = []
    for k, c in enumerate(doc["compactions"] * 200):
        c = {**c, "request": 35_889 - k, "summary_tokens": 12_345}
        c["replaced"] = {"from": 70_000 + k, "to": 72_263, "tokens": 123_456}
        c["kinds"] = {kind: {"kept": 154, "total": 1_234} for kind in KINDS}
        c["needed_after"] = {"kept": 0, "total": 1_234}
        widest.append(c)
    doc["compactions"] = widest
    console = Console(width=80, record=True, color_system=None)
    console.print(render(doc))
    out = console.export_text()
    _check_fits(out, 80)
    assert len(out.splitlines()) > len(widest)  # one row each, none wrapped over two


def test_the_json_lists_at_most_a_cap_of_each_kind(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A segment naming 80 files lists the 25 most salient it lost and counts the rest."""
    files = " ".join(f"src/pkg/module_{i}.py" for i in range(80))
    turns = [[{"role": "user", "content": "go on"}, {"role": "assistant", "content": "y " * 2_000}]]
    chat = {
        "messages": [
            {"role": "user", "content": f"Look at {files}"},
            {"role": "assistant", "content": "ok"},
            *(m for turn in turns * 12 for m in turn),
        ]
    }
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(chat), encoding="utf-8")
    doc = _json(capsys, str(path), "--context-window", "8000")
    [preview] = doc["compactions"]
    _check_block(preview)
    paths = preview["kinds"]["path"]
    listed = [d for d in preview["dropped"] if d["kind"] == "path"]
    assert paths["total"] == 80 and paths["total"] - paths["kept"] > 25
    assert len(listed) == preview["dropped_per_kind"] == 25
    assert preview["dropped_unlisted"] == paths["total"] - paths["kept"] - 25


def test_hostile_facts_are_printed_literally(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    line = "x" * 1_000_000
    turns = [
        [
            {"role": "user", "content": f"Never call [bold]drop_{i}[/bold] \x1b]0;pwn\x07 {line}"},
            {"role": "assistant", "content": "ok"},
        ]
        for i in range(30)
    ]
    chat = {"messages": [m for turn in turns for m in turn]}
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(chat), encoding="utf-8")
    assert main(["retention", str(path), "--context-window", "8000"]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out
    assert "[bold]" in out  # markup shown, not applied
    assert max(map(len, out.splitlines())) < 400  # the 1 MB line is cut
    doc = _json(capsys, str(path), "--context-window", "8000")
    texts = [d["text"] for c in doc["compactions"] for d in c["dropped"]]
    assert all(len(t) <= 150 for t in texts)


@pytest.mark.parametrize("content", ["", "{not json", '{"messages": 3}'])
def test_bad_input_is_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, content: str
) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content, encoding="utf-8")
    assert main(["retention", str(path), "--json"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    [line] = captured.err.splitlines()
    assert line.startswith("ctxtui retention: error: ")


def test_a_missing_file_is_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["retention", str(tmp_path / "nope.jsonl")]) == 2
    assert len(capsys.readouterr().err.splitlines()) == 1


def test_replay_json_compactions_carry_the_same_block(capsys: pytest.CaptureFixture[str]) -> None:
    argv = [str(SAMPLES / "claude_code_replay.jsonl"), "--context-window", "8000", "--json"]
    assert main(["replay", *argv]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["compactions"]
    for c in doc["compactions"]:
        block = c["retention"]
        _check_block(block, capped=False)
        assert block["source"] == "simulated" and block["request"] == c["request"]
        assert [block["replaced"]["from"], block["replaced"]["to"]] == c["replaced"]
    retained = _json(capsys, str(SAMPLES / "claude_code_replay.jsonl"))
    recorded = [c for c in retained["compactions"] if c["source"] == "recorded"]
    for c in recorded:  # under the cap here: the same facts listed
        assert (c.pop("dropped_per_kind"), c.pop("dropped_unlisted")) == (25, 0)
    assert [rc["retention"] for rc in doc["recorded_compactions"]] == recorded


def test_picoclaws_meta_summary_is_audited_against_the_skipped_lines(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    lines = [
        {"role": "user", "content": "Please read src/app.py first."},
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "exec",
             "arguments": "{\"command\": \"cat src/app.py\"}"}}]},
        {"role": "tool", "content": "out", "tool_call_id": "c1"},
        {"role": "user", "content": "now fix src/app.py"},
    ]  # fmt: skip
    path = tmp_path / "sk_v1_x.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    meta = {"skip": 3, "summary": "The user asked to read a file with cat src/app.py."}
    (tmp_path / "sk_v1_x.meta.json").write_text(json.dumps(meta), encoding="utf-8")
    doc = _json(capsys, str(path), "--format", "picoclaw")
    recorded, stand_in = doc["compactions"][:2]
    assert (recorded["source"], stand_in["source"]) == ("recorded", "stand-in")
    assert recorded["replaced"]["from"] == 0 and recorded["replaced"]["to"] == 2
    assert recorded["kinds"]["command"] == {"kept": 1, "total": 1}
    assert recorded["kinds"]["path"] == {"kept": 1, "total": 1}
    assert recorded["kinds"]["instruction"] == {"kept": 0, "total": 1}
    assert recorded["needed_after"] == {"kept": 1, "total": 1}  # the path, used again
