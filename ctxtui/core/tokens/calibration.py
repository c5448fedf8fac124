"""Calibration: how far each tokenizer's count of a request is from the figure the API reported.

A request's reported prompt is the agent's live context: system prompt and tools (mostly
absent from transcripts), then the history since its last compaction. A tokenizer's count of
that history against the figure is its error; a least-squares line ``reported = chars / c +
offset`` gives the session's characters per token and what the transcript does not show.
"""

from __future__ import annotations

import statistics
from bisect import bisect_left, bisect_right
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import accumulate

from ctxtui.core.session.formats import known_format
from ctxtui.core.session.models import Message, Session
from ctxtui.core.tokens.counts import SessionCounts
from ctxtui.core.wording import plural

MIN_FIT_SAMPLES = 5
"""Fewer reported requests than this fit a line through noise: no figure is claimed."""

PLAUSIBLE_CHARS_PER_TOKEN = (2.0, 6.0)
"""Every tokenizer in use reads prose and code at 2 to 6 characters a token; a fit outside
says the transcript is not what was sent (outputs cut or added by the harness, parts left
out), not that the model's tokenizer is strange."""


def output_cap(format: str | None) -> tuple[int, frozenset[str]] | None:
    """The harness's cap on tool outputs for a transcript ``format``, if it has one (its
    row's ``output_cap``): the fit counts what was sent, so one huge output in the transcript
    does not bend the line."""
    info = known_format(format)
    return None if info is None else info.output_cap


def content_chars(message: Message, cap: tuple[int, frozenset[str]] | None = None) -> int:
    """Characters the model read in a message (text, reasoning, tool arguments and outputs),
    no overhead (the fit's offset and slope absorb it), a capped tool's output cut to ``cap``."""
    text = len(message.content)
    if cap is not None and message.role == "tool" and message.tool_name in cap[1]:
        text = min(text, cap[0])
    return text + len(message.reasoning) + sum(len(call.arguments) for call in message.tool_calls)


def live_starts(session: Session, points: Sequence[int]) -> list[int]:
    """For each request point, where the agent's live context began: its last recorded
    compaction's message, or 0."""
    marks = sorted(c.message_index for c in session.meta.recorded_compactions)
    out: list[int] = []
    for p in points:
        i = bisect_right(marks, p)
        out.append(marks[i - 1] if i else 0)
    return out


@dataclass(frozen=True, slots=True)
class TokenizerError:
    """One tokenizer against the reported figures: typical size and direction of its error."""

    tokenizer: str
    median_abs_error: float  # tokens
    bias: float  # median of estimate / reported − 1: negative means it undercounts


@dataclass(frozen=True, slots=True)
class Fit:
    """``reported ≈ chars / chars_per_token + offset_tokens``; ``None`` when it cannot be fitted."""

    chars_per_token: float | None
    offset_tokens: float | None


def fit_problem(samples: int, fit: Fit) -> str:
    """Why ``fit`` over ``samples`` requests is not to be believed; ``""`` when it is."""
    if samples < MIN_FIT_SAMPLES:
        noun = "request has" if samples == 1 else "requests have"
        return f"only {samples:,} {noun} reported usage; a fit needs {MIN_FIT_SAMPLES}"
    if fit.chars_per_token is None or fit.offset_tokens is None:
        requests = plural(samples, "request")
        return f"the reported prompts of {requests} do not grow with the transcript"
    low, high = PLAUSIBLE_CHARS_PER_TOKEN
    if not low <= fit.chars_per_token <= high:
        return (
            f"the fit over {samples:,} requests reads {fit.chars_per_token:.1f} chars/token, "
            f"outside {low:g}–{high:g}: the transcript is not what was sent"
        )
    if fit.offset_tokens < 0:
        return (
            f"the fit over {samples:,} requests has a negative offset "
            f"({fit.offset_tokens:,.0f} tokens): the transcript holds more than was sent"
        )
    return ""


