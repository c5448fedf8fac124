"""The command line refuses what it cannot use, in one readable line, before any work:
knob values out of range at their flag (issue 9, items 11 and 12), the app without a terminal
or on a missing file (item 13), and an unexpected exception (item 14)."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ctxtui.cli import main as cli
from ctxtui.cli.main import main
from ctxtui.core.policies.policy import KNOBS
from ctxtui.options import EXIT_INTERNAL, EXIT_USAGE
from tests.cli.chats import agent_chat


@pytest.fixture
def chat(tmp_path: Path) -> Path:
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(agent_chat(3, ask="ask {k}", reply="done {k}", tool_chars=2_000)))
    return path


def _no_app(**_: Any) -> int:
    raise AssertionError("the app must not start")


@pytest.fixture(autouse=True)
def no_app(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test here expects a refusal; an app started in-process would wait for keys."""
    import ctxtui.tui

    monkeypatch.setattr(ctxtui.tui, "run_app", _no_app)


def _exit(argv: list[str]) -> int:
    try:
        return main(argv)
    except SystemExit as exc:  # argparse refuses a value by exiting
        return int(exc.code or 0)


def _one_line(capsys: pytest.CaptureFixture[str], argv: list[str], code: int = EXIT_USAGE) -> str:
    """Run ``argv``; expect ``code``, nothing on stdout and one line on stderr; the line."""
    got = _exit(argv)
    out, err = capsys.readouterr()
    assert got == code, (out, err)
    assert out == ""
    assert err.count("\n") == 1 and err.endswith("\n"), err
    assert "Traceback" not in err
    return err.rstrip("\n")


def _ctxtui(
    *argv: str, env: dict[str, str] | None = None, code: str | None = None
) -> subprocess.CompletedProcess[str]:
    """``ctxtui ARGV`` as a real process, stdin and stdout not terminals, bounded in time."""
    environ = {k: v for k, v in os.environ.items() if k not in ("TEXTUAL_DRIVER", "CTXTUI_DEBUG")}
    environ.update(env or {})
    command = ["-m", "ctxtui"] if code is None else ["-c", code]
    return subprocess.run(
        [sys.executable, *command, *argv],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        env=environ,
        timeout=60,
        check=False,
    )


# -- item 11: float knobs bounded so nothing overflows, refused at the flag --------------------


