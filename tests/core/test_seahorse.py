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
