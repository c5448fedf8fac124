"""The headless shell as a demanding user drives it: every bad input is one line and exit 2,
``-o`` refuses before it works and writes what ``ctxtui`` reads back, ``--json`` is one valid
document, the table and ``--help`` fit 80 columns, and knobs say when they do nothing."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ctxtui.cli.main import main
from ctxtui.core.policies.policy import KNOBS
from ctxtui.core.policies.presets import PRESETS
from ctxtui.importers import FORMAT_NAMES
from tests.cli.chats import agent_chat

pytest.importorskip("ctxtui.core.planning.planner")

REPO = Path(__file__).resolve().parents[2]
SAMPLES = sorted(p for p in (REPO / "sample_sessions").iterdir() if p.suffix in (".json", ".jsonl"))
SAMPLES = [p for p in SAMPLES if not p.name.endswith(".meta.json")]


def _chat(turns: int = 6, tool_chars: int = 6_000, reply_chars: int = 0) -> dict[str, Any]:
    return agent_chat(
        turns,
        ask="step {k}: keep the API stable",
        reply="Done with step {k}. " + "y" * reply_chars,
        tool_chars=tool_chars,
    )


@pytest.fixture
def chat(tmp_path: Path) -> Path:
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(_chat()))
    return path


def _digest(path: Path) -> tuple[str, int]:
    return hashlib.sha256(path.read_bytes()).hexdigest(), path.stat().st_mtime_ns


def _refused(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    """Run ``argv``, expect exit 2 with one stderr line and nothing on stdout; the line.

    argparse refuses a malformed value by exiting; the rest is a returned 2.
    """
    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code  # type: ignore[assignment]
    out, err = capsys.readouterr()
    assert code == 2, (out, err)
    assert out == "", "a refusal prints nothing on stdout"
    assert err.count("\n") == 1 and err.endswith("\n"), err
    assert "Traceback" not in err
    return err.rstrip("\n")


def _json(capsys: pytest.CaptureFixture[str], argv: list[str]) -> dict[str, Any]:
    assert main(["report", *argv, "--json"]) in (0, 1)
    out = capsys.readouterr().out
    result: dict[str, Any] = json.loads(out)
    return result


# -- compact -o ----------------------------------------------------------------------------


def test_compact_output_reads_back_as_native_with_the_same_messages(
    chat: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "compacted.json"
    knobs = ["--context-window", "8000", "--max-tokens", "1000"]
    assert main(["compact", str(chat), "-o", str(out), *knobs]) == 0
    written = capsys.readouterr().out
    count = int(written.rsplit("(", 1)[1].split()[0].replace(",", ""))
    report = _json(capsys, [str(out), *knobs])
    assert report["session"]["format"] == "native"
    assert report["session"]["message_count"] == count
    assert report["messages"][0]["role"] == "user"  # the summary stand-in


@pytest.mark.parametrize(
    ("target", "needle"),
    [
        ("{exists}", "file exists (use --force to overwrite it)"),
        ("{source}", "refusing to overwrite the source session"),
        ("{missing_dir}", "expected an existing directory"),
        ("", "-o: expected a file path, found an empty string"),
        ("{directory}", "expected a file path, found a directory"),
    ],
)
def test_a_bad_output_is_refused_before_any_work(
    target: str,
    needle: str,
    chat: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    exists = tmp_path / "exists.json"
    exists.write_text("mine")
    paths = {
        "exists": exists,
        "source": chat,
        "missing_dir": tmp_path / "no" / "out.json",
        "directory": tmp_path,
    }
    before = {p: _digest(p) for p in (chat, exists)}
    line = _refused(capsys, ["compact", str(chat), "--preview", "-o", target.format(**paths)])
    assert needle in line
    assert {p: _digest(p) for p in (chat, exists)} == before
    assert not (tmp_path / "no").exists()


def test_a_special_file_is_refused_even_with_force(
    chat: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    line = _refused(capsys, ["compact", str(chat), "-o", str(fifo), "--force"])
    assert "found a special file" in line


# -- report --json ---------------------------------------------------------------------------


def test_json_totals_explain_the_used_ratio(chat: Path, capsys: pytest.CaptureFixture[str]) -> None:
    t = _json(capsys, [str(chat), "--context-window", "9000", "--max-tokens", "1500"])["totals"]
    assert t["output_reserve"] == 1_500
    assert t["requested"] == t["tokens"] + t["output_reserve"]
    assert t["used_ratio"] == round(t["requested"] / t["window"], 6)


def test_report_and_compact_give_the_same_request(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Pruning already removed most old output; the compaction must not claim it again."""
    chat = tmp_path / "long.json"
    chat.write_text(json.dumps(_chat(turns=12, reply_chars=3_000)))
    knobs = ["--context-window", "8000", "--max-tokens", "1000"]
    r = _json(capsys, [str(chat), *knobs])
    assert r["prune"]["tokens_freed"] > 0  # the session is one where the two could differ
    assert r["compaction"]["needed"]
    assert r["compaction"]["tokens_before"] == r["totals"]["requested"]
    assert main(["compact", str(chat), *knobs]) == 0
    lines = capsys.readouterr().out.splitlines()
    line = next(s for s in lines if s.startswith("request: "))
    before = r["compaction"]["tokens_before"]
    after = r["compaction"]["tokens_after"]
    assert line == f"request: {before:,} -> {after:,} tok = prompt + output reserve 1,000"
    # the prompt line leads, in the figure report calls the prompt
    prompt = next(s for s in lines if s.startswith("prompt: "))
    assert prompt.startswith(f"prompt: {r['totals']['tokens']:,} -> {after - 1_000:,} tok")


