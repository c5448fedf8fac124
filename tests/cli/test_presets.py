"""Each preset's published figures, asserted through ``report --json`` and ``compare --json``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ctxtui.cli.main import main
from tests.cli.chats import agent_chat


@pytest.fixture
def chat(tmp_path: Path) -> Path:
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(agent_chat(3, ask="ask {k}", reply="done {k}", tool_chars=400)))
    return path


def _report(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    assert main(["report", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]


@pytest.mark.parametrize(
    ("preset", "window", "output", "trigger"),
    [
        # overflow.ts usable(): context − min(output, 32,000) without an input limit
        ("opencode", 200_000, 64_000, 168_000),
        ("opencode", 128_000, 16_384, 111_616),
        ("opencode", 200_000, 8_192, 191_808),
        ("opencode", 1_000_000, 32_000, 968_000),
        ("codex", 272_000, 0, 244_800),
        ("codex", 200_000, 0, 180_000),
        ("codex", 128_000, 0, 115_200),
        ("claude-code", 200_000, 20_000, 167_000),
        ("claude-code", 200_000, 64_000, 167_000),
        ("claude-code", 200_000, 8_192, 178_808),
        ("claude-code", 1_000_000, 32_000, 967_000),
    ],
)
def test_trigger_figures(
    chat: Path,
    capsys: pytest.CaptureFixture[str],
    preset: str,
    window: int,
    output: int,
    trigger: int,
) -> None:
    argv = [str(chat), "--preset", preset, "--context-window", str(window)]
    r = _report(capsys, *argv, "--max-tokens", str(output))
    assert r["totals"]["trigger"] == trigger
    assert r["policy"]["window_source"] in ("user", "preset")  # the same figure either way


def test_claude_code_categories_hold_the_autocompact_buffer(
    chat: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    r = _report(capsys, str(chat), "--preset", "claude-code", "--context-window", "200000")
    cats = {c["name"]: c["tokens"] for c in r["totals"]["categories"]}
    assert list(cats) == [
        "system prompt",
        "tool definitions",
        "messages",
        "free",
        "autocompact buffer",
    ]
    assert cats["autocompact buffer"] == 33_000  # 20,000 + 13,000
    assert sum(cats.values()) == 200_000


def _claude_code_file(tmp_path: Path, model: str) -> Path:
    lines = [
        {
            "type": "user",
            "uuid": "u1",
            "parentUuid": None,
            "sessionId": "s",
            "message": {"role": "user", "content": "hello"},
        },
        {
            "type": "assistant",
            "uuid": "a1",
            "parentUuid": "u1",
            "sessionId": "s",
            "message": {
                "role": "assistant",
                "model": model,
                "content": [{"type": "text", "text": "hi"}],
            },
        },
    ]
    path = tmp_path / "cc.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    return path


@pytest.mark.parametrize("model", ["claude-sonnet-4-5-20250929", "claude-sonnet-4-5"])
def test_a_claude_sonnet_transcript_opens_with_200k(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], model: str
) -> None:
    r = _report(capsys, str(_claude_code_file(tmp_path, model)), "--preset", "claude-code")
    assert r["totals"]["window"] == 200_000
    assert r["policy"]["window_source"] == "registry"
    assert r["totals"]["trigger"] == 167_000


def test_codex_on_a_claude_transcript_says_no_automatic_compaction(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = str(_claude_code_file(tmp_path, "claude-sonnet-4-5"))
    r = _report(capsys, path, "--preset", "codex")
    assert (r["totals"]["window"], r["totals"]["trigger"]) == (200_000, None)
    assert main(["compare", path, "--presets", "codex"]) == 0
    assert "no automatic compaction" in capsys.readouterr().out


def test_a_codex_rollout_opens_with_its_recorded_window(
    capsys: pytest.CaptureFixture[str],
) -> None:
    sample = Path(__file__).resolve().parents[2] / "sample_sessions" / "codex_rollout.jsonl"
    r = _report(capsys, str(sample), "--preset", "codex")
    assert r["totals"]["window"] == 272_000
    assert r["policy"]["window_source"] == "transcript"
    assert r["totals"]["trigger"] == 244_800


def test_compare_json(chat: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["compare", str(chat), "--presets", "plan,picoclaw,opencode,codex,claude-code"]
    assert main([*argv, "--json", "--context-window", "200000"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["schema"] == "ctxtui.compare/1"
    names = [p["preset"] for p in doc["presets"]]
    assert names == ["plan", "picoclaw", "opencode", "codex", "claude-code"]
    by = {p["preset"]: p for p in doc["presets"]}
    assert by["codex"]["trigger"] == 180_000
    assert by["opencode"]["trigger"] == 168_000
    assert by["claude-code"]["trigger"] == 167_000
    for p in doc["presets"]:
        assert p["window"] == 200_000
        assert {"kept", "dropped", "tail"} <= set(p["zones"])
        assert p["after_compaction"]["requested"] <= p["requested"]
    codex_after = by["codex"]["after_compaction"]
    assert codex_after["messages"] == 3 + 1  # the three user messages and the summary


def test_presets_lists_every_preset(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["presets"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in out] == [
        "plan",
        "picoclaw",
        "picoclaw-seahorse",
        "opencode",
        "codex",
        "claude-code",
    ]


def _one_message(tmp_path: Path, chars: int) -> Path:
    path = tmp_path / "one.json"
    path.write_text(json.dumps({"messages": [{"role": "user", "content": "x" * chars}]}))
    return path


def test_codex_context_left_with_its_baseline(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # one user message of 129,988 characters: 130,000 tokens at 1 character per token
    # (the estimator charges 12 characters per message)
    path = _one_message(tmp_path, 129_988)
    argv = ["--preset", "codex", "--tokenizer", "plan", "--chars-per-token", "1"]
    r = _report(capsys, str(path), *argv, "--context-window", "272000")
    assert r["totals"]["tokens"] == 130_000
    assert r["totals"]["context_left"] == 54.6
    r = _report(capsys, str(path), *argv, "--context-window", "258400")
    assert r["totals"]["context_left"] == 52.1


def _chat_file(tmp_path: Path, messages: list[dict[str, Any]], name: str = "c.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps({"messages": messages}))
    return path


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("a" * 5, 15),  # 58 UTF-16 units serialised: 14.5 rounds up (Python's round gives 14)
        ("a" * 7, 15),  # 60 → 15
        ("\U0001f600" * 3, 15),  # an emoji is 2 units: 59 → 14.75 → 15 (code points: 14)
    ],
)
def test_opencode_estimator(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, tokens: int
) -> None:
    path = _chat_file(tmp_path, [{"role": "user", "content": text}])
    r = _report(capsys, str(path), "--preset", "opencode")
    assert r["tokenizer"]["used"] == "opencode"
    assert r["messages"][0]["tokens"] == tokens


@pytest.mark.parametrize(
    ("window", "output", "budget"),
    [(200_000, 64_000, 15_000), (60_000, 10_000, 12_500), (12_000, 2_000, 2_500)],
)
def test_opencode_tail_is_a_quarter_of_usable_clamped(
    chat: Path,
    capsys: pytest.CaptureFixture[str],
    window: int,
    output: int,
    budget: int,
) -> None:
    argv = ["--preset", "opencode", "--context-window", str(window), "--max-tokens", str(output)]
    assert _report(capsys, str(chat), *argv)["fresh_tail"]["budget"] == budget


def _tool_turns(outputs: list[tuple[str, str]]) -> list[dict[str, Any]]:
    """One turn per (tool, output): ask, call, result, answer."""
    messages: list[dict[str, Any]] = []
    for k, (tool, output) in enumerate(outputs):
        call = {"id": f"c{k}", "type": "function", "function": {"name": tool, "arguments": "{}"}}
        messages += [
            {"role": "user", "content": f"step {k}"},
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": f"c{k}", "name": tool, "content": output},
            {"role": "assistant", "content": f"done {k}"},
        ]
    return messages


def test_opencode_prune_is_opt_in_and_spares_skill(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    big = "x" * 50_000  # about 12,500 tokens each, under the 51,200-byte truncation
    path = _chat_file(tmp_path, _tool_turns([("read", big)] * 8))
    argv = ["--preset", "opencode", "--context-window", "1000000"]
    assert _report(capsys, str(path), *argv)["prune"]["pruned"] == []  # off by default
    r = _report(capsys, str(path), *argv, "--prune-mode", "tokens")
    # the newest two turns are skipped; turns 5, 4 and 3 are protected (37,500 ≤ 40,000);
    # turns 2, 1 and 0 are pruned, freeing over 20,000
    assert r["prune"]["pruned"] == [2, 6, 10]
    assert r["prune"]["tokens_freed"] > 20_000
    assert (
        r["messages"][2]["sent_tokens"] == 39
    )  # the result with "[Old tool result content cleared]"
    skill = _chat_file(tmp_path, _tool_turns([("skill", big)] * 2 + [("read", big)] * 6), "s.json")
    r = _report(capsys, str(skill), *argv, "--prune-mode", "tokens")
    assert r["prune"]["pruned"] == []  # skill is never pruned, turn 2 alone frees < 20,000


@pytest.mark.parametrize(
    ("output", "truncated"),
    [
        ("l\n" * 1_999, False),  # text.split("\n"): 2,000 pieces, the last one empty
        ("l\n" * 2_000, True),  # 2,001 pieces: over MAX_LINES (tool/truncation.ts)
        ("l\n" * 1_999 + "l", False),
        ("x" * 51_200, False),
        ("x" * 51_201, True),
    ],
)
def test_opencode_truncation_limits(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], output: str, truncated: bool
) -> None:
    path = _chat_file(tmp_path, _tool_turns([("read", output)]))
    r = _report(capsys, str(path), "--preset", "opencode")
    assert r["messages"][2]["truncated"] is truncated


@pytest.mark.parametrize(
    ("output", "truncated"),
    [
        ("l\n" * 6_000, False),  # Bytes(10_000) × 1.2 in the history: no line limit
        ("l\n" * 6_001, True),
        ("x" * 12_000, False),
        ("x" * 12_001, True),
    ],
)
def test_codex_ingest_truncation_limits(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], output: str, truncated: bool
) -> None:
    path = _chat_file(tmp_path, _tool_turns([("shell", output)]))
    r = _report(capsys, str(path), "--preset", "codex", "--tokenizer", "plan")
    assert r["messages"][2]["truncated"] is truncated


def test_codex_compaction_keeps_user_messages_and_the_summary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _chat_file(tmp_path, _tool_turns([("shell", "y" * 400)] * 4))
    out = tmp_path / "out.json"
    argv = ["compact", str(path), "--preset", "codex", "--tokenizer", "plan", "-o", str(out)]
    assert main(argv) == 0
    capsys.readouterr()
    messages = json.loads(out.read_text())["session"]["messages"]
    assert [m["role"] for m in messages] == ["user"] * 5
    assert [m["content"] for m in messages[:4]] == [f"step {k}" for k in range(4)]
    assert messages[-1]["content"].startswith(
        "Another language model started to solve this problem and produced a summary of its "
        "thinking process."
    )


def test_claude_code_microcompact_clears_old_builtin_results(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tools = ["Read", "Bash", "custom", "Grep", "WebFetch", "Edit", "Write"]
    path = _chat_file(tmp_path, _tool_turns([(t, "z" * 4_000) for t in tools]))
    argv = [str(path), "--preset", "claude-code", "--tokenizer", "plan"]
    # results at 2, 6, 10, 14, 18, 22, 26; the newest three eligible (18, 22, 26) stay, once
    # the prompt is past the clearing threshold
    assert _report(capsys, *argv, "--prune-after", "5000")["prune"]["pruned"] == [2, 6, 14]
    assert _report(capsys, *argv, "--prune-after", "0", "--prune-keep", "1")["prune"]["pruned"] == [
        2,
        6,
        14,
        18,
        22,
    ]


def test_claude_code_keeps_every_tool_result_below_the_clearing_threshold(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Clearing starts past a threshold (inferred: 100,000), not on every request."""
    tools = ["Read", "Bash", "Grep", "WebFetch", "Edit", "Write"] * 5
    path = _chat_file(tmp_path, _tool_turns([(t, "z" * 8_000) for t in tools]))
    r = _report(capsys, str(path), "--preset", "claude-code", "--tokenizer", "plan")
    assert 30_000 < r["totals"]["tokens"] < 100_000
    assert r["prune"]["pruned"] == []
    assert r["policy"]["prune_trigger_tokens"] == 100_000
    assert r["policy"]["prune_keep_results"] == 3


