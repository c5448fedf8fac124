"""``text_depth_exceeds`` judges JSON text as the importers judge a parsed value."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from ctxtui.core.session.json_depth import text_depth_exceeds
from ctxtui.importers._reader import depth_exceeds

values = st.recursive(
    st.one_of(st.none(), st.integers(), st.text(alphabet='[]{}"\\ab', max_size=6)),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text("[{\"'", max_size=3), inner)
    ),
    max_leaves=30,
)


@given(values, st.integers(0, 8))
def test_text_and_value_agree(value: Any, limit: int) -> None:
    assert text_depth_exceeds(json.dumps(value), limit) == depth_exceeds(value, limit)


def test_brackets_inside_strings_are_text() -> None:
    assert not text_depth_exceeds('["' + "[" * 5000 + '"]', 10)
    assert text_depth_exceeds("[" * 11 + "]" * 11, 10)
    assert not text_depth_exceeds("[" * 10 + "]" * 10, 10)
