"""The guard that sends the rare texts the fast backend would split differently to tiktoken."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxtui.core.tokens.tokenizers import unicode_guard
from ctxtui.core.tokens.tokenizers.unicode_guard import (
    RANGES,
    flagged,
    is_flagged,
    without_surrogates,
)

NEW = chr(RANGES[-1][0])  # a CJK Extension J ideograph, new in Unicode 17


def test_only_texts_with_new_characters_or_surrogates_are_flagged() -> None:
    texts = ["plain", "漢字 ✓ 👍🏽", f"x{NEW}y", "a\ud800b", "", "é" * 50]
    assert flagged(texts) == {2, 3}
    assert [is_flagged(t) for t in texts] == [False, False, True, True, False, False]


@pytest.mark.parametrize("batch", [1, 3, 7, 1 << 20])
def test_batches_and_slices_find_the_same_texts(
    monkeypatch: pytest.MonkeyPatch, batch: int
) -> None:
    monkeypatch.setattr(unicode_guard, "GUARD_BATCH_CHARS", batch)
    texts = ["ab", "cd" + NEW, "é" * 20 + NEW, "ü" * 20, NEW, "x" * 9 + "\udfff", "z"]
    assert flagged(texts) == {1, 2, 4, 5}


@given(st.lists(st.text(max_size=30), max_size=12), st.integers(1, 40))
def test_flagged_matches_a_plain_scan(texts: list[str], batch: int) -> None:
    def scan(text: str) -> bool:
        low, high = unicode_guard.SURROGATES
        return any(lo <= ord(c) <= hi for c in text for lo, hi in (*RANGES, (low, high)))

    unicode_guard.GUARD_BATCH_CHARS, saved = batch, unicode_guard.GUARD_BATCH_CHARS
    try:
        assert flagged(texts) == {i for i, t in enumerate(texts) if scan(t)}
    finally:
        unicode_guard.GUARD_BATCH_CHARS = saved
    assert [is_flagged(t) for t in texts] == [scan(t) for t in texts]


def test_long_texts_take_the_numpy_path() -> None:
    long = "é" * (unicode_guard.SHORT_TEXT + 1)
    assert not is_flagged(long)
    assert is_flagged(long + NEW)


def test_surrogates_become_what_tiktoken_encodes() -> None:
    assert without_surrogates("a\ud800b") == "a\ufffdb"
    assert without_surrogates("\ud83d\ude00") == "😀"  # a pair, written as two halves
    assert without_surrogates("plain ✓") == "plain ✓"