def test_json_stays_valid_utf8_with_lone_surrogates_and_a_non_utf8_name(
    tmp_path: Path,
) -> None:
    """A split emoji leaves ``\\ud83d`` escapes; a file name may not be UTF-8. Both crashed."""
    doc = _chat(1)
    doc["messages"][3]["tool_call_id"] += "\ud83d"  # [system, user, assistant, tool, …]
    doc["messages"][2]["tool_calls"][0]["id"] += "\ud83d"
    name = os.fsencode(tmp_path) + b"/bad\xffname.json"
    with open(name, "w", encoding="utf-8") as fh:
        json.dump(doc, fh)  # ensure_ascii: the surrogate is written as a \ud83d escape
    env = {**os.environ, "LC_ALL": "C.UTF-8", "PYTHONIOENCODING": "utf-8"}
    for argv in (["--json"], []):
        proc = subprocess.run(
            [sys.executable, "-m", "ctxtui", "report", os.fsdecode(name), *argv],
            capture_output=True,
            check=False,
            timeout=120,
            env=env,
        )
        assert proc.returncode == 0, proc.stderr.decode(errors="replace")
        text = proc.stdout.decode("utf-8")  # strict
        if argv:
            report = json.loads(text)
            assert report["session"]["path"].endswith("bad\\xffname.json")
            ids = [m["tool_call_ids"] or m["tool_call_id"] for m in report["messages"]]
            assert ids[1:3] == [["call_0\ufffd"], "call_0\ufffd"]


# -- bad input ---------------------------------------------------------------------------


BAD_INPUTS: dict[str, bytes | None] = {
    "empty.json": b"",
    "empty.jsonl": b"",
    "garbage.json": bytes(range(256)) * 16,
    "latin1.json": b'{\n "messages": [\n  {"role": "user", "content": "caf\xe9"}\n ]\n}\n',
    "scalar.json": b"42\n",
    "unknown.json": b'{"name": "demo", "version": 3}\n',
    "truncated.json": b'{"messages": [{"role": "user", "content": "hi"}\n',
    "deep.json": b"[" * 10_000 + b"]" * 10_000,
    "corrupt_only.jsonl": b'{"role": "user", "content": "hi"\n',
    "garbage.jsonl": b"this is not json\n",
    "directory": None,
    "missing.json": None,
}

EXPECTED = {
    "empty.json": "empty file",
    "empty.jsonl": "empty file",
    "garbage.json": "expected JSON text, found binary data",
    "latin1.json": ":3: expected UTF-8 text, found invalid byte 0xe9",
    "scalar.json": "expected a JSON object or array, found a JSON number",
    "unknown.json": "no known format",
    "truncated.json": ":1: truncated JSON",
    "deep.json": "nesting deeper than 1000 levels",
    "corrupt_only.jsonl": ":1: truncated JSON",
    "garbage.jsonl": ":1: expected JSON, found plain text 'this is not json'",
    "directory": "found a directory",
    "missing.json": "no such file or directory",
}


