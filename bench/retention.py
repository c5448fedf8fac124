"""The retention audit's cost (issue #28): a replay audited against the same replay alone."""

from __future__ import annotations

from typing import Any

from bench.common import Result, label, paired, session_file

TARGET = 1.5
"""The audit of every simulated compaction of a 100k-message replay costs at most half again
the replay."""


def retention_ratio(size: int, repeats: int) -> list[Result]:
    """A replay with every simulated compaction audited over the replay alone.

    Both start from an open session (counted, first plan made), under the plan preset; the
    subject is the walk plus ``simulated_audits`` (facts of each replaced segment, the
    stand-in's retention, the messages after it), the baseline the walk alone.
    """
    from ctxtui.core.engine import Engine
    from ctxtui.core.policies.policy import policy_for_session
    from ctxtui.core.simulation.live_context import Counted
    from ctxtui.core.simulation.replay import replay
    from ctxtui.core.simulation.retention_audits import simulated_audits
    from ctxtui.importers import load_session
    from ctxtui.system.count_cache import default_cache
    from ctxtui.system.heap import keep_out_of_collections

    session = load_session(session_file(size))
    policy = policy_for_session("plan", session)
    engine = Engine(session, default_cache())
    counts = engine.counts(policy)
    assert counts is not None
    plan = engine.plan(policy, counts)
    tokenizer = engine.tokenizer(policy)
    keep_out_of_collections(len(session))
    audited: list[Any] = []

    def baseline() -> None:
        replay(Counted(session, policy, counts, tokenizer), plan)

    def subject() -> None:
        walked = replay(Counted(session, policy, counts, tokenizer), plan)
        audited[:] = [walked, simulated_audits(walked)]

    subject_s, base = paired(subject, baseline, repeats)
    walked, audits = audited
    facts = sum(len(a.retained) for a in audits)
    lost = sum(a.needed_and_lost for a in audits)
    note = (
        f"{len(walked.compactions):,} compactions audited, {facts:,} facts, "
        f"{lost:,} needed after and lost"
    )
    target = TARGET if size >= 100_000 else None
    return [
        Result("retention", label(size), "replay + audit", subject_s, "replay", base, "s",
               target, note)
    ]  # fmt: skip
