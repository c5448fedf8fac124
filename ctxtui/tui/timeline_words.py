"""The timeline view's words, fitted to a width: its title and a request's events.

Plain functions of the replay (no widget), so what the title says at each width is tested
without a terminal.
"""

from __future__ import annotations

from ctxtui.core.session.models import RecordedCompaction
from ctxtui.core.simulation.replay import Replay, Request
from ctxtui.core.tuning.observed import observe, observed_phrase
from ctxtui.core.wording import plural


def event_words(request: Request) -> str:
    """``compaction (proactive), recorded compaction (auto)``; empty when nothing happened. A
    reason that only repeats the event (an overflow's) is not said twice."""
    words = []
    for e in request.events:
        kind = e.kind.value.replace("_", " ")
        words.append(f"{kind} ({e.reason})" if e.reason and e.reason != kind else kind)
    return ", ".join(words)


def timeline_title(label: str, replay: Replay, preset: str, width: int) -> str:
    """The session, then how often the policy would compact against how often the agent did,
    and the peak prompt; in shorter words when narrow, the figures before the file's name."""
    sim, rec = len(replay.compactions), len(replay.recorded)
    tail = [
        f"peak {replay.peak_tokens:,}",
        f"preset {preset}",
        f"tokenizer {replay.counts.tokenizer.used}",
        f"window {replay.policy.context_window:,}",
    ]
    variants = (
        [plural(len(replay), "request"), f"{sim:,} simulated, {rec:,} recorded compactions"],
        [plural(len(replay), "request"), f"compactions {sim:,} sim, {rec:,} rec"],
        [f"{len(replay):,} req", f"C {sim:,} R {rec:,}"],
    )
    for words in variants:
        text = " · ".join([f"Timeline · {label}", *words, *tail])
        if len(text) <= width:
            return text
    return " · ".join(["Timeline", *variants[-1], tail[0], label, *tail[1:]])


def observed_band(replay: Replay) -> str | None:
    """``agent compacted at 28,199–28,452 (3 auto)``: the trigger the agent was seen to use,
    from its recorded compactions (``core.tuning.observed``'s words), for the legend beside
    the ``R`` marks; ``None`` without an automatic one."""
    recorded = [
        RecordedCompaction(
            message_index=r.message_index, trigger=r.trigger, pre_tokens=r.pre_tokens
        )
        for r in replay.recorded
    ]
    return observed_phrase(observe(recorded, replay.policy))