@pytest.mark.parametrize("name", sorted(BAD_INPUTS))
def test_bad_input_is_one_line_naming_the_file(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / name
    content = BAD_INPUTS[name]
    if content is not None:
        path.write_bytes(content)
    elif name == "directory":
        path.mkdir()
        (path / "notes.txt").write_text("x")
    before = _digest(path) if path.is_file() else None
    for argv in (["report", str(path), "--json"], ["compact", str(path), "-o", str(path) + "o"]):
        line = _refused(capsys, argv)
        assert line.startswith(f"ctxtui {argv[0]}: error: {path}"), line
        assert EXPECTED[name] in line, line
    if before is not None:
        assert _digest(path) == before
    assert not Path(str(path) + "o").exists()


def test_bad_input_as_a_real_process(tmp_path: Path) -> None:
    path = tmp_path / "garbage.bin"
    path.write_bytes(bytes(range(256)) * 16)
    proc = subprocess.run(
        [sys.executable, "-m", "ctxtui", "report", str(path), "--json"],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and str(path) in proc.stderr


@pytest.mark.parametrize(
    ("example", "forced", "detected"),
    [
        ({"messages": [{"role": "user", "content": "hi"}]}, "codex", "openai-chat"),
        ({"messages": [{"role": "user", "content": "hi"}]}, "claude-code", "openai-chat"),
        ({"conversations": [{"from": "human", "value": "hi"}]}, "codex", "sharegpt"),
    ],
)
def test_a_wrong_format_forced_is_refused_with_the_right_one(
    example: dict[str, Any],
    forced: str,
    detected: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Forcing an importer that reads nothing used to report 0 messages with exit 0."""
    path = tmp_path / "s.json"
    path.write_text(json.dumps(example))
    line = _refused(capsys, ["report", str(path), "--format", forced])
    assert f"found none; it looks like {detected} (try --format {detected}" in line


def test_format_names_are_forgiving_about_case_and_underscores(
    chat: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _json(capsys, [str(chat), "--format", "OpenAI_Chat"])["session"]["format"] == (
        "openai-chat"
    )


# -- knobs -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["--tail-ratio", "nan"], "--tail-ratio: expected a finite number, got 'nan'"),
        (["--chars-per-token", "inf"], "expected a finite number"),
        (["--fail-over", "nan"], "--fail-over: expected a finite number"),
        (["--fail-over", "0"], "--fail-over: expected a ratio > 0"),
        (["--fail-over", "-1"], "--fail-over: expected a ratio > 0"),
        (["--context-window", "100"], "--context-window: expected 256 to 100,000,000, got 100"),
        (
            ["--tail-min", "9000"],
            "--tail-min (9,000) must not exceed the tail max tokens (8,000; "
            "set it with --tail-max)",
        ),
        (["--max-tokens", "200000"], "--max-tokens (200,000) must be smaller than"),
        (["--tokenizer", "tiktoken:o200k"], "found 'o200k'"),
        (
            ["--tokenizer", "tiktoken:"],
            "--tokenizer: expected plan, picoclaw, opencode, tiktoken:",
        ),
    ],
)
def test_a_bad_knob_names_its_flag_and_range(
    argv: list[str], needle: str, chat: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert needle in _refused(capsys, ["report", str(chat), *argv])


def test_an_unknown_tiktoken_encoding_lists_the_known_ones(
    chat: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tiktoken = pytest.importorskip("tiktoken")
    line = _refused(capsys, ["report", str(chat), "--tokenizer", "tiktoken:o200k"])
    for known in tiktoken.list_encoding_names():
        if not known.endswith("_offline"):
            assert known in line


def test_knobs_the_preset_ignores_are_reported_not_silently_dropped(
    chat: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = _json(capsys, [str(chat), "--preset", "picoclaw"])
    moved = _json(capsys, [str(chat), "--preset", "picoclaw", "--tail-ratio", "0.9"])
    assert moved["fresh_tail"] == base["fresh_tail"]  # it really changes nothing…
    assert any(w.startswith("--tail-ratio has no effect") for w in moved["session"]["warnings"])
    plan = _json(capsys, [str(chat), "--tokenizer", "picoclaw", "--chars-per-token", "2"])
    assert any("--chars-per-token has no effect" in w for w in plan["session"]["warnings"])
    used = _json(capsys, [str(chat), "--chars-per-token", "2"])  # …while this one counts
    assert not any("has no effect" in w for w in used["session"]["warnings"])


def test_tail_items_moves_the_picoclaw_tail(chat: Path, capsys: pytest.CaptureFixture[str]) -> None:
    n = _json(capsys, [str(chat), "--preset", "picoclaw-seahorse"])["session"]["message_count"]
    r = _json(capsys, [str(chat), "--preset", "picoclaw-seahorse", "--tail-items", "5"])
    assert r["policy"]["tail_items"] == 5
    assert r["fresh_tail"]["start"] >= n - 5


def test_the_app_refuses_a_bad_knob_before_it_starts(
    chat: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as info:
        main([str(chat), "--tail-ratio", "7"])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--tail-ratio: expected 0 to 1, got 7" in err


# -- usage errors ----------------------------------------------------------------------------


def test_a_stray_argument_blames_the_command(
    chat: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        main(["report", str(chat), "extra"])
    err = capsys.readouterr().err
    assert err.startswith("ctxtui report: error: unrecognized arguments: extra")
    assert "'ctxtui report --help'" in err


def test_a_mistyped_command_is_suggested(chat: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["reprot", str(chat)])
    assert "unknown command 'reprot' (did you mean 'report'?)" in capsys.readouterr().err


# -- 80 columns ------------------------------------------------------------------------------


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda p: p.name)
def test_the_table_fits_80_columns(
    sample: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    assert main(["report", str(sample)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert max(len(line) for line in lines) <= 80
    assert all(line == line.rstrip() for line in lines)  # no padding into a pipe
    assert lines[0].split() == ["session", str(sample)]  # the header is not wrapped
    labels = [line.split()[0] for line in lines if line and not line[0].isspace()]
    assert {"request", "budget", "tail", "zones", "pruned", "compaction"} <= set(labels)


@pytest.mark.parametrize("command", ["report", "compact"])
def test_help_answers_a_newcomer_in_80_columns(
    command: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    with pytest.raises(SystemExit):
        main([command, "--help"])
    text = capsys.readouterr().out
    assert max(len(line) for line in text.splitlines()) <= 80
    flat = " ".join(text.split())
    for name in FORMAT_NAMES:  # what --format takes
        assert name in flat
    assert "tiktoken:ENCODING" in flat and "cl100k_base works offline" in flat
    assert ".gz and .zst" in flat and "directory" in flat  # what SESSION may be
    plan = PRESETS["plan"].knobs
    for field, flag in (
        ("tail_ratio", "--tail-ratio"),
        ("tail_min_tokens", "--tail-min"),
        ("context_window", "--context-window"),
    ):
        entry = flat.split(f" {flag} ", 1)[1].split(" --", 1)[0]
        assert KNOBS[field].help in entry
        assert f"{plan[field]:,}" in entry  # its default


def test_formats_fit_80_columns_and_lead_with_the_names(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    assert main(["formats"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert max(len(line) for line in lines) <= 80
    assert [line.split()[0] for line in lines if not line[0].isspace()] == list(FORMAT_NAMES)


def test_preview_with_nothing_to_replace_does_not_blame_the_style(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "short.json"
    path.write_text(json.dumps(_chat(turns=1, tool_chars=10)))
    assert main(["compact", str(path), "--preview"]) == 0
    out = capsys.readouterr().out
    assert "nothing to compact" in out
    assert "(no LLM call: nothing was replaced)" in out
    assert "this compaction style drops messages" not in out


def test_ctrl_c_is_one_line_not_a_traceback(
    chat: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from ctxtui.commands import pipeline

    def interrupted(args: Any) -> Any:
        raise KeyboardInterrupt

    monkeypatch.setattr(pipeline, "load", interrupted)
    monkeypatch.setattr(pipeline, "load_views", interrupted)
    assert main(["report", str(chat)]) == 130
    out, err = capsys.readouterr()
    assert out == "" and err.strip() == "ctxtui report: interrupted"


def test_compact_output_fits_80_columns_even_when_still_over(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "huge_tail.json"
    path.write_text(json.dumps(_chat(turns=3, reply_chars=40_000)))
    assert main(["compact", str(path), "--context-window", "8000", "--max-tokens", "1000"]) == 0
    lines = capsys.readouterr().out.splitlines()
    over = [line for line in lines if line.startswith("still over the window: ")]
    assert len(over) == 1 and "> 8,000 (" in over[0]
    assert max(map(len, lines)) <= 80
