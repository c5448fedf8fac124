"""Sentences that read wrong to a newcomer: number agreement, a direction on
every error, no "0 %" overcount, no ``(plan, plan)``, no ``tail #N`` naming no message, and one
wording for a recorded compaction."""

from __future__ import annotations

import pytest

from ctxtui.cli.main import main
from ctxtui.core.engine import Engine
from ctxtui.core.policies.policy import policy_for_session
from ctxtui.core.simulation.reported import ReportedGap
from ctxtui.core.tokens.calibration import Calibration, Fit, TokenizerError
from ctxtui.importers import load_session
from ctxtui.samples import samples_dir

CODEX = samples_dir() / "codex_replay.jsonl"


def _gap(missing: tuple[str, ...]) -> ReportedGap:
    return ReportedGap(3, 20_000, 5_000, "plan", missing, foreign=False)


@pytest.mark.parametrize(
    ("missing", "said"),
    [
        (("system prompt",), "system prompt is not in the transcript"),
        (("tool definitions",), "tool definitions are not in the transcript"),
        (("system prompt", "tool definitions"), "system prompt and tool definitions are not"),
    ],
)
def test_missing_parts_agree_in_number(missing: tuple[str, ...], said: str) -> None:
    assert said in _gap(missing).reason()


def test_every_tokenizer_says_its_direction_and_none_overcounts_by_zero() -> None:
    calibration = Calibration(
        samples=40,
        errors=(
            TokenizerError("plan", 900.0, -0.31),
            TokenizerError("tiktoken:cl100k_base", 200.0, -0.09),
            TokenizerError("picoclaw", 3.0, 0.004),
        ),
        fit=Fit(None, None),
    )
    assert calibration.sentence() == (
        "the plan estimator undercounts this session by 31%; cl100k undercounts by 9%; "
        "picoclaw is within 1% (40 requests with reported usage)"
    )


def test_replay_names_preset_and_tokenizer(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(CODEX)]) == 0
    out = " ".join(capsys.readouterr().out.split())
    # a Codex rollout replays on its agent's preset, named with its tokenizer
    assert "(preset codex, tokenizer tiktoken:o200k_base)" in out
    assert "(codex, tiktoken:o200k_base)" not in out


def test_an_empty_tail_names_no_message() -> None:
    session = load_session(CODEX)
    plan = Engine(session).plan(policy_for_session("codex", session))
    assert plan.tail.start == len(plan)
    assert plan.tail_words() == "no tail"
    shorter = Engine(session).plan(policy_for_session("plan", session))
    assert shorter.tail_words() == f"tail #{shorter.tail.start:,}"


def test_compare_says_no_tail(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compare", str(CODEX)]) == 0
    out = capsys.readouterr().out
    assert "no tail" in out and f"tail from #{len(load_session(CODEX)):,}" not in out


def test_a_recorded_compaction_reads_the_same_in_report_and_replay() -> None:
    shown = load_session(CODEX).meta.events
    replayed = load_session(CODEX, full_history=True).meta.events
    first = [w for w in shown if w.startswith("compacted at line 420")]
    again = [w for w in replayed if w.startswith("compacted at line 420")]
    assert first == again and "earlier messages replaced" in first[0]
