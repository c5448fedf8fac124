"""The trigger an agent was seen to use: the band of its automatic compactions' prompt sizes.

Each compaction a transcript recorded says the prompt size the agent had before it (Claude
Code's ``compactMetadata.preTokens``, Codex's last reported usage before its ``compacted``
record). An agent compacts at the first request at or over its trigger, so every automatic
compaction's size is at or a little above the trigger: the band's low end bounds the trigger
from above, and the window the preset's rule would need to trigger there is the window the
band implies. A compaction recorded as ``manual`` (``/compact``) says nothing about the
trigger: it is listed, never fitted. A compaction without a recorded trigger (Codex and
PicoClaw record none) is taken as automatic.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ctxtui.core.policies.policy import Policy
from ctxtui.core.session.models import RecordedCompaction
from ctxtui.core.tuning.configured import Configured
from ctxtui.core.wording import band_words, counted

OVERSHOOT = 0.10
"""How far above a trigger an automatic compaction may sit and still be that trigger's: the
agent checks between requests, so one turn's growth lands above it."""

AGREE = "they agree"
"""The verdict when the band sits at the trigger in force."""

TRIGGER_KNOBS = frozenset(
    {"trigger_buffer", "trigger_input_reserve_cap", "context_window", "max_tokens", "auto_compact"}
)
"""The knobs whose configured values move the trigger."""


@dataclass(frozen=True, slots=True)
class Observed:
    """The automatic compactions' sizes (fitted) and the manual ones' (listed), in order."""

    auto: tuple[int, ...] = ()
    manual: tuple[int, ...] = ()
    window: int | None = None  # the window the band implies under the session's preset

    @property
    def count(self) -> int:
        return len(self.auto)

    @property
    def low(self) -> int | None:
        return min(self.auto) if self.auto else None

    @property
    def high(self) -> int | None:
        return max(self.auto) if self.auto else None

    @property
    def empty(self) -> bool:
        return not self.auto and not self.manual

    def as_json(self) -> dict[str, Any]:
        """``{"auto": {"count", "low", "high", "window"}, "manual": [preTokens, …]}``."""
        return {
            "auto": {
                "count": self.count,
                "low": self.low,
                "high": self.high,
                "window": self.window,
            },
            "manual": list(self.manual),
        }


def observe(recorded: Sequence[RecordedCompaction], policy: Policy) -> Observed:
    """The band of ``recorded``'s automatic compactions (those with a size), and the window
    it implies under ``policy``'s rule."""
    auto = tuple(
        c.pre_tokens for c in recorded if c.pre_tokens is not None and c.trigger != "manual"
    )
    manual = tuple(
        c.pre_tokens for c in recorded if c.pre_tokens is not None and c.trigger == "manual"
    )
    window = implied_window(min(auto), policy) if auto else None
    return Observed(auto, manual, window)


def implied_window(trigger: int, policy: Policy) -> int:
    """The smallest window at which ``policy``'s rule (``floor(window × ratio) − reserve``,
    its other knobs as they are) triggers at or below ``trigger``... rounded to a token."""
    ratio = Fraction(str(policy.compact_trigger_ratio))
    return math.ceil((trigger + policy.trigger_reserve) / ratio)


def agreement(
    observed: Observed, policy: Policy, configured: Sequence[Configured] = ()
) -> str | None:
    """One sentence: the trigger in force (configured, else the preset's) against the band.

    ``configured 60 % = 108,000; observed 155,001–159,897 over 10 automatic compactions: the
    override was not honoured``. ``None`` with no automatic compaction to compare.
    """
    low, high = observed.low, observed.high
    if low is None or high is None:
        return None
    moved = [c for c in configured if c.knob in TRIGGER_KNOBS]
    trigger = policy.trigger
    band = f"observed {low:,}–{high:,} over {counted(observed.count, 'automatic compaction')}"
    if moved:
        label = moved[-1].label or "trigger"
        head = (
            f"configured {label} = {trigger:,}"
            if trigger is not None
            else ("configured: no auto-compaction")
        )
    else:
        head = (
            f"preset {policy.preset} triggers at {trigger:,}"
            if trigger is not None
            else f"preset {policy.preset} never auto-compacts"
        )
    return f"{head}; {band}: {_verdict(trigger, low, bool(moved))}"


def disagreement(
    observed: Observed, policy: Policy, configured: Sequence[Configured] = ()
) -> str | None:
    """``agreement``'s verdict alone when the band and the trigger in force disagree
    (``the override was not honoured``); ``None`` when they agree or nothing was fitted."""
    if observed.low is None:
        return None
    moved = any(c.knob in TRIGGER_KNOBS for c in configured)
    verdict = _verdict(policy.trigger, observed.low, moved)
    return None if verdict == AGREE else verdict


def observed_phrase(observed: Observed, *, so_far: bool = False) -> str | None:
    """``agent compacted at 155,001–159,897 (10 auto)``: the band in a phrase short enough for
    the session bar and the timeline's title; ``None`` without an automatic compaction.
    ``so_far`` (``(1 auto so far)``): the compactions of a read that has not reached the
    whole history yet, which must not read as all of them."""
    if not observed.auto:
        return None
    more = " so far" if so_far else ""
    band = band_words(observed.low, observed.high)
    return f"agent compacted at {band} ({observed.count:,} auto{more})"


def _verdict(trigger: int | None, low: int, configured: bool) -> str:
    what = "the override" if configured else "the preset's trigger"
    if trigger is None:
        return (
            "the agent compacted on its own all the same"
            if configured
            else ("the agent compacted automatically all the same")
        )
    if low < trigger:
        return f"the agent compacted below {what} (its window or reserve differ)"
    if low > trigger * (1 + OVERSHOOT):
        return (
            "the override was not honoured"
            if configured
            else (f"the agent compacted later than {what}")
        )
    return AGREE


def observed_line(auto: Mapping[str, Any], manual: Sequence[int]) -> str | None:
    """``observed: 10 automatic compactions at 155,001–159,897 (a 188,001-token window under
    the preset's rule); 1 manual at 36,474 (not fitted)`` from ``Observed.as_json()``'s
    parts (``None`` when nothing was recorded)."""
    parts = []
    if auto["count"]:
        band = band_words(auto["low"], auto["high"])
        text = f"{counted(auto['count'], 'automatic compaction')} at {band}"
        if auto["window"] is not None:
            text += f" (a {auto['window']:,}-token window under the preset's rule)"
        parts.append(text)
    if manual:
        sizes = ", ".join(f"{n:,}" for n in manual)
        parts.append(f"{len(manual):,} manual at {sizes} (not fitted)")
    return "observed: " + "; ".join(parts) if parts else None


def configured_line(value: Configured) -> str:
    """``configured: trigger_buffer 72,000 from ~/.claude/settings.json env.… (60 % of …)``."""
    shown = getattr(value.value, "value", value.value)
    number = f"{shown:,}" if isinstance(shown, int) and not isinstance(shown, bool) else shown
    note = f" ({value.note})" if value.note else ""
    return f"configured: {value.knob} {number} from {value.origin}{note}"
