"""``Engine``: one session's counts, plans and compactions behind one object, for both shells.

It caches counts per tokenizer, so a knob change re-plans without re-counting, and strings the
pipeline together: tokenizer → counts → plan → compaction. Safe to call from a worker thread.
Counts last across runs only through the ``counts_store`` a shell hands it.
"""

from __future__ import annotations

import threading

from ctxtui.core.compacting.compaction import CompactionResult, compact
from ctxtui.core.planning.plan import Plan
from ctxtui.core.planning.planner import build_plan
from ctxtui.core.policies.policy import Policy
from ctxtui.core.policies.reasons import CompactReason
from ctxtui.core.session.models import Session
from ctxtui.core.tokens.count_store import CountStore
from ctxtui.core.tokens.counting import Progress, StopCheck, count_session
from ctxtui.core.tokens.counts import SessionCounts
from ctxtui.core.tokens.tokenizers import Tokenizer, resolve


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
            on_progress=on_progress,
            should_stop=should_stop,
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
