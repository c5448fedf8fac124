"""``Engine``: one session's counts, plans and compactions behind one object, for both shells.

It caches counts per tokenizer, so a knob change re-plans without re-counting, and strings the
pipeline together: tokenizer → counts → plan → compaction. Safe to call from a worker thread.
Counts last across runs only through the ``counts_store`` a shell hands it.

``Engine.run`` is the one place count → plan → replay is assembled: its ``Run`` carries what
every later step reads (the gap, the calibration, the dollars, the audits), each worked out
when first asked, so a command pays only for what it prints and nothing reads the file again.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from functools import cached_property

from ctxtui.core.compacting.compaction import CompactionResult, compact
from ctxtui.core.errors import StopCheck
from ctxtui.core.planning.plan import Plan
from ctxtui.core.planning.planner import build_plan
from ctxtui.core.policies.policy import KNOBS, Policy
from ctxtui.core.policies.reasons import CompactReason
from ctxtui.core.pricing.cache_model import WhatIf, token_scale, what_if
from ctxtui.core.pricing.cost import SessionCost, session_cost
from ctxtui.core.session.models import Session
from ctxtui.core.simulation.live_context import Counted
from ctxtui.core.simulation.replay import Replay, ReplayStoppedError, replay
from ctxtui.core.simulation.reported import PromptCount, ReportedGap, gap_of
from ctxtui.core.summaries.retention import Audit
from ctxtui.core.tokens.calibration import Calibration, SessionFit, calibrate, session_fit
from ctxtui.core.tokens.count_store import CountStore
from ctxtui.core.tokens.counting import Pace, Progress, count_session
from ctxtui.core.tokens.counts import SessionCounts
from ctxtui.core.tokens.tokenizers import Tokenizer, resolve

CALIBRATION_ESTIMATORS = ("plan", "picoclaw")
"""The estimators every calibration judges, beside the run's own tokenizer."""
CALIBRATION_EXACT = "tiktoken:cl100k_base"
EXACT_CALIBRATION_CHARS = 4_000_000
"""Up to this many content characters, calibration also counts with cl100k (a second or so)."""


class Engine:
    """The pipeline for one session, with counts cached per tokenizer."""

    def __init__(self, session: Session, counts_store: CountStore | None = None) -> None:
        self.session = session
        self.counts_store = counts_store
        self._counts: dict[tuple[str, float], tuple[Tokenizer, SessionCounts]] = {}
        self._lock = threading.Lock()

    def _key(self, policy: Policy) -> tuple[str, float]:
        # chars_per_token only matters to the plan estimator; keying the others by it would
        # re-count tiktoken when an unrelated knob moves.
        cpt = policy.chars_per_token if policy.tokenizer == "plan" else 0.0
        return (policy.tokenizer, cpt)

    def cached_counts(self, policy: Policy) -> SessionCounts | None:
        """The counts for the policy's tokenizer if they are already known, else ``None``."""
        with self._lock:
            hit = self._counts.get(self._key(policy))
        return hit[1] if hit else None

    def counts(
        self,
        policy: Policy,
        *,
        on_progress: Progress | None = None,
        should_stop: StopCheck | None = None,
    ) -> SessionCounts | None:
        """Count (or reuse) the session under the policy's tokenizer; ``None`` if stopped."""
        key = self._key(policy)
        with self._lock:
            hit = self._counts.get(key)
        if hit is not None:
            return hit[1]
        tokenizer, info = resolve(policy.tokenizer, chars_per_token=policy.chars_per_token)
        counts = count_session(
            self.session,
            tokenizer,
            info,
            Pace(on_progress, should_stop),
            cache=self.counts_store,
        )
        if counts is None:
            return None
        with self._lock:
            self._counts[key] = (tokenizer, counts)
        return counts

    def tokenizer(self, policy: Policy) -> Tokenizer:
        """The tokenizer that counted (or will count) under this policy."""
        with self._lock:
            hit = self._counts.get(self._key(policy))
        if hit is not None:
            return hit[0]
        return resolve(policy.tokenizer, chars_per_token=policy.chars_per_token)[0]

    def plan(self, policy: Policy, counts: SessionCounts | None = None) -> Plan:
        """The plan for this session under ``policy`` (counting first if needed)."""
        if counts is None:
            counts = self.counts(policy)
            assert counts is not None  # no stop check was given
        return build_plan(self.session, policy, counts, self.tokenizer(policy))

    def compact(self, policy: Policy, reason: CompactReason) -> CompactionResult:
        """Compact the session as the policy would for ``reason``; the session is not changed."""
        plan = self.plan(policy)
        return compact(self.session, plan, reason, self.tokenizer(policy))

    def run(
        self,
        policy: Policy,
        *,
        fit: SessionFit | None = None,
        on_count: Progress | None = None,
        on_replay: Progress | None = None,
        should_stop: StopCheck | None = None,
    ) -> Run | None:
        """Count (or reuse the counts), plan and replay the session under ``policy``; ``None``
        when ``should_stop`` said to stop. ``fit`` is the transcript's calibration when the
        caller already has it (else the session's own, worked out when first needed)."""
        counts = self.counts(policy, on_progress=on_count, should_stop=should_stop)
        if counts is None:
            return None
        plan = self.plan(policy, counts)
        try:
            walked = replay(
                Counted(self.session, policy, counts, self.tokenizer(policy)), plan,
                on_progress=on_replay, should_stop=should_stop,
            )  # fmt: skip
        except ReplayStoppedError:
            return None
        return Run(self, policy, counts, plan, walked, fit)


