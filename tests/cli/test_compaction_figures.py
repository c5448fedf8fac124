"""What ``compact`` and ``report`` say about a compaction: LLM calls, the stand-in, plurals."""

from __future__ import annotations

import argparse
import dataclasses
import json
from pathlib import Path

import pytest

from ctxtui.cli.main import main
from ctxtui.commands.compact import describe
from ctxtui.commands.pipeline import load
from ctxtui.core.compacting.compaction import CompactionResult
from ctxtui.core.compacting.notes import STAND_IN_NOTICE, llm_calls, llm_calls_sentence
from ctxtui.core.engine import Engine
from ctxtui.core.policies.policy import policy_for_session
from ctxtui.core.policies.reasons import CompactReason
from tests.cli.chats import agent_chat


def _write(tmp_path: Path, turns: int, tool_chars: int) -> Path:
    path = tmp_path / "chat.json"
    chat = agent_chat(turns, ask="step {k}", reply="ok {k}", tool_chars=tool_chars, path="a.py")
    path.write_text(json.dumps(chat))
    return path


WINDOW = ("--context-window", "16000", "--max-tokens", "1000")


def _compact(path: Path) -> CompactionResult:
    session = load(argparse.Namespace(session=str(path), format=None))
    policy = policy_for_session("plan", session, {"context_window": 16_000, "max_tokens": 1_000})
    return Engine(session).compact(policy, CompactReason.PROACTIVE)


@pytest.mark.parametrize(("turns", "tool_chars", "calls"), [(12, 4_000, 1), (30, 40_000, None)])
def test_compact_states_the_llm_calls(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    turns: int,
    tool_chars: int,
    calls: int | None,
) -> None:
    path = _write(tmp_path, turns, tool_chars)
    assert (
        main(
            ["compact", str(path), "--preview", "--context-window", "16000", "--max-tokens", "1000"]
        )
        == 0
    )
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if x.startswith("LLM calls: "))
    if calls == 1:
        assert line == "LLM calls: 1 leaf-summary call for the whole replaced range"
    else:
        assert "leaf-summary calls, one per chunk of up to 20,000 tokens" in line
    assert STAND_IN_NOTICE in out.split("=== summary ===", 1)[1]


def test_report_json_states_the_llm_calls(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path, 30, 40_000)
    main(["report", str(path), "--json", *WINDOW])
    report = json.loads(capsys.readouterr().out)
    assert report["compaction"]["needed"]
    result = _compact(path)
    assert report["compaction"]["llm_calls"] == llm_calls(result) == result.prompt_calls > 1


def test_picoclaw_drops_without_an_llm_call(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path, 30, 40_000)
    main(["report", str(path), "--json", "--preset", "picoclaw", *WINDOW])
    report = json.loads(capsys.readouterr().out)
    assert report["compaction"]["needed"] and report["compaction"]["llm_calls"] == 0
    main(["compact", str(path), "--preset", "picoclaw", *WINDOW])
    assert "LLM calls: none: this compaction style drops messages" in capsys.readouterr().out


def test_describe_counts_one_message_in_the_singular(tmp_path: Path) -> None:
    result = _compact(_write(tmp_path, 12, 4_000))
    one = dataclasses.replace(result, replaced=(3, 3), messages_replaced=1, summary_tokens=8_000)
    text = describe(one)
    assert "#3-#3 (1 message, " in text and "with an 8,000-tok summary" in text
    two = dataclasses.replace(result, replaced=(3, 4), messages_replaced=2, summary_tokens=386)
    assert "(2 messages, " in describe(two) and "with a 386-tok summary" in describe(two)
    assert (
        llm_calls_sentence(dataclasses.replace(result, replaced=None))
        == "none: nothing was replaced"
    )


def test_compact_says_what_the_reason_changes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path, 12, 4_000)
    assert main(["compact", str(path), "--reason", "retry", *WINDOW]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "reason: retry (in PicoClaw: the retry after the LLM refuses the request)"
    assert lines[1].startswith("  Only labels the event: the plan preset replaces the history")


def test_picoclaw_compact_says_it_summarises_past_the_after_turn_limit(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from ctxtui.samples import samples_dir

    chat = str(samples_dir() / "picoclaw_long_chat.jsonl")
    assert main(["compact", chat, "--preset", "picoclaw"]) == 0
    said = " ".join(capsys.readouterr().out.split())
    assert "with a" in said and "summary" in said  # the preview summarised
    assert "Only labels" not in said and "drops the oldest half" not in said
    assert "preset summarises the messages before the fresh tail" in said
