"""PicoClaw seahorse as shipped: constants, leaf and condensed chunks, summary rendering."""

from __future__ import annotations

from ctxtui.core.summaries import seahorse as sh
from ctxtui.core.summaries.seahorse import Item, SummaryNode


def test_constants_are_mains() -> None:
    assert (sh.FRESH_TAIL_COUNT, sh.LEAF_MIN_FANOUT, sh.CONDENSED_MIN_FANOUT) == (32, 8, 4)
    assert (sh.LEAF_CHUNK_TOKENS, sh.LEAF_TARGET_TOKENS, sh.CONDENSED_TARGET_TOKENS) == (
        20_000,
        1_200,
        2_000,
    )


def test_targets() -> None:
    assert sh.leaf_target(10_000) == 1_200 and sh.leaf_target(1_000) == 350
    assert sh.condensed_target(10_000) == 2_000 and sh.condensed_target(1_000) == 350


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


def test_oldest_chunk_at_depth_needs_2000_tokens() -> None:
    below = [Item(300, depth=0) for _ in range(5)] + _messages(32, 1)
    assert sh.oldest_chunk_at_depth(below, 0) is None
    at = [Item(500, depth=0) for _ in range(5)] + _messages(32, 1)
    assert sh.oldest_chunk_at_depth(at, 0) == (0, 4)  # 5 × 500 = 2,500


def test_four_leaves_and_a_fresh_tail_condense() -> None:
    items = [Item(400, depth=0) for _ in range(4)] + _messages(32, 10)
    sources = sh.condensed_sources(items)
    assert sources == [0, 1, 2, 3]  # 1,600 < 2,000: the fallback takes the first four
    assert sh.condensed_depth(items, sources) == 1


def test_xml_escapes_and_lists_parents() -> None:
    node = SummaryNode(
        "sum_1", "condensed", 1, 5, "a <b> & 'c'", "2026-01-01T00:00:00Z", None, ("sum_a",)
    )
    text = sh.format_summary_xml(node)
    assert text.startswith(
        '<summary id="sum_1" kind="condensed" depth="1" descendant_count="5" '
        'earliest_at="2026-01-01T00:00:00Z">'
    )
    assert "latest_at" not in text
    assert "a &lt;b&gt; &amp; &#39;c&#39;" in text
    assert '<summary_ref id="sum_a" />' in text


def test_depth_two_warns_of_multi_level_summarization() -> None:
    deep = SummaryNode("sum_2", "condensed", 2, 9, "x")
    assert "multi-level summarization" in sh.render_summaries([deep])
    shallow = SummaryNode("sum_3", "leaf", 0, 0, "x")
    assert sh.render_summaries([shallow]).endswith(sh.SOME_SUMMARIZED)
    assert len(sh.SOME_SUMMARIZED) == 90