@dataclass(frozen=True, slots=True)
class SessionFit:
    """The line fitted over every reported request of a transcript, and whether to believe it;
    ``first_request`` is how many requests precede the session (``None``: unknown)."""

    samples: int
    fit: Fit
    first_request: int | None = 0

    @property
    def problem(self) -> str:
        return fit_problem(self.samples, self.fit)

    @property
    def plausible(self) -> bool:
        return not self.problem

    def as_json(self) -> dict[str, object]:
        return {
            "samples": self.samples,
            "fitted_chars_per_token": self.fit.chars_per_token,
            "offset_tokens": self.fit.offset_tokens,
            "plausible": self.plausible,
            "reason": self.problem or None,
        }


def reported_samples(session: Session, points: Sequence[int]) -> list[tuple[int, int, int]]:
    """``(live start, request point, reported prompt)`` of each request with a prompt total."""
    picked: list[tuple[int, int, int]] = []
    for start, p in zip(live_starts(session, points), points, strict=True):
        usage = session.messages[p].usage
        if usage is not None and usage.prompt_total is not None and usage.prompt_total > 0:
            picked.append((start, p, usage.prompt_total))
    return picked


def tail_start(session: Session) -> tuple[object, ...] | None:
    """Where a session read from the agent's last compaction starts, or ``None`` for a whole
    transcript. Two reads with the same start number their requests from the same one."""
    meta = session.meta
    if meta.full_history or not meta.recorded_compactions:
        return None
    return (meta.hidden_messages, meta.recorded_compactions)


def session_fit(session: Session, first_request: int | None = None) -> SessionFit:
    """The fit over every reported request of ``session`` (characters only: no tokenizer);
    ``first_request`` defaults to 0, or ``None`` for a session read from its last compaction."""
    hidden = bool(session.meta.recorded_compactions) and not session.meta.full_history
    if first_request is None and not hidden:
        first_request = 0
    picked = reported_samples(session, session.index.requests)
    cap = output_cap(session.meta.format)
    chars_prefix = [0, *accumulate(content_chars(m, cap) for m in session.messages)]
    chars = [chars_prefix[p] - chars_prefix[s] for s, p, _ in picked]
    fit = fit_line(chars, [r for _, _, r in picked])
    return SessionFit(len(picked), fit, first_request)


def ends_with(history: Session, shown: Session) -> bool:
    """Whether ``shown`` (a transcript as normally read) is the tail of ``history`` (the same
    transcript read through the agent's own compactions): both read up to the same line."""
    offset = len(history.messages) - len(shown.messages)
    return offset >= 0 and history.messages[offset:] == shown.messages


def history_fit(history: Session, shown: Session) -> SessionFit:
    """The fit over ``history`` (the transcript read through the agent's own compactions),
    numbered for ``shown`` (its tail, as normally read); ``shown``'s own fit when it is not."""
    if not ends_with(history, shown):
        return session_fit(shown)
    first = bisect_left(history.index.requests, len(history.messages) - len(shown.messages))
    return session_fit(history, first)


