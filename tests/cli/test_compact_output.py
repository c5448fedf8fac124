"""``compact -o`` as a user drives it: ``-o -`` is standard output, links are never replaced,
modes follow the umask, and a redirection onto the source is refused (issue 9 items 1-3)."""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from ctxtui.cli.main import main
from ctxtui.importers import load_session
from tests.cli.chats import agent_chat

KNOBS = ["--context-window", "8000", "--max-tokens", "1000"]


@pytest.fixture
def chat(tmp_path: Path) -> Path:
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(agent_chat(6, ask="step {k}", reply="done {k}", tool_chars=6_000)))
    return path


def test_dash_writes_the_session_to_stdout_and_the_report_to_stderr(
    chat: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["compact", str(chat), "-o", "-", "--preview", *KNOBS]) == 0
    out, err = capsys.readouterr()
    assert "reason: proactive" in err and "=== summary ===" in err
    doc = json.loads(out)  # stdout holds nothing but the document
    assert doc["schema"] == "ctxtui.session/1"
    copy = tmp_path / "copy.json"
    copy.write_text(out)
    assert load_session(copy).meta.format == "native"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["chat.json", "copy.json"]


def test_a_symlink_output_is_refused_even_with_force(
    chat: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    real = tmp_path / "real.json"
    real.write_text("mine")
    link = tmp_path / "out.json"
    link.symlink_to(real)
    assert main(["compact", str(chat), "-o", str(link), "--force"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "found a symbolic link" in err
    assert link.is_symlink() and real.read_text() == "mine"


def test_the_output_mode_follows_the_umask_not_the_source(chat: Path, tmp_path: Path) -> None:
    chat.chmod(0o666)
    out = tmp_path / "out.json"
    old = os.umask(0o077)
    try:
        assert main(["compact", str(chat), "-o", str(out), *KNOBS]) == 0
    finally:
        os.umask(old)
    assert stat.S_IMODE(out.stat().st_mode) == 0o600


@pytest.mark.parametrize(
    "command",
    [["compact", "-o", "-"], ["report", "--json"], ["report", "--json", "-o", "-"]],
    ids=["compact", "report", "report-o"],
)
def test_stdout_appended_onto_the_source_is_refused(chat: Path, command: list[str]) -> None:
    before = chat.read_bytes()
    with chat.open("ab") as sink:
        proc = subprocess.run(
            [sys.executable, "-m", "ctxtui", command[0], str(chat), *command[1:], *KNOBS],
            stdout=sink,
            stderr=subprocess.PIPE,
            text=True,
            timeout=60,
        )
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "refusing to write onto it" in proc.stderr
    assert chat.read_bytes() == before


def test_dash_with_an_llm_summary_keeps_stdout_to_the_document(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The streamed summary is for the user: with ``-o -`` it goes to stderr with the rest."""
    from ctxtui.samples import samples_dir
    from tests.llm.server import SUMMARY, serve

    session = samples_dir() / "coding_agent_overflow.json"
    with serve() as (url, _):
        argv = ["compact", str(session), "--context-window", "32768", "--max-tokens", "4096"]
        argv += ["--summarizer", "openai", "--llm-base-url", url, "--llm-model", "m", "-o", "-"]
        assert main(argv) == 0
    out, err = capsys.readouterr()
    doc = json.loads(out)
    summaries = [m["content"] for m in doc["session"]["messages"] if m.get("is_summary")]
    assert summaries == [SUMMARY.strip()]
    assert "=== summary ===" in err and SUMMARY.strip().splitlines()[0] in err


RAW_TO_A_TERMINAL = (
    "del\x7f c1\x9b ls\u2028 ps\u2029 rlo\u202e lri\u2066 pdi\u2069 lrm\u200e rlm\u200f"
)
"""What ``json.dumps(ensure_ascii=False)`` leaves raw and a terminal acts on or hides text by."""


@pytest.mark.parametrize("to", ["file", "stdout"])
def test_o_escapes_what_a_terminal_acts_on_and_keeps_the_values(tmp_path: Path, to: str) -> None:
    chat = agent_chat(6, ask="step {k}", reply="done {k} " + RAW_TO_A_TERMINAL, tool_chars=6_000)
    chat["messages"][0]["content"] = RAW_TO_A_TERMINAL
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(chat))
    out = tmp_path / "out.json"
    argv = [sys.executable, "-m", "ctxtui", "compact", str(path), *KNOBS, "-o"]
    if to == "file":
        subprocess.run([*argv, str(out)], stdout=subprocess.DEVNULL, check=True, timeout=60)
        data = out.read_bytes()
    else:
        data = subprocess.run([*argv, "-"], capture_output=True, check=True, timeout=60).stdout
    for escape in (b"\\u007f", b"\\u009b", b"\\u2028", b"\\u2029", b"\\u202e", b"\\u2066"):
        assert escape in data
    assert not re.search("[\x7f-\x9f\u200e\u200f\u2028-\u202e\u2066-\u2069]", data.decode())
    session = json.loads(data)["session"]
    assert session["system_prompt"] == RAW_TO_A_TERMINAL
    assert session["messages"][-1]["content"] == "done 5 " + RAW_TO_A_TERMINAL