@dataclass(frozen=True, eq=False)
class Run:
    """One session under one policy: counts, plan and replay, made once by ``Engine.run``.

    Everything else a shell shows of the run is worked out when asked: the fit, the gap at
    the last reported request and the recorded dollars are members kept once read; the
    simulated run's dollars, the calibration and the audits are calls. ``report`` and
    ``fleet`` never ask for the audits, so they never pay for them.
    """

    engine: Engine
    policy: Policy
    counts: SessionCounts
    plan: Plan
    replay: Replay
    given_fit: SessionFit | None = None

    @property
    def session(self) -> Session:
        return self.engine.session

    @property
    def tokenizer(self) -> Tokenizer:
        return self.replay.tokenizer

    @cached_property
    def fit(self) -> SessionFit:
        """The line fitted over the reported requests (characters only): the caller's, or
        the session's own."""
        return self.given_fit if self.given_fit is not None else session_fit(self.session)

    @cached_property
    def gap(self) -> ReportedGap | None:
        """The last reported request against the run's counts of it (``None`` without usage)."""
        count = PromptCount.of_counts(self.counts)
        return gap_of(self.session, count, self.fit, self.policy.context_window)

    @cached_property
    def recorded_cost(self) -> SessionCost:
        """Every request of the session priced as recorded."""
        return session_cost(self.session, self.replay.points)

    def what_if(self, recorded: SessionCost | None = None) -> WhatIf:
        """The simulated run priced with the prefix-cache model, scaled by the fit's
        characters per token; ``recorded`` is the session's recorded pricing if the caller
        already has it."""
        scale = token_scale(self.session, self.counts, self.fit.fit)
        return what_if(self.replay, recorded or self.recorded_cost, scale)

    def calibration(self) -> Calibration:
        """Each tokenizer's error on the reported requests: the run's own first, then the
        estimators at their own default ratio (not the preset's: picoclaw sets 2.5), then
        cl100k on sessions small enough to count exactly in a second or so."""
        counts = {self.counts.tokenizer.used: self.counts}
        specs = list(CALIBRATION_ESTIMATORS)
        session = self.session
        chars = sum(len(m.content) + len(m.reasoning) for m in session.messages)
        if chars <= EXACT_CALIBRATION_CHARS:
            specs.append(CALIBRATION_EXACT)
        ratio = KNOBS["chars_per_token"].default
        for spec in specs:
            other = self.engine.counts(
                self.policy.with_changes(tokenizer=spec, chars_per_token=ratio)
            )
            assert other is not None  # no stop check was given
            counts.setdefault(other.tokenizer.used, other)
        # the fit is over the same requests as the session's own: fitted once (``fit``)
        return calibrate(session, self.replay.points, counts, self.fit.fit)

    def simulated_audits(self) -> tuple[Audit, ...]:
        """Each simulated compaction's summary audited against what it replaced (worked out
        at each call and not kept: a caller takes their blocks and lets them go)."""
        from ctxtui.core.simulation.retention_audits import simulated_audits

        return simulated_audits(self.replay)

    def recorded_audits(self) -> tuple[Audit, ...]:
        """Each compaction the agent recorded, its own summary audited (no stand-in beside);
        not kept either."""
        from ctxtui.core.simulation.retention_audits import recorded_audits

        return recorded_audits(self.session, self.policy, self.counts, self.tokenizer, False)
