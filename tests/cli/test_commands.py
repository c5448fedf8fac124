"""The headless shell: the report JSON contract, exit codes, one-line errors, atomic -o."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ctxtui.cli.main import main
from tests.cli.chats import agent_chat

pytest.importorskip("ctxtui.core.planning.planner")


def _chat(turns: int, tool_chars: int = 4_000) -> dict[str, Any]:
    return agent_chat(
        turns,
        ask="step {k}: you must not touch main.py",
        reply="I'll use plan {k} because it is simpler.",
        tool_chars=tool_chars,
        path="src/a.py",
    )


@pytest.fixture
def session_file(tmp_path: Path) -> Path:
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(_chat(12)))
    return path


def _report(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, Any]]:
    code = main(["report", *argv, "--json"])
    return code, json.loads(capsys.readouterr().out)


def test_report_json_contract(session_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, r = _report(
        capsys, str(session_file), "--context-window", "16000", "--max-tokens", "1000"
    )
    assert code == 0
    assert r["schema"] == "ctxtui.report/1"
    assert r["session"]["path"] == str(session_file)
    sent = json.loads(session_file.read_text())["messages"]
    history = [m for m in sent if m["role"] != "system"]  # the system message is the prompt
    assert r["session"]["message_count"] == len(r["messages"]) == len(history)
    assert r["policy"]["context_window"] == 16_000 and r["policy"]["max_tokens"] == 1_000
    assert r["totals"]["window"] == 16_000 and r["totals"]["budget"] == 15_000
    assert r["totals"]["tokens"] == pytest.approx(r["totals"]["used_ratio"] * 16_000 - 1_000, abs=1)
    zones = [m["zone"] for m in r["messages"]]
    assert zones[-1] == "tail" and set(zones) <= {"tail", "kept", "dropped"}
    assert zones.index("tail") == r["fresh_tail"]["start"]
    call = next(m for m in r["messages"] if m["tool_call_ids"])
    assert call["tool_call_ids"] == ["call_0"]
    assert r["messages"][call["index"] + 1]["tool_call_id"] == "call_0"


def test_report_applies_the_preset(session_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, plan = _report(capsys, str(session_file))
    _, pico = _report(capsys, str(session_file), "--preset", "picoclaw")
    assert plan["tokenizer"]["used"] == "plan" and pico["tokenizer"]["used"] == "picoclaw"
    assert pico["totals"]["tokens"] > plan["totals"]["tokens"]  # 2.5 vs 4 chars per token


def test_fail_over(session_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, r = _report(capsys, str(session_file))
    ratio = r["totals"]["used_ratio"]
    assert main(["report", str(session_file), "--json", "--fail-over", str(ratio / 2)]) == 1
    assert main(["report", str(session_file), "--json", "--fail-over", str(ratio * 2)]) == 0


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["report", "{missing}"], "missing.json"),
        (["report", "{bad}"], "bad.json"),
        (["report", "{good}", "--tail-ratio", "7"], "--tail-ratio: expected 0 to 1, got 7"),
        (["report", "{good}", "--tokenizer", "nonsense"], "tokenizer"),
        (["compact", "{good}", "-o", "{good}"], "source session"),
    ],
)
def test_bad_input_is_one_line_exit_2(
    argv: list[str], needle: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = tmp_path / "good.json"
    good.write_text(json.dumps(_chat(2)))
    (tmp_path / "bad.json").write_text("{not json")
    paths = {"missing": tmp_path / "missing.json", "bad": tmp_path / "bad.json", "good": good}
    try:
        code = main([a.format(**paths) for a in argv])
    except SystemExit as exc:  # a value refused at its flag exits through argparse
        code = exc.code  # type: ignore[assignment]
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and needle in err
    assert "Traceback" not in err


def test_table_output(session_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", str(session_file)]) == 0
    out = capsys.readouterr().out
    assert str(session_file.name) in out and "from #" in out


def test_compact_preview(session_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        [
            "compact",
            str(session_file),
            "--preview",
            "--context-window",
            "16000",
            "--max-tokens",
            "1000",
            "--reason",
            "retry",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert "reason: retry (in PicoClaw: the retry after the LLM refuses the request)" in out
    assert "# Summary of Previous Conversation" in out and "## Critical Context" in out
    assert "You summarize a SEGMENT of a conversation" in out
    assert "<conversation_segment>" in out


def test_compact_writes_atomically_and_never_touches_source(
    session_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = (session_file.read_bytes(), session_file.stat().st_mtime_ns)
    out = tmp_path / "out.json"
    argv = [
        "compact",
        str(session_file),
        "-o",
        str(out),
        "--context-window",
        "16000",
        "--max-tokens",
        "1000",
    ]
    assert main(argv) == 0
    assert (session_file.read_bytes(), session_file.stat().st_mtime_ns) == before
    from ctxtui.importers import load_session

    written = load_session(out)
    assert written.meta.format == "native"
    assert sum(m.is_summary for m in written.messages) == 1
    assert len(written.messages) < len(_chat(12)["messages"])
    capsys.readouterr()
    assert main(argv) == 2  # exists, no --force
    assert "--force" in capsys.readouterr().err
    assert main([*argv, "--force"]) == 0
    assert (session_file.read_bytes(), session_file.stat().st_mtime_ns) == before


def test_formats_lists_the_importers(capsys: pytest.CaptureFixture[str]) -> None:
    from ctxtui.importers import FORMATS

    assert main(["formats"]) == 0
    lines = capsys.readouterr().out.splitlines()
    names = [line.split()[0] for line in lines if not line[0].isspace()]
    assert names == [f.name for f in FORMATS]


def test_every_command_row_has_its_module_and_every_module_its_row() -> None:
    """``COMMANDS`` is the one table of sub-commands; ``command_module`` only holds the lazy
    imports the graph must see, one per row, and no module with a ``run`` lacks a row."""
    from ctxtui import commands
    from ctxtui.cli.args import COMMANDS

    for row in COMMANDS:
        assert commands.command_module(row.name).__name__ == f"ctxtui.commands.{row.name}"
    folder = Path(commands.__file__).parent
    runners = {f.stem for f in folder.glob("*.py") if "\ndef run(" in f.read_text("utf-8")}
    assert runners - {"__init__"} == {row.name for row in COMMANDS}
    with pytest.raises(ValueError, match="no such command"):
        commands.command_module("nothing")


def test_subprocess_report_json(session_file: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "ctxtui", "report", str(session_file), "--json"],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""  # no progress line when stderr is not a terminal
    assert json.loads(proc.stdout)["schema"] == "ctxtui.report/1"


def test_compact_picoclaw_drops_with_the_emergency_note(
    session_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["compact", str(session_file), "--preset", "picoclaw", "--preview"]
    assert main([*argv, "--context-window", "16000", "--max-tokens", "1000"]) == 0
    out = capsys.readouterr().out
    assert "dropped #0-#" in out and "the emergency note adds" in out
    assert "[Emergency compression dropped " in out
    assert "(no LLM call: this compaction style drops messages)" in out


def test_compact_preview_shows_the_first_leaf_call_of_many(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A history far over one leaf chunk is summarised call by call; the preview says so."""
    path = tmp_path / "long.json"
    path.write_text(json.dumps(_chat(30, tool_chars=40_000)))
    assert main(["compact", str(path), "--preview"]) == 0
    out = capsys.readouterr().out
    assert "leaf-summary call 1 of " in out
    prompt = out.split("=== LLM prompt ===", 1)[1]
    steps = prompt.count("you must not touch main.py")  # one per turn rendered
    assert 0 < steps <= 3  # the first 20,000-token chunk, not the 28 turns replaced
