"""``ctxtui report`` as a table: the ``ctxtui.report/1`` document rendered with rich."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from ctxtui.commands.render_report import render_report
from ctxtui.core.simulation.report import build_report
from tests.core.plans import hand_plan, small_session


def _report() -> dict[str, Any]:
    return build_report(small_session(), hand_plan(), None)


def _render(r: dict[str, Any], width: int = 100) -> str:
    console = Console(width=width, record=True, color_system=None)
    console.print(render_report(r))
    return console.export_text()


def _lines(text: str) -> list[str]:
    return [line.rstrip() for line in text.splitlines()]


def test_table_shows_header_totals_and_fallback() -> None:
    plan = hand_plan()
    lines = _lines(_render(_report()))
    assert lines[0].split() == ["session", "s.json"]
    assert lines[1].split("·")[0].strip() == "openai"
    assert "tokenizer  tiktoken:nope → plan: nope is not available" in lines
    t = plan.totals
    request = next(line for line in lines if line.startswith("request"))
    assert f"{t.requested:,} of {t.window:,} tok" in request
    assert f"= prompt {t.tokens:,} + output reserve {t.output_reserve:,}" in request
    assert "tail       from #3 · 8 of 2,000 tok · widened to hold the minimum turns" in lines
    assert "pruned     1 tool output · 90 tok freed" in lines
    assert "compaction needed (proactive): replaces #0-#0" in lines


def test_table_wraps_under_its_labels_at_80_columns() -> None:
    """Long paths and warnings wrapped back to column 0 and broke the header apart."""
    r = _report()
    r["session"]["path"] = "/home/someone/projects/" + "deeply-nested/" * 4 + "session.jsonl"
    r["session"]["warnings"] = ["output reserve lowered from 32,768 to 8,192: " + "word " * 30]
    lines = _lines(_render(r, width=80))
    assert max(map(len, lines)) <= 80
    warning = lines.index(next(line for line in lines if line.startswith("warning")))
    assert lines[warning + 1].startswith(" " * 11) and lines[warning + 1].strip()
    body = [line for line in lines[: warning + 3] if line]
    assert all(line[:11].strip() in {"", "session", "warning", "tokenizer"} for line in body)


def test_big_sessions_elide_the_middle() -> None:
    r = _report()
    row = r["messages"][0]
    r["messages"] = [{**row, "index": i} for i in range(1_000)]
    text = _render(r)
    assert "960 more" in text
    assert " 999 " in text or text.rstrip().count("999") >= 1
    assert "500 " not in text.replace(",", "")


def test_a_tool_name_with_escapes_reaches_the_terminal_as_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``ctxtui report`` printed a tool name's ESC and OSC bytes raw: a crafted transcript
    could clear the screen or set the window title. They are shown as ``␛`` instead."""
    import json

    from ctxtui.cli.main import main

    evil = "\x1b[2J\x1b]0;PWNED\x07run"
    chat = {
        "messages": [
            {"role": "user", "content": "go"},
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [
                    {"id": "c1", "type": "function", "function": {"name": evil, "arguments": "{}"}}
                ],
            },
            {"role": "tool", "tool_call_id": "c1", "content": "done"},
        ]
    }
    path = tmp_path / "evil.json"
    path.write_text(json.dumps(chat))
    assert main(["report", str(path)]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out
    assert "␛[2J␛]0;PWNED" in out


def test_the_tools_share_is_named_for_the_prompt_it_divides(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The request line defines request = prompt + output reserve; the tools' last column is
    of the prompt alone, so its heading says "of prompt", and its figures are sent / prompt."""
    from ctxtui.cli.main import main
    from ctxtui.samples import samples_dir

    chat = str(samples_dir() / "picoclaw_long_chat.jsonl")
    assert main(["report", chat, "--preset", "picoclaw", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert main(["report", chat, "--preset", "picoclaw"]) == 0
    lines = capsys.readouterr().out.splitlines()
    header = next(line for line in lines if line.startswith("tool "))
    assert header.split()[-2:] == ["of", "prompt"]
    prompt = doc["totals"]["tokens"]
    assert prompt != doc["totals"]["requested"]
    for tool in doc["tools"]:
        assert tool["share"] == round(tool["sent_tokens"] / prompt, 6)
