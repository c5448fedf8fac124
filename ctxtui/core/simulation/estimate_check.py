"""How far the estimator is from an exact count of the same session, said in one sentence.

The estimators are fast and what agents use, but text unlike prose (a minified line, CJK)
fools them. Given both counts of a session, this compares them over the whole prompt and says
so when the estimate is off by more than a tenth. Nothing here counts: the caller hands in
counts it already has.
"""

from __future__ import annotations

from dataclasses import dataclass

from ctxtui.core.policies.policy import Policy
from ctxtui.core.policies.presets import PRESETS
from ctxtui.core.tokens.counts import SessionCounts

DRIFT_NUMERATOR, DRIFT_DENOMINATOR = 1, 10
"""An estimate within 1/10 of the exact count is close enough to leave unsaid."""

_EXACT_PREFIX = "tiktoken:"
_ESTIMATOR_NAMES = {"plan": "the plan estimator", "picoclaw": "PicoClaw's estimator"}


def is_exact(spec: str) -> bool:
    """Whether a tokenizer spec is a real tokenizer rather than an estimator."""
    return spec.startswith(_EXACT_PREFIX)


def estimator_for(policy: Policy) -> str:
    """The estimator to judge: the preset's own tokenizer, or the plan's if that is exact."""
    row = PRESETS.get(policy.preset)
    spec = str(row.knobs.get("tokenizer", "plan") if row else "plan")
    return "plan" if is_exact(spec) else spec


def prompt_tokens(counts: SessionCounts) -> int:
    """The whole session as one request would carry it, before any planning."""
    return (
        counts.history_tokens
        + counts.system_tokens
        + counts.tool_def_tokens
        + counts.summary_tokens
    )


@dataclass(frozen=True, slots=True)
class EstimateDrift:
    """An estimator's count of a session against an exact tokenizer's."""

    estimator: str  # the spec that estimated (plan, picoclaw, ...)
    exact: str  # the spec that counted (tiktoken:cl100k_base, ...)
    estimated_tokens: int
    exact_tokens: int

    @property
    def error(self) -> float:
        """``estimated / exact − 1``: negative when the estimator undercounts."""
        return self.estimated_tokens / self.exact_tokens - 1 if self.exact_tokens else 0.0

    @property
    def differs(self) -> bool:
        """Off by more than ``DRIFT_THRESHOLD``, compared in integers (no 0.1 + ε)."""
        gap = abs(self.estimated_tokens - self.exact_tokens)
        return gap * DRIFT_DENOMINATOR > self.exact_tokens * DRIFT_NUMERATOR

    def sentence(self) -> str:
        """E.g. ``the plan estimator undercounts this session by 47% against cl100k_base``."""
        name = _ESTIMATOR_NAMES.get(self.estimator, f"the {self.estimator} estimator")
        way = "undercounts" if self.error < 0 else "overcounts"
        exact = self.exact.removeprefix(_EXACT_PREFIX)
        return (
            f"{name} {way} this session by {abs(self.error):.0%} against {exact} "
            f"({self.estimated_tokens:,} vs {self.exact_tokens:,} tokens)"
        )


def estimate_drift(estimated: SessionCounts, exact: SessionCounts) -> EstimateDrift | None:
    """The drift between two counts of one session; ``None`` when ``exact`` is not exact (a
    fallback is no yardstick), ``estimated`` is, or they cover different sessions."""
    if not is_exact(exact.tokenizer.used) or is_exact(estimated.tokenizer.used):
        return None
    if len(estimated) != len(exact):
        return None
    return EstimateDrift(
        estimator=estimated.tokenizer.used,
        exact=exact.tokenizer.used,
        estimated_tokens=prompt_tokens(estimated),
        exact_tokens=prompt_tokens(exact),
    )


def drift_notice(estimated: SessionCounts, exact: SessionCounts) -> str:
    """The sentence to show, or ``""`` when the estimate is within ``DRIFT_THRESHOLD``."""
    drift = estimate_drift(estimated, exact)
    return drift.sentence() if drift is not None and drift.differs else ""