@pytest.mark.parametrize("command", [["report"], ["compact"], []], ids=["report", "compact", "app"])
@pytest.mark.parametrize("value", ["1e-310", "0.05", "0", "-1", "101"])
def test_chars_per_token_out_of_range_is_refused_at_the_flag(
    command: list[str], value: str, chat: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    line = _one_line(capsys, [*command, str(chat), "--chars-per-token", value])
    assert f"--chars-per-token: expected 0.1 to 100, got {value}" in line


def test_a_denormal_chars_per_token_is_one_line_not_an_overflow(chat: Path) -> None:
    proc = _ctxtui("report", str(chat), "--chars-per-token", "1e-310")
    assert proc.returncode == EXIT_USAGE, proc.stderr
    assert proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and "OverflowError" not in proc.stderr


@pytest.mark.parametrize("field", [f for f, k in KNOBS.items() if k.kind is float])
def test_every_float_knob_counts_at_both_ends_of_its_range(
    field: str, chat: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """At the smallest and the largest value each float knob accepts, a plan comes out with
    finite figures (an open bound is approached with the smallest float above it)."""
    from ctxtui.core.engine import Engine
    from ctxtui.importers import load_session
    from ctxtui.options import build_policy

    knob = KNOBS[field]
    assert knob.low is not None and knob.high is not None, f"{field} has no upper or lower bound"
    lowest = math.nextafter(knob.low, math.inf) if knob.low_open else knob.low
    session = load_session(chat)
    for value in (lowest, knob.high):
        assert knob.accepts(value)
        policy = build_policy("plan", {field: value}, session)
        plan = Engine(session).plan(policy)
        assert 0 <= plan.totals.requested < 10**15 and 0 <= plan.totals.used_ratio < 10**9
        if knob.flag is not None:
            report = main(["report", str(chat), knob.flag, repr(value), "--json"])
            assert report in (0, 1)
            assert json.loads(capsys.readouterr().out)["policy"][field] == value


# -- item 12: values echoed back are readable ------------------------------------------------


def test_a_huge_value_is_echoed_cut_to_a_readable_length(
    chat: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    line = _one_line(capsys, ["report", str(chat), "--tail-min", "1" + "0" * 5_000])
    assert "--tail-min: expected a whole number" in line
    assert "(5,001 characters)" in line
    assert len(line) < 200


@pytest.mark.parametrize(
    "argv",
    [
        ["report", "{chat}", "--preset", "x" * 5_000],
        ["report", "{chat}", "--fail-over", "y" * 5_000],
        ["report", "{chat}", "--tokenizer", "tiktoken:" + "z" * 5_000],
        ["report", "{chat}", "stray" * 1_000],
        ["report", "{chat}", "--chars-per-token", "1" + "0" * 5_000],
        ["w" * 5_000],
    ],
    ids=["preset", "fail-over", "tokenizer", "stray", "float", "app-word"],
)
def test_no_refusal_echoes_a_value_in_full(
    argv: list[str], chat: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    line = _one_line(capsys, [a.format(chat=chat) for a in argv])
    assert len(line) < 300, line


def test_a_huge_value_in_a_relation_is_not_written_out(
    chat: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    huge = "1" + "0" * 400
    line = _one_line(capsys, ["report", str(chat), "--tail-min", huge, "--tail-max", "5"])
    assert line == (
        "ctxtui report: error: --tail-min (a 401-digit number) must not exceed --tail-max (5)"
    )


@pytest.mark.parametrize(
    ("flag", "value"),
    [
        ("--tail-ratio", "1.0000001"),
        ("--tail-ratio", "-0.0000001"),
        ("--chars-per-token", "0.0999"),
    ],
)
def test_a_value_just_outside_the_range_is_shown_as_typed(
    flag: str, value: str, chat: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    line = _one_line(capsys, ["report", str(chat), flag, value])
    assert line.endswith(f"got {value} (see 'ctxtui report --help')"), line


# -- item 13: the app starts only where it can be used -----------------------------------------


def test_a_word_that_is_neither_a_file_nor_a_command_is_refused_at_once(tmp_path: Path) -> None:
    proc = _ctxtui(str(tmp_path / "nosuchword"))
    assert proc.returncode == EXIT_USAGE
    assert proc.stdout == "", "no escape codes in the pipe"
    assert "no such file or command: " in proc.stderr and "nosuchword" in proc.stderr
    assert proc.stderr.count("\n") == 1


def test_the_app_without_a_terminal_suggests_report(chat: Path) -> None:
    for argv in ([str(chat)], []):  # a session, and the bundled demo
        proc = _ctxtui(*argv)
        assert proc.returncode == EXIT_USAGE
        assert proc.stdout == ""
        assert proc.stderr.count("\n") == 1
        assert "needs a terminal" in proc.stderr and "'ctxtui report " in proc.stderr


def test_one_session_of_a_database_is_not_a_missing_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "opencode.db").write_bytes(b"")
    line = _one_line(capsys, [f"{tmp_path / 'opencode.db'}#ses_1"])
    assert "needs a terminal" in line  # not "no such file": it got as far as the app
    line = _one_line(capsys, [f"{tmp_path / 'other.db'}#ses_1"])
    assert "no such file or command" in line


def test_a_missing_file_is_refused_before_the_app_even_in_a_terminal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(cli, "_not_a_terminal", lambda: None)
    line = _one_line(capsys, [str(tmp_path / "gone.json"), "--preset", "picoclaw"])
    assert "no such file or command: " in line and "gone.json" in line


def test_a_web_driver_may_start_the_app_without_a_terminal(
    chat: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import ctxtui.tui

    started: dict[str, Any] = {}
    monkeypatch.setenv("TEXTUAL_DRIVER", "textual_serve.driver:WebDriver")
    monkeypatch.setattr(ctxtui.tui, "run_app", lambda **kw: started.update(kw) or 0)
    assert main([str(chat), "--tail-ratio", "0.5"]) == 0
    assert started["session"] == str(chat)
    assert started["start"].overrides == {"tail_ratio": 0.5}


# -- item 14: an unexpected exception is one line, unless debugging ---------------------------

_BOOM = (
    "import sys, ctxtui.commands.pipeline as p\n"
    "def boom(args): raise RuntimeError('boom\\nsecond line')\n"
    "p.load = p.load_views = boom\n"
    "from ctxtui.cli.main import main\n"
    "sys.exit(main(sys.argv[1:]))\n"
)


def test_an_unexpected_exception_is_one_line_with_its_own_exit_code(chat: Path) -> None:
    proc = _ctxtui("report", str(chat), code=_BOOM)
    assert proc.returncode == EXIT_INTERNAL
    assert proc.stdout == "" and "Traceback" not in proc.stderr
    assert proc.stderr.count("\n") == 1
    assert "ctxtui report: internal error (RuntimeError: boom second line)" in proc.stderr
    assert "CTXTUI_DEBUG=1" in proc.stderr


def test_ctxtui_debug_shows_the_traceback(chat: Path) -> None:
    proc = _ctxtui("report", str(chat), code=_BOOM, env={"CTXTUI_DEBUG": "1"})
    assert proc.returncode == 1  # Python's own exit for an uncaught exception
    assert "Traceback (most recent call last)" in proc.stderr
    assert "RuntimeError: boom" in proc.stderr


def test_an_exception_opening_the_app_is_one_line(
    chat: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import ctxtui.tui

    def broken(**_: Any) -> int:
        raise OSError(5, "Input/output error")

    monkeypatch.delenv("CTXTUI_DEBUG", raising=False)
    monkeypatch.setattr(cli, "_not_a_terminal", lambda: None)
    monkeypatch.setattr(ctxtui.tui, "run_app", broken)
    line = _one_line(capsys, [str(chat)], code=EXIT_INTERNAL)
    assert line.startswith("ctxtui: internal error (OSError: ")


def test_the_exit_codes_are_documented(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    flat = " ".join(capsys.readouterr().out.split())
    assert "2 bad input or usage" in flat
    assert f"{EXIT_INTERNAL} an internal error" in flat and "CTXTUI_DEBUG=1" in flat


def test_the_app_refuses_a_stderr_that_is_no_terminal(chat: Path, tmp_path: Path) -> None:
    """The app draws on stderr (Textual's output): with a terminal on stdin and stdout but
    stderr a file it ran invisibly (its screen in the file), closed it hung. It is refused."""
    import pty

    leader, follower = pty.openpty()
    log = tmp_path / "stderr.txt"
    try:
        with log.open("wb") as err:
            proc = subprocess.run(
                [sys.executable, "-m", "ctxtui", str(chat)],
                stdin=follower,
                stdout=follower,
                stderr=err,
                timeout=60,
            )
    finally:
        os.close(follower)
        os.close(leader)
    assert proc.returncode == EXIT_USAGE
    line = log.read_text()
    assert line.count("\n") == 1 and "its standard error is not one" in line, line