@pytest.mark.parametrize(
    ("preset", "headings"),
    [
        (
            "claude-code",
            [
                "1. Primary Request and Intent",
                "2. Key Technical Concepts",
                "3. Files and Code Sections",
                "4. Errors and Fixes",
                "5. Problem Solving",
                "6. All user messages",
                "7. Pending Tasks",
                "8. Current Work",
                "9. Optional Next Step",
            ],
        ),
        (
            "opencode",
            [
                "## Objective",
                "## Important Details",
                "## Work State",
                "### Completed",
                "### Active",
                "### Blocked",
                "## Next Move",
                "## Relevant Files",
            ],
        ),
    ],
)
def test_summary_templates(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], preset: str, headings: list[str]
) -> None:
    path = _chat_file(tmp_path, _tool_turns([("Read", "y" * 4_000)] * 6))
    argv = ["compact", str(path), "--preset", preset, "--tokenizer", "plan", "--preview"]
    argv += ["--context-window", "12000", "--max-tokens", "2000"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    positions = [out.index(h) for h in headings]
    assert positions == sorted(positions)


def _compare(capsys: pytest.CaptureFixture[str], path: Path, *argv: str) -> dict[str, Any]:
    assert main(["compare", str(path), "--presets", "picoclaw", "--json", *argv]) == 0
    return json.loads(capsys.readouterr().out)["presets"][0]  # type: ignore[no-any-return]


def test_picoclaw_legacy_summarizes_past_twenty_messages(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    five = _chat_file(tmp_path, _tool_turns([("exec", "ok")] * 5))  # 20 messages
    p = _compare(capsys, five)
    assert not p["compacts_now"]
    assert p["zones"]["dropped"]["count"] == 0  # the whole history is sent
    six = _chat_file(tmp_path, _tool_turns([("exec", "ok")] * 6), "six.json")  # 24 messages
    p = _compare(capsys, six)
    assert p["compacts_now"] and p["post_turn"]
    assert p["tail_start"] == 20  # len − 4 = 20 is a turn start
    assert p["after_compaction"]["replaced"] == [0, 19]
    assert p["after_compaction"]["messages"] == 4


def test_picoclaw_legacy_summarizes_over_75_percent_of_the_window(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _chat_file(tmp_path, _tool_turns([("exec", "x" * 4_000)] * 4))  # 16 messages
    p = _compare(capsys, path, "--context-window", "8000", "--max-tokens", "1000")
    assert p["tokens"] + 1_000 <= 8_000  # not over the window…
    assert p["tokens"] > 6_000  # …but the history is over 75 % of it
    assert p["compacts_now"] and p["post_turn"]


def test_picoclaw_legacy_force_compression_at_the_window(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _chat_file(tmp_path, _tool_turns([("exec", "x" * 4_000)] * 4))
    p = _compare(capsys, path, "--context-window", "4000", "--max-tokens", "1000")
    assert p["compacts_now"] and not p["post_turn"]
    assert p["zones"]["dropped"]["count"] == 0  # still sent whole: legacy has no budget
    assert p["after_compaction"]["replaced"] == [0, 7]  # the oldest half of the turns


def test_compare_and_presets_read_in_80_columns(
    chat: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    assert main(["compare", str(chat), "--context-window", "200000"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert max(len(line) for line in lines) <= 80
    assert [line for line in lines if line and not line[0].isspace() and " " not in line] == [
        "plan",
        "picoclaw",
        "opencode",
        "codex",
        "claude-code",
    ]
    assert main(["presets"]) == 0
    assert max(len(line) for line in capsys.readouterr().out.splitlines()) <= 80


def test_compare_refuses_an_unknown_preset(chat: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compare", str(chat), "--presets", "plan,nope"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "'nope'" in err and "known: plan" in err


def test_compare_table_counts_in_words(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A one-message session reads "1 message" after a compaction, not "1 messages"."""
    path = _one_message(tmp_path, 40)
    assert main(["compare", str(path), "--presets", "plan"]) == 0
    out = capsys.readouterr().out
    assert "1 message" in out
    assert "1 messages" not in out


def test_a_typed_reserve_is_not_reported_as_lowered(capsys: pytest.CaptureFixture[str]) -> None:
    """Issue #26: the user typed 8192; only a reserve the preset's fit lowered is said to be."""
    sample = Path(__file__).resolve().parents[2] / "sample_sessions" / "picoclaw_long_chat.jsonl"
    argv = ["report", str(sample), "--preset", "plan", "--context-window", "32768"]
    assert main([*argv, "--max-tokens", "8192"]) == 0
    typed = capsys.readouterr()
    assert "lowered" not in typed.out + typed.err
    assert main(argv) == 0
    fitted = capsys.readouterr()
    assert "output reserve lowered from 32,768 to 8,192" in fitted.out + fitted.err


def test_opencode_prune_sizes_the_raw_output_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """compaction.ts prune(): ``Token.estimate(part.state.output)``. Seven old outputs of
    10,000 tokens of text: the newest four reach exactly PRUNE_PROTECT (40,000, not over it)
    and stay; sized as whole messages (their JSON framing included) the fourth would pass it."""
    outputs = [("bash", "o" * 40_000)] * 7 + [("bash", "c"), ("bash", "d")]
    path = _chat_file(tmp_path, _tool_turns(outputs))
    argv = [str(path), "--preset", "opencode", "--prune-mode", "tokens"]
    assert _report(capsys, *argv)["prune"]["pruned"] == [2, 6, 10]


@pytest.mark.parametrize(
    ("sample", "preset"),
    [
        ("claude_code_replay.jsonl", "claude-code"),
        ("codex_rollout.jsonl", "codex"),
        ("picoclaw_long_chat.jsonl", "picoclaw"),
        ("demo.json", "plan"),
    ],
)
def test_report_defaults_to_the_agents_preset(
    sample: str, preset: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from ctxtui.samples import samples_dir

    path = str(samples_dir() / sample)
    assert main(["report", path, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["policy"]["preset"] == preset
    assert main(["report", path, "--json", "--preset", "opencode"]) == 0  # --preset wins
    assert json.loads(capsys.readouterr().out)["policy"]["preset"] == "opencode"
