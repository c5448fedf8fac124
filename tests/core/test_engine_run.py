"""``Engine.run``: one count, plan and replay per policy, and what a ``Run`` works out only
when asked (the audits never for ``report`` and ``fleet``)."""

from __future__ import annotations

import threading

import pytest

from ctxtui.cli.main import main
from ctxtui.core.engine import Engine
from ctxtui.core.policies.policy import preset
from ctxtui.core.pricing.cache_model import price_replay
from ctxtui.core.simulation.live_context import Counted
from ctxtui.core.simulation.replay import replay
from ctxtui.core.simulation.reported import PromptCount, gap_of
from ctxtui.core.tokens.calibration import calibrate, session_fit
from ctxtui.fleet.job import Spec, Target, session_row
from ctxtui.importers import load_session
from ctxtui.samples import samples_dir

SAMPLE = samples_dir() / "claude_code_replay.jsonl"


def _history() -> Engine:
    return Engine(load_session(SAMPLE, full_history=True))


def test_a_run_is_the_steps_assembled_by_hand() -> None:
    engine = _history()
    policy = preset("plan", context_window=10_000, max_tokens=2_000)
    walked = engine.run(policy)
    assert walked is not None
    counts = engine.counts(policy)
    assert counts is not None and walked.counts is counts  # counted once, shared
    session = engine.session
    by_hand = replay(
        Counted(session, policy, counts, engine.tokenizer(policy)), engine.plan(policy)
    )
    assert walked.replay.requests == by_hand.requests
    assert walked.replay.compactions == by_hand.compactions
    fit = session_fit(session)
    assert walked.fit == fit
    assert walked.gap == gap_of(session, PromptCount.of_counts(counts), fit, 10_000)
    assert walked.what_if().total == price_replay(by_hand).total
    assert walked.calibration().fit == calibrate(session, by_hand.points, {}).fit


def test_a_run_stopped_is_none() -> None:
    stop = threading.Event()
    stop.set()
    assert _history().run(preset("plan"), should_stop=stop.is_set) is None


def _no_audit(*args: object, **kwargs: object) -> None:
    raise AssertionError("an audit was computed")


@pytest.fixture
def audits_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    from ctxtui.core.simulation import retention_audits

    monkeypatch.setattr(retention_audits, "recorded_audits", _no_audit)
    monkeypatch.setattr(retention_audits, "simulated_audits", _no_audit)


def test_report_computes_no_audit(audits_refused: None, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", "--json", str(SAMPLE)]) == 0
    assert '"schema"' in capsys.readouterr().out


def test_the_fleet_job_computes_no_audit(audits_refused: None) -> None:
    outcome = session_row(Target(str(SAMPLE)), Spec())
    assert outcome.base["error"] is None
    assert outcome.simulated["plan"]["error"] is None


def test_replay_does_compute_them(audits_refused: None, capsys: pytest.CaptureFixture[str]) -> None:
    """The refusal above is seen: ``replay`` prints every audit, so it asks for them."""
    assert main(["replay", "--json", str(SAMPLE)]) != 0
    assert "an audit was computed" in capsys.readouterr().err
