"""The API's own count of the last request beside ctxtui's, and why the two differ.

A transcript with usage says how many prompt tokens the provider counted for each request.
That figure includes what the transcript often lacks (Claude Code and Codex write neither the
system prompt nor the tool definitions), so a tokenizer's count of the same request is lower
even when the tokenizer is exact. ``ReportedGap`` puts the two side by side for the last
request with usage and says which of the two reasons applies: parts missing from the
transcript, or the estimator's own error (and that an OpenAI encoding is not Claude's).
"""

from __future__ import annotations

from dataclasses import dataclass

from ctxtui.core.models import Session, Usage
from ctxtui.core.plan import Plan


@dataclass(frozen=True, slots=True)
class LastReported:
    """The last request the transcript has usage for (``request`` numbers the calls from 0)."""

    request: int
    message_index: int
    usage: Usage
    prompt_tokens: int


def last_reported(session: Session) -> LastReported | None:
    """The last request whose assistant message carries a prompt total, or ``None``."""
    from ctxtui.core.replay import request_points

    points = request_points(session)
    for k in range(len(points) - 1, -1, -1):
        usage = session.messages[points[k]].usage
        if usage is not None and usage.prompt_total is not None:
            return LastReported(k, points[k], usage, usage.prompt_total)
    return None


def foreign_tokenizer(tokenizer: str, model: str | None) -> bool:
    """Whether an OpenAI encoding counts a Claude model's session (an approximation)."""
    return tokenizer.startswith("tiktoken:") and "claude" in (model or "").lower()


@dataclass(frozen=True, slots=True)
class ReportedGap:
    """The reported prompt of one request and the plan's tokenizer's count of the same prompt."""

    request: int
    reported: int
    estimated: int  # system + tools + out-of-band summary + the history before the request
    tokenizer: str
    missing: tuple[str, ...]  # "system prompt", "tool definitions": absent from the transcript
    foreign: bool  # an OpenAI encoding counting a Claude session
    # The session was read from the agent's last recorded compaction on, so ``request``
    # counts from there, while the timeline (the full history) counts from the file's start.
    since_compaction: bool = False

    @property
    def gap(self) -> int:
        return self.reported - self.estimated

    def reason(self, short: bool = False) -> str:
        """Why the figures differ, in a clause (``short`` for a narrow gauge)."""
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
        if self.foreign:
            name = self.tokenizer.removeprefix("tiktoken:").removesuffix("_base")
            text += f"; {name} is not Claude's tokenizer" if not short else f"; {name} ≠ Claude"
        return text


def reported_gap(session: Session, plan: Plan) -> ReportedGap | None:
    """The last reported request against ``plan``'s counts of it; ``None`` without usage."""
    last = last_reported(session)
    if last is None:
        return None
    t = plan.totals
    history = sum(plan.message_tokens[: last.message_index])
    missing = tuple(
        name
        for name, present in (
            ("system prompt", bool(session.system_prompt)),
            ("tool definitions", bool(session.tools)),
        )
        if not present
    )
    tokenizer = plan.tokenizer.used
    return ReportedGap(
        request=last.request,
        reported=last.prompt_tokens,
        estimated=t.system + t.tool_defs + t.summary + history,
        tokenizer=tokenizer,
        missing=missing,
        foreign=foreign_tokenizer(tokenizer, session.meta.model),
        since_compaction=bool(session.meta.recorded_compactions) and not session.meta.full_history,
    )
