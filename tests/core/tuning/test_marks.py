"""The named points of a tune: the candidate nearest the observed band is "observed" only
when its trigger lies in the band; elsewhere it is "near observed", never taken for the
trigger the agent was seen to use, and nothing when the band lies beyond every candidate."""

from __future__ import annotations

from typing import Any

from ctxtui.core.tuning.document import marks_of
from ctxtui.core.tuning.figure import GLYPHS


def _doc(triggers: list[int], low: int, high: int, nearest: int) -> dict[str, Any]:
    return {
        "candidates": [{"trigger": t} for t in triggers],
        "recommended": 0,
        "configured_candidate": None,
        "observed": {"auto": {"count": 3, "low": low, "high": high, "window": None}},
        "observed_candidate": nearest,
    }


def test_a_candidate_in_the_band_is_the_observed_point() -> None:
    doc = _doc([100_000, 112_500, 125_000], 112_400, 115_107, 1)
    assert marks_of(doc, 1) == ["observed"]
    assert marks_of(doc, 0) == ["recommended"]


def test_the_nearest_candidate_outside_the_band_is_near_observed() -> None:
    """Codex at 30 MB: the grid's 108,800 was marked observed against a band of
    112,400-115,107."""
    doc = _doc([108_800, 122_400], 112_400, 115_107, 0)
    assert marks_of(doc, 0) == ["recommended", "near observed"]
    assert {GLYPHS[m] for m in ("observed", "near observed")} == {"O"}


def test_without_a_band_nothing_is_observed() -> None:
    doc = _doc([108_800], 0, 0, 0)
    doc["observed"] = {"auto": {"count": 0, "low": None, "high": None, "window": None}}
    doc["observed_candidate"] = None
    assert marks_of(doc, 0) == ["recommended"]


def test_a_band_beyond_every_candidate_marks_none_observed() -> None:
    """The Claude Code replay sample compacts at 28,199-28,452 and the grid starts at
    72,000: the grid's end is no point near what the agent did."""
    doc = _doc([72_000, 90_000, 108_000], 28_199, 28_452, 0)
    assert marks_of(doc, 0) == ["recommended"]
    doc = _doc([72_000, 90_000, 108_000], 150_000, 155_000, 2)
    assert marks_of(doc, 2) == []


def test_candidates_that_all_score_alike_are_said_to_tie() -> None:
    """On the replay sample nothing compacts under any candidate: every row is the same,
    and the recommendation is one of equals, said so rather than offered as the best."""
    from ctxtui.core.tuning.document import TIE, tie_line

    same = {"cost_usd": 3.9353, "compactions": 0, "overflows": 0, "lost_needed": 0}
    doc = {"candidates": [{**same, "sessions": 1} for _ in range(10)]}
    assert tie_line(doc) == TIE
    doc["candidates"][3] = {**same, "compactions": 1, "sessions": 1}
    assert tie_line(doc) is None
    assert tie_line({"candidates": [{**same, "sessions": 1}]}) is None, "one is no tie"
