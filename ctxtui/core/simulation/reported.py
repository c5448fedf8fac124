"""The API's own count of the last request beside ctxtui's, and the gap split in two.

The provider's count includes what transcripts often lack (system prompt, tool definitions),
so even an exact tokenizer counts less. From the line fitted over every reported request
(``SessionFit``), ``ReportedGap`` splits the gap into what the transcript lacks (the fitted
offset) and the estimator's error (the rest), or says why the fit is not to be believed.
``ReportedGap.lines`` words it, longest first, for every shell.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ctxtui.core.planning.plan import Plan
from ctxtui.core.session.models import Session, Usage
from ctxtui.core.tokens.calibration import SessionFit, live_starts, session_fit
from ctxtui.core.tokens.counts import SessionCounts


@dataclass(frozen=True, slots=True)
class LastReported:
    """The last request the transcript has usage for (``request`` numbers the calls from 0)."""

    request: int
    message_index: int
    usage: Usage
    prompt_tokens: int


def last_reported(session: Session) -> LastReported | None:
    """The last request whose assistant message carries a prompt total, or ``None``."""
    points = session.index.requests
    for k in range(len(points) - 1, -1, -1):
        usage = session.messages[points[k]].usage
        if usage is not None and usage.prompt_total is not None:
            return LastReported(k, points[k], usage, usage.prompt_total)
    return None


def foreign_tokenizer(tokenizer: str, model: str | None) -> bool:
    """Whether an OpenAI encoding counts a Claude model's session (an approximation)."""
    return tokenizer.startswith("tiktoken:") and "claude" in (model or "").lower()


def _short(tokenizer: str) -> str:
    return tokenizer.removeprefix("tiktoken:").removesuffix("_base")


@dataclass(frozen=True, slots=True)
class ReportedGap:
    """The reported prompt of one request, ctxtui's count of the same prompt, and why they
    differ. ``request`` numbers the transcript's calls from 0 (its first call, before any
    compaction of the agent's own), as ``replay`` and the timeline do."""

    request: int
    reported: int
    estimated: int  # system + tools + out-of-band summary + the live history before the request
    tokenizer: str
    missing: tuple[str, ...]  # "system prompt", "tool definitions": absent from the transcript
    foreign: bool  # an OpenAI encoding counting a Claude session
    fixed: int = 0  # what ``estimated`` counted outside the messages (system, tools, summary)
    fit: SessionFit | None = None
    # Numbered from the agent's last recorded compaction: the requests before it are unknown.
    since_compaction: bool = False
    window: int | None = None  # the window the figures are set against

    @property
    def over_window(self) -> bool:
        """The API took a prompt larger than this window: the agent ran with a larger one."""
        return self.window is not None and self.reported > self.window

    @property
    def gap(self) -> int:
        return self.reported - self.estimated

    @property
    def lacks(self) -> int | None:
        """Tokens the transcript does not hold (the fitted offset less what ctxtui counted
        outside the messages); ``None`` without a fit to believe."""
        fit = self.fit
        if fit is None or not fit.plausible or fit.fit.offset_tokens is None:
            return None
        return max(0, round(fit.fit.offset_tokens) - self.fixed)

    @property
    def estimator_error(self) -> int | None:
        """The rest of the gap: the estimator's error on what the transcript does hold."""
        lacks = self.lacks
        return None if lacks is None else self.gap - lacks

    def reason(self, short: bool = False) -> str:
        """Why the figures differ without a fit, in a clause (``short`` for a narrow gauge)."""
        ratio = abs(self.gap) / self.reported if self.reported else 0.0
        if self.gap > 0 and self.missing and short:
            both = len(self.missing) == 2
            text = f"{'system/tools' if both else self.missing[0]} not in transcript"
        elif self.gap > 0 and self.missing:
            verb = "is" if self.missing == ("system prompt",) else "are"
            text = f"{' and '.join(self.missing)} {verb} not in the transcript"
        elif short:
            text = f"estimator {'under' if self.gap > 0 else 'over'} by {ratio:.0%}"
        else:
            way = "undercounts" if self.gap > 0 else "overcounts"
            text = f"estimator error: {self.tokenizer} {way} by {ratio:.0%}"
        return text + self._foreign(short)

    def _foreign(self, short: bool) -> str:
        if not self.foreign:
            return ""
        name = _short(self.tokenizer)
        return f"; {name} ≠ Claude" if short else f"; {name} is not Claude's tokenizer"

    def _split(self, size: int) -> str:
        """The gap's two parts (``size`` 0 long, 1 medium, 2 short), or why it is not split."""
        lacks, error, fit = self.lacks, self.estimator_error, self.fit
        if lacks is not None and error is not None and fit is not None:
            what = " and ".join(self.missing) or "framing the transcript does not show"
            cpt = fit.fit.chars_per_token or 0.0
            if size == 0:
                return (
                    f": {lacks:,} the transcript lacks ({what}; the fitted offset) and "
                    f"{error:+,} the estimator's error (the session reads {cpt:.1f} "
                    f"chars/token over {fit.samples:,} requests){self._foreign(False)}"
                )
            if size == 1:
                return f" = {lacks:,} not in transcript {error:+,} estimator{self._foreign(True)}"
            return f" = {lacks:,} missing {error:+,} estimator"
        why = f"; not split: {fit.problem}" if fit is not None and fit.problem else ""
        if size == 0:
            return f": {self.reason()}{why}"
        if size == 1:
            flag = "; fit implausible" if why else ""
            return f": {self.reason(short=True)}{flag}"
        return f": {self.reason(short=True)}"

    def lines(self) -> tuple[str, ...]:
        """The gap in one line, longest first; every shell shows one of them, the same figures
        in each: reported, counted, gap, and its two parts (or why they are not given)."""
        n = f"{self.request + 1:,}"
        since = " since the last compaction" if self.since_compaction else ""
        r, e, g = f"{self.reported:,}", f"{self.estimated:,}", f"{self.gap:+,}"
        tok = _short(self.tokenizer)
        over, brief = "", ""
        if self.over_window and self.window is not None:
            over = (
                f"; the API took more than this {self.window:,}-token window, "
                "so the agent ran with a larger one"
            )
            brief = " · over this window: the agent's was larger"
        return (
            f"API reported {r} prompt tok at request {n}{since}; ctxtui counted {e} "
            f"with {tok} ({g}){self._split(0)}{over}",
            f"API reported {r} at request {n}{since} · counted {e} · {g}{self._split(1)}{brief}",
            # over the window, why it could be comes before the split
            f"API {r} at request {n} · counted {e} · {g}{brief or self._split(1)}",
            f"API {r} · counted {e} · {g}{self._split(2)}",
        )

    def sentence(self) -> str:
        """The longest line: what ``report`` and ``replay`` print."""
        return self.lines()[0]

    def line_for(self, width: int) -> str:
        """The longest of ``lines`` within ``width`` cells, else the shortest (to be cut)."""
        lines = self.lines()
        return next((line for line in lines if len(line) <= width), lines[-1])

    def as_json(self) -> dict[str, Any]:
        return {
            "request": self.request,
            "since_compaction": self.since_compaction,
            "reported_tokens": self.reported,
            "counted_tokens": self.estimated,
            "tokenizer": self.tokenizer,
            "gap_tokens": self.gap,
            "missing": list(self.missing),
            "lacks_tokens": self.lacks,
            "estimator_error_tokens": self.estimator_error,
            "over_window": self.over_window,
            "sentence": self.sentence(),
        }


