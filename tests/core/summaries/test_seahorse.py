"""PicoClaw seahorse as shipped: constants and leaf chunks."""

from __future__ import annotations

from ctxtui.core.summaries import seahorse as sh
from ctxtui.core.summaries.seahorse import Item


def test_constants_are_mains() -> None:
    assert (sh.FRESH_TAIL_COUNT, sh.LEAF_MIN_FANOUT) == (32, 8)
    assert (sh.LEAF_CHUNK_TOKENS, sh.LEAF_TARGET_TOKENS) == (20_000, 1_200)


def test_targets() -> None:
    assert sh.leaf_target(10_000) == 1_200 and sh.leaf_target(1_000) == 350


def _messages(n: int, tokens: int) -> list[Item]:
    return [Item(tokens) for _ in range(n)]


def test_forty_messages_of_100_give_a_leaf() -> None:
    assert sh.leaf_chunk(_messages(40, 100)) == (0, 7)


def test_no_candidate_gives_nothing() -> None:
    assert sh.leaf_chunk(_messages(5, 100)) is None


def test_thirty_six_messages_need_force() -> None:
    assert sh.leaf_chunk(_messages(36, 100)) is None  # only 4 lie outside the tail
    assert sh.leaf_chunk(_messages(36, 100), force=True) == (0, 35)


def test_eighty_messages_of_500_stay_within_the_chunk_cap() -> None:
    first, last = sh.leaf_chunk(_messages(80, 500)) or (0, -1)
    assert sum(500 for _ in range(first, last + 1)) <= 20_000
    assert (first, last) == (0, 39)  # the 40th reaches 20,000 and is included


def test_seven_huge_messages_give_no_leaf() -> None:
    items = _messages(7, 3_000) + _messages(32, 1)
    assert sh.leaf_chunk(items) is None


def test_a_summary_restarts_a_short_run() -> None:
    items = [*_messages(3, 10), Item(50, depth=0), *_messages(9, 10), *_messages(32, 1)]
    assert sh.leaf_chunk(items) == (4, 12)


# -- the condensed pass (short_compaction.go: compactCondensed, runCondensedLoop) --------


def _count(text: str) -> int:
    return len(text) // 4


def test_condensed_constants_are_mains() -> None:
    assert (sh.CONDENSED_MIN_FANOUT, sh.CONDENSED_TARGET_TOKENS) == (4, 2_000)


def test_the_oldest_chunk_of_one_depth_over_2000_tokens_is_condensed() -> None:
    """``selectOldestChunkAtDepth``: the leading leaves, 5 × 500 = 2,500 ≥ 2,000 tokens."""
    leaves = [sh.Summary("s" * 2_000, 500) for _ in range(5)]
    assert sh.condensation_candidates(leaves, items=5 + 40) == [0, 1, 2, 3, 4]
    merged = sh.condense_once(leaves, 5 + 40, _count)
    assert merged is not None and len(merged) == 1
    # truncateCondensedSummaries: contents + "\n" each, cut to 2,048 bytes, then the note
    assert merged[0].text == "s" * 2_000 + "\n" + "s" * 47 + "\n[Condensed from 5 summaries]"
    assert merged[0].depth == 1


def test_under_2000_tokens_the_first_four_of_the_shallowest_depth_go() -> None:
    """``selectShallowestCondensationCandidate`` (not forced): 4 of depth 0, not consecutive."""
    summaries = [
        sh.Summary("a", 100, 1),
        *(sh.Summary(f"l{k}", 100) for k in range(5)),
    ]
    assert sh.condensation_candidates(summaries, items=6 + 40) == [1, 2, 3, 4]
    assert sh.condensation_candidates(summaries[:4], items=4 + 40) == []  # 3 of depth 0


def test_the_fresh_tail_protects_summaries_in_it() -> None:
    leaves = [sh.Summary("s", 500) for _ in range(5)]
    # 3 before the tail: 1,500 < 2,000 tokens, and fewer than 4
    assert sh.condensation_candidates(leaves, items=5 + 30) == []
    assert sh.condensation_candidates(leaves, items=5 + 32) == [0, 1, 2, 3, 4]


def test_the_loop_stops_when_a_pass_does_not_shrink_the_context() -> None:
    tiny = [sh.Summary("x", 1) for _ in range(4)]  # the note alone outweighs them
    out = sh.condensed_loop(tiny, 40, _count, history=1_000)
    assert len(out) == 1 and out[0].depth == 1  # kept, as seahorse keeps it, then stop
