"""The estimator against an exact count: one sentence when they differ by more than 10 %."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ctxtui.cli.main import main
from ctxtui.core.policies.policy import preset
from ctxtui.core.simulation.estimate_check import drift_notice, estimate_drift, estimator_for
from ctxtui.core.tokens.counts import SessionCounts
from ctxtui.core.tokens.tokenizers import TokenizerInfo


def _counts(used: str, messages: list[int], system: int = 0, tools: int = 0) -> SessionCounts:
    return SessionCounts(
        TokenizerInfo(used, used), messages, system_tokens=system, tool_def_tokens=tools
    )


def test_the_issue_figures_read_as_an_undercount_of_47_percent() -> None:
    est = _counts("plan", [50_000, 10])
    exact = _counts("tiktoken:cl100k_base", [94_700, 45])
    drift = estimate_drift(est, exact)
    assert drift is not None and drift.differs
    assert (drift.estimated_tokens, drift.exact_tokens) == (50_010, 94_745)
    assert drift.sentence() == (
        "the plan estimator undercounts this session by 47% against cl100k_base "
        "(50,010 vs 94,745 tokens)"
    )


def test_the_whole_prompt_is_compared_and_an_overcount_says_so() -> None:
    est = _counts("picoclaw", [130], system=10, tools=10)
    exact = _counts("tiktoken:o200k_base", [90], system=5, tools=5)
    assert drift_notice(est, exact) == (
        "PicoClaw's estimator overcounts this session by 50% against o200k_base (150 vs 100 tokens)"
    )


@pytest.mark.parametrize(
    ("estimated", "said"), [(89, True), (90, False), (100, False), (110, False), (111, True)]
)
def test_within_ten_percent_nothing_is_said(estimated: int, said: bool) -> None:
    notice = drift_notice(_counts("plan", [estimated]), _counts("tiktoken:cl100k_base", [100]))
    assert bool(notice) == said


def test_no_yardstick_no_sentence() -> None:
    fell_back = SessionCounts(TokenizerInfo("tiktoken:cl100k_base", "plan"), [10])
    assert estimate_drift(_counts("plan", [50]), fell_back) is None
    assert estimate_drift(_counts("tiktoken:x", [50]), _counts("tiktoken:y", [10])) is None


def test_the_estimator_judged_is_the_presets_own() -> None:
    assert estimator_for(preset("plan")) == "plan"
    assert estimator_for(preset("picoclaw")) == "picoclaw"
    assert estimator_for(preset("plan", tokenizer="tiktoken:cl100k_base")) == "plan"


def test_report_says_it_when_it_counted_exactly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "cjk.json"
    text = "上下文窗口的预算由系统提示词与工具定义共同占用。" * 40
    chat = {"messages": [{"role": "user", "content": text}, {"role": "assistant", "content": text}]}
    path.write_text(json.dumps(chat, ensure_ascii=False), encoding="utf-8")
    assert main(["report", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["estimate"] is None  # the default stays fast
    assert main(["report", str(path), "--json", "--tokenizer", "tiktoken:cl100k_base"]) == 0
    estimate = json.loads(capsys.readouterr().out)["estimate"]
    assert estimate["differs"] and estimate["error"] < -0.1
    assert estimate["sentence"].startswith("the plan estimator undercounts this session by ")
    assert main(["report", str(path), "--tokenizer", "tiktoken:cl100k_base"]) == 0
    out = capsys.readouterr().out
    assert "estimate   the plan estimator undercounts" in out