@dataclass(frozen=True, slots=True)
class Calibration:
    """Every tokenizer's error on the requests with reported usage, and the fitted line."""

    samples: int
    errors: tuple[TokenizerError, ...]
    fit: Fit

    @property
    def problem(self) -> str:
        """Why the fitted line is not to be believed (``fit_problem``); ``""`` when it is."""
        return fit_problem(self.samples, self.fit)

    def sentence(self, offset: bool = True) -> str:
        """One line, e.g. "the plan estimator undercounts this session by 31 %; ...".

        ``offset=False`` leaves the fitted offset out: where the last request's gap is split
        (``ReportedGap``) that split is the one figure for what the transcript lacks."""
        if not self.samples:
            return "no reported usage in this transcript: nothing to calibrate against"
        parts = []
        for i, err in enumerate(self.errors):
            # Every clause says its own direction ("cl100k by 9 %" left the reader guessing),
            # and an error that rounds to 0 % is not called an overcount.
            name = _label(err.tokenizer) if i == 0 else _short(err.tokenizer)
            where = " this session" if i == 0 else ""
            percent = round(abs(err.bias) * 100)
            if percent == 0:
                parts.append(f"{name} is within 1%{' on' + where if where else ''}")
            else:
                verb = "undercounts" if err.bias < 0 else "overcounts"
                parts.append(f"{name} {verb}{where} by {percent}%")
        text = "; ".join(parts)
        fit = self.fit
        if self.problem and fit.chars_per_token is not None:
            text += f"; no split: {self.problem}"
        elif fit.chars_per_token is not None and fit.offset_tokens is not None and not offset:
            text += f"; fitted {fit.chars_per_token:.1f} chars/token"
        elif fit.chars_per_token is not None and fit.offset_tokens is not None:
            text += (
                f"; fitted {fit.chars_per_token:.1f} chars/token "
                f"+ {fit.offset_tokens:,.0f} tokens not in the transcript"
            )
        noun = "request" if self.samples == 1 else "requests"
        return f"{text} ({self.samples:,} {noun} with reported usage)"


def _label(spec: str) -> str:
    if spec == "plan":
        return "the plan estimator"
    if spec == "picoclaw":
        return "PicoClaw's estimator"
    return _short(spec)


def _short(spec: str) -> str:
    if spec.startswith("tiktoken:"):
        return spec.removeprefix("tiktoken:").removesuffix("_base")
    return spec


def fit_line(chars: Sequence[int], reported: Sequence[int]) -> Fit:
    """Least squares ``reported = a · chars + b`` → ``Fit(1 / a, b)``, or nothing without
    ``MIN_FIT_SAMPLES`` requests of two sizes and a positive slope."""
    n = len(chars)
    if n < MIN_FIT_SAMPLES or n != len(reported):
        return Fit(None, None)
    mx = sum(chars) / n
    my = sum(reported) / n
    sxx = sum((x - mx) ** 2 for x in chars)
    if sxx <= 0:
        return Fit(None, None)
    sxy = sum((x - mx) * (y - my) for x, y in zip(chars, reported, strict=True))
    slope = sxy / sxx
    if slope <= 0:
        return Fit(None, None)
    return Fit(1 / slope, my - slope * mx)


def tokenizer_error(name: str, estimates: Sequence[int], reported: Sequence[int]) -> TokenizerError:
    """Median absolute error (tokens) and median relative bias of ``estimates``."""
    pairs = [(e, r) for e, r in zip(estimates, reported, strict=True) if r > 0]
    if not pairs:
        return TokenizerError(name, 0.0, 0.0)
    return TokenizerError(
        tokenizer=name,
        median_abs_error=float(statistics.median(abs(e - r) for e, r in pairs)),
        bias=float(statistics.median(e / r - 1 for e, r in pairs)),
    )


def calibrate(
    session: Session,
    points: Sequence[int],
    counts: Mapping[str, SessionCounts],
    fit: Fit | None = None,
) -> Calibration:
    """Calibrate each tokenizer in ``counts`` (first one first) on the reported requests: an
    estimate is its system prompt and tools plus the live context's messages. ``fit`` is the
    line already fitted over the same requests (``session_fit``), not fitted again."""
    picked = reported_samples(session, points)  # (start, stop, reported)
    reported = [r for _, _, r in picked]
    errors = []
    for name, c in counts.items():
        fixed = c.system_tokens + c.tool_def_tokens + c.summary_tokens
        estimates = [fixed + c.prefix[p] - c.prefix[s] for s, p, _ in picked]
        errors.append(tokenizer_error(name, estimates, reported))
    if fit is None:
        cap = output_cap(session.meta.format)
        chars_prefix = [0, *accumulate(content_chars(m, cap) for m in session.messages)]
        fit = fit_line([chars_prefix[p] - chars_prefix[s] for s, p, _ in picked], reported)
    return Calibration(len(picked), tuple(errors), fit)