@dataclass(frozen=True, slots=True)
class PromptCount:
    """ctxtui's count of a session's prompt: per message, what is sent outside the messages
    (system, tools, out-of-band summary), and the tokenizer that counted."""

    message_tokens: Sequence[int]
    fixed: int
    tokenizer: str

    @classmethod
    def of_counts(cls, counts: SessionCounts) -> PromptCount:
        fixed = counts.system_tokens + counts.tool_def_tokens + counts.summary_tokens
        return cls(counts.message_tokens, fixed, counts.tokenizer.used)

    @classmethod
    def of_plan(cls, plan: Plan) -> PromptCount:
        t = plan.totals
        return cls(plan.message_tokens, t.system + t.tool_defs + t.summary, plan.tokenizer.used)


def gap_of(
    session: Session,
    count: PromptCount,
    fit: SessionFit | None = None,
    window: int | None = None,
) -> ReportedGap | None:
    """The last reported request of ``session`` against ``count`` of it; ``None`` without
    usage. Without ``fit`` the line is fitted over ``session`` itself."""
    last = last_reported(session)
    if last is None:
        return None
    if fit is None:
        fit = session_fit(session)
    start = live_starts(session, [last.message_index])[0]
    history = sum(count.message_tokens[start : last.message_index])
    fixed, tokenizer = count.fixed, count.tokenizer
    missing = tuple(
        name
        for name, present in (
            ("system prompt", bool(session.system_prompt)),
            ("tool definitions", bool(session.tools)),
        )
        if not present
    )
    hidden = bool(session.meta.recorded_compactions) and not session.meta.full_history
    return ReportedGap(
        # a whole transcript numbers its own requests; its tail counts on from the fit's first
        request=last.request + (fit.first_request or 0 if hidden else 0),
        reported=last.prompt_tokens,
        estimated=fixed + history,
        tokenizer=tokenizer,
        missing=missing,
        foreign=foreign_tokenizer(tokenizer, session.meta.model),
        fixed=fixed,
        fit=fit,
        since_compaction=hidden and fit.first_request is None,
        window=window,
    )


def reported_gap(session: Session, plan: Plan, fit: SessionFit | None = None) -> ReportedGap | None:
    """The last reported request against ``plan``'s counts of it; ``None`` without usage."""
    return gap_of(session, PromptCount.of_plan(plan), fit, plan.totals.window)
