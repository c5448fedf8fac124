"""A hostile file name and a hostile Codex model reach no terminal as escapes: every command,
text and JSON, prints them through ``core.literal`` (OSC title and clipboard, CSI, a bare ESC,
C1 controls and bidi overrides all shown, never acted on)."""

from __future__ import annotations

import os
import pty
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ctxtui.cli.main import main
from ctxtui.core.literal import json_literal, literal_block, visible

SAMPLES = Path(__file__).resolve().parents[2] / "sample_sessions"
HOSTILE = (
    "\x1b]0;PWNED-TITLE\x07"  # OSC 0: the terminal's title
    "\x1b]52;c;aGk=\x07"  # OSC 52: the clipboard
    "\x1b[31mred\x1b[2J"  # CSI: colour, clear the screen
    "\x1bX"  # a bare ESC and a two-character escape
    "\x9b31m\x85"  # C1: an 8-bit CSI, NEL
    "\u202eevil\u2066"  # bidi overrides
)
MODEL = "\x1b]0;MODEL-TITLE\x07gpt\x9b2J\u202e"
ACTS = re.compile("[\x1b\x80-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029\udc80-\udcff]")
"""What a terminal acts on (ESC, C1, bidi) or what an undecodable byte is, after decoding."""


def _acting(out: bytes) -> list[str]:
    text = out.decode("utf-8", "surrogateescape")
    return [line[:120] for line in text.splitlines() if ACTS.search(line)]


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Three samples under a hostile name; the Codex one also names a hostile model."""
    root = tmp_path_factory.mktemp("hostile")
    out = {}
    for name in ("claude_code_replay.jsonl", "codex_replay.jsonl", "demo.json"):
        text = (SAMPLES / name).read_text()
        if name.startswith("codex"):
            escaped = MODEL.encode("unicode_escape").decode().replace("\\x", "\\u00")
            text = text.replace('"model": "', f'"model": "{escaped}')
        path = root / (HOSTILE + name)
        path.write_text(text)
        out[name] = path
    return out


COMMANDS = [
    ["report"],
    ["report", "--json"],
    ["report", "--html", "-o", "-"],
    ["replay"],
    ["replay", "--json"],
    ["retention"],
    ["retention", "--json"],
    ["compact", "--preview"],
    ["compact"],
    ["compare"],
    ["compare", "--json"],
    ["report", "--format", "opencode"],  # refused: the error names the file
]


@pytest.mark.parametrize("sample", ["claude_code_replay.jsonl", "codex_replay.jsonl", "demo.json"])
@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_no_command_prints_an_escape(
    hostile: dict[str, Path],
    sample: str,
    command: list[str],
    capfdbinary: pytest.CaptureFixture[bytes],
) -> None:
    main([command[0], str(hostile[sample]), *command[1:]])
    out, err = capfdbinary.readouterr()
    assert out or err
    assert _acting(out + err) == []


def test_the_hostile_model_is_named_literally(
    hostile: dict[str, Path],
    capfdbinary: pytest.CaptureFixture[bytes],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("COLUMNS", "400")  # a line each: no name cut by a wrap
    assert main(["report", str(hostile["codex_replay.jsonl"])]) == 0
    out = capfdbinary.readouterr().out.decode()
    assert f"no price for model {visible(MODEL)}gpt-5-codex" in out
    assert visible(HOSTILE) in out


@pytest.mark.parametrize("extra", [[], ["--json"]])
def test_fleet_and_sessions_print_no_escape(
    hostile: dict[str, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capfdbinary: pytest.CaptureFixture[bytes],
    extra: list[str],
) -> None:
    codex = tmp_path / "codex" / "sessions" / "2026" / "01" / "02"
    codex.mkdir(parents=True)
    shutil.copy(hostile["codex_replay.jsonl"], codex / f"rollout-{HOSTILE}.jsonl")
    monkeypatch.setenv("CTXTUI_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex"))
    main(["fleet", "--workers", "1", str(hostile["codex_replay.jsonl"].parent), *extra])
    main(["sessions", *extra])
    with pytest.raises(SystemExit):
        main(["nonsense-" + HOSTILE])
    out, err = capfdbinary.readouterr()
    assert b"PWNED-TITLE" in out and b"MODEL-TITLE" in out
    assert _acting(out + err) == []


def test_a_terminal_gets_no_escape_from_a_name(hostile: dict[str, Path]) -> None:
    """On a terminal rich writes its own styles: the name's escapes must still be pictures."""
    leader, follower = pty.openpty()
    argv = [sys.executable, "-m", "ctxtui", "report", str(hostile["codex_replay.jsonl"])]
    proc = subprocess.Popen(
        argv, stdout=follower, stderr=follower, env={**os.environ, "TERM": "xterm-256color"}
    )
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    assert proc.wait(timeout=60) == 0
    out = b"".join(chunks).decode("utf-8", "surrogateescape")
    assert "PWNED-TITLE" in out
    assert "\x1b]" not in out and "\x9b" not in out and "\u202e" not in out
    assert set(re.findall(r"\x1b(.)", out)) <= {"["}  # rich's own SGR styles only
    assert "\x1b[2J" not in out


def test_json_literal_escapes_what_a_terminal_acts_on() -> None:
    raw = '{"a": "x\x9b\u202e\u2028\x7f\u2066ok"}'.encode()
    assert json_literal(raw) == b'{"a": "x\\u009b\\u202e\\u2028\\u007f\\u2066ok"}'
    assert json_literal(b'{"a": "\xc3\xa9\xe2\x80\x94"}') == b'{"a": "\xc3\xa9\xe2\x80\x94"}'


def test_literal_shows_undecodable_bytes_of_a_name() -> None:
    name = os.fsdecode(b"bad\x9b\xffname")
    assert visible(name) == "bad\\x9b\\xffname"
    assert literal_block("a\nb\x1b") == "a\nb␛"


def test_separators_and_the_arabic_mark_are_shown_too() -> None:
    assert visible("a\u2028b\u2029c\u061cd") == "a⏎b⏎c�d"
    assert literal_block("a\u2028b") == "a\nb"
    assert json_literal('"\u061c\u2028"'.encode()) == b'"\\u061c\\u2028"'


@pytest.mark.parametrize(
    "argv",
    [
        ["compact", str(SAMPLES / "demo.json"), "-o", "{out}"],
        ["report", str(SAMPLES / "demo.json"), "--json", "-o", "{out}"],
    ],
    ids=["compact -o", "report -o"],
)
def test_an_output_path_the_user_gave_is_named_literally(argv: list[str], tmp_path: Path) -> None:
    """``wrote PATH`` printed the path the user typed raw: an ESC, a bidi override or an
    undecodable byte in it reached the terminal."""
    out = str(tmp_path / ("o" + HOSTILE + os.fsdecode(b"\xfe") + ".json"))
    done = subprocess.run(
        [sys.executable, "-m", "ctxtui", *(a.replace("{out}", out) for a in argv)],
        capture_output=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert b"wrote " in done.stdout + done.stderr
    assert _acting(done.stdout) == [] and _acting(done.stderr) == []


def test_a_newline_in_a_name_keeps_the_error_on_one_line(tmp_path: Path) -> None:
    """A refusal is one line: a newline in the file's name split it in two."""
    bad = tmp_path / "bad\n.json"
    bad.write_text("garbage")
    for target in (bad, tmp_path / "gone\n.json"):
        done = subprocess.run(
            [sys.executable, "-m", "ctxtui", "report", str(target)],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 2
        assert done.stderr.count("\n") == 1 and "⏎" in done.stderr, done.stderr
