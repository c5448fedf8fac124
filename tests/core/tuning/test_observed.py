"""The trigger an agent was seen to use, fitted from crafted transcripts with a planted band."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from ctxtui.core.policies.policy import preset
from ctxtui.core.session.models import RecordedCompaction
from ctxtui.core.tuning.configured import Configured
from ctxtui.core.tuning.observed import (
    agreement,
    disagreement,
    observe,
    observed_line,
    observed_phrase,
)
from ctxtui.importers import load_session

PLANTED = [155_001, 157_400, 159_897, 156_250, 158_000]
MANUAL = [36_474, 90_000]


def _entry(uuid: str, parent: str | None, kind: str, **extra: Any) -> dict[str, Any]:
    return {"type": kind, "uuid": uuid, "parentUuid": parent, "sessionId": "s", **extra}


def planted_transcript(path: Path, auto: list[int], manual: list[int]) -> Path:
    """A Claude Code transcript: a turn, then a compaction boundary per size (automatic ones
    first, then manual), each followed by its summary and a new question."""
    lines: list[dict[str, Any]] = []
    parent: str | None = None
    sizes = [(n, "auto") for n in auto] + [(n, "manual") for n in manual]
    for k, (size, trigger) in enumerate(sizes):
        lines.append(_entry(f"u{k}", parent, "user", message={"role": "user", "content": "q"}))
        answer = {"id": f"m{k}", "role": "assistant", "model": "claude-sonnet-4-5"}
        answer["content"] = [{"type": "text", "text": "a"}]
        lines.append(_entry(f"a{k}", f"u{k}", "assistant", message=answer))
        lines.append(
            _entry(
                f"b{k}", None, "system", subtype="compact_boundary", logicalParentUuid=f"a{k}",
                compactMetadata={"trigger": trigger, "preTokens": size},
            )
        )  # fmt: skip
        summary = {"role": "user", "content": "This session is being continued..."}
        lines.append(_entry(f"s{k}", f"b{k}", "user", message=summary, isCompactSummary=True))
        parent = f"s{k}"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    return path


def test_a_planted_band_is_found_and_manual_compactions_are_not_fitted(tmp_path: Path) -> None:
    path = planted_transcript(tmp_path / "s.jsonl", PLANTED, MANUAL)
    history = load_session(str(path), full_history=True)
    observed = observe(history.meta.recorded_compactions, preset("claude-code"))
    assert (observed.count, observed.low, observed.high) == (5, 155_001, 159_897)
    assert observed.manual == (36_474, 90_000)
    # claude-code: trigger = window − min(out, 20,000) − 13,000 → window = 155,001 + 33,000
    assert observed.window == 188_001
    assert observed.as_json() == {
        "auto": {"count": 5, "low": 155_001, "high": 159_897, "window": 188_001},
        "manual": [36_474, 90_000],
    }
    line = observed_line(observed.as_json()["auto"], observed.manual)
    assert line is not None and "5 automatic compactions at 155,001–159,897" in line
    assert "2 manual at 36,474, 90,000 (not fitted)" in line


def test_an_override_the_band_ignores_is_named() -> None:
    recorded = [RecordedCompaction(message_index=i, trigger="auto", pre_tokens=n)
                for i, n in enumerate(PLANTED)]  # fmt: skip
    configured = (Configured("trigger_buffer", 72_000, "env", label="60 %"),)
    policy = preset("claude-code", trigger_buffer=72_000)
    words = agreement(observe(recorded, preset("claude-code")), policy, configured)
    assert words == (
        "configured 60 % = 108,000; observed 155,001–159,897 over 5 automatic compactions: "
        "the override was not honoured"
    )
    honoured = preset("claude-code", trigger_buffer=72_000 - 47_000)
    assert agreement(observe(recorded, honoured), honoured, configured) == (
        "configured 60 % = 155,000; observed 155,001–159,897 over 5 automatic compactions: "
        "they agree"
    )


def test_without_configured_values_the_preset_is_compared() -> None:
    recorded = [RecordedCompaction(message_index=0, trigger="auto", pre_tokens=155_001)]
    words = agreement(observe(recorded, preset("claude-code")), preset("claude-code"))
    assert words is not None and words.startswith("preset claude-code triggers at 167,000")
    assert words.endswith("the agent compacted below the preset's trigger (its window or "
                          "reserve differ)")  # fmt: skip
    manual_only = [RecordedCompaction(message_index=0, trigger="manual", pre_tokens=5)]
    assert agreement(observe(manual_only, preset("claude-code")), preset("claude-code")) is None


def test_the_short_phrase_and_the_verdict_come_from_the_same_rule() -> None:
    """The session bar's and the timeline's phrase, and ``agreement``'s verdict alone, only
    where the band and the trigger in force disagree."""
    recorded = [RecordedCompaction(message_index=i, trigger="auto", pre_tokens=n)
                for i, n in enumerate(PLANTED)]  # fmt: skip
    recorded.append(RecordedCompaction(message_index=9, trigger="manual", pre_tokens=5))
    observed = observe(recorded, preset("claude-code"))
    assert observed_phrase(observed) == "agent compacted at 155,001–159,897 (5 auto)"
    configured = (Configured("trigger_buffer", 72_000, "env", label="60 %"),)
    policy = preset("claude-code", trigger_buffer=72_000)
    assert disagreement(observed, policy, configured) == "the override was not honoured"
    sentence = agreement(observed, policy, configured)
    assert sentence is not None and sentence.endswith("the override was not honoured")
    honoured = preset("claude-code", trigger_buffer=72_000 - 47_000)
    assert disagreement(observed, honoured, configured) is None
    manual = observe(recorded[-1:], preset("claude-code"))
    assert observed_phrase(manual) is None
    assert disagreement(manual, preset("claude-code")) is None


@given(st.lists(st.integers(1_000, 900_000), min_size=1, max_size=20))
def test_the_implied_window_triggers_at_the_band(sizes: list[int]) -> None:
    """Under the implied window the preset's rule triggers exactly at the lowest automatic
    size; one token less of window triggers below it."""
    recorded = [RecordedCompaction(message_index=0, trigger="auto", pre_tokens=n) for n in sizes]
    for name in ("claude-code", "codex", "plan"):
        policy = preset(name)
        observed = observe(recorded, policy)
        assert observed.window is not None
        at = policy.with_changes(context_window=observed.window)
        assert at.trigger_threshold == min(sizes)
        lower = policy.with_changes(context_window=observed.window - 1)
        assert lower.trigger_threshold < min(sizes)
