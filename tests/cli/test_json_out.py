"""``commands.json_out``: orjson writes the stdlib's very bytes, for any document, with what
a terminal acts on (C1 controls, bidi overrides) escaped as ``\\uXXXX``."""

from __future__ import annotations

import json
import math
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from ctxtui.commands.json_out import stdlib_text
from ctxtui.core.literal import json_literal, json_names

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.floats(-1e-3, 1e-3),  # around the exponent switch of repr (1e-4)
    st.sampled_from([1e-4, -1e-4, 9.999e-5, 1e-5, 2.5e-7, 5e-324, 1e16, 1e15, 0.0, -0.0]),
    st.text(),
    st.text(st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF), max_size=2),
)
keys = st.one_of(st.text(max_size=8), st.integers(-5, 5))
documents = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=5),
        st.lists(inner, max_size=3).map(tuple),
        st.dictionaries(keys, inner, max_size=5),
    ),
    max_leaves=40,
)


def _stdlib(doc: Any) -> bytes:
    return json_literal((json_names(json.dumps(doc, indent=2, ensure_ascii=False)) + "\n").encode())


@settings(max_examples=500, deadline=None)
@given(documents)
def test_the_bytes_are_the_stdlibs(doc: Any) -> None:
    assert stdlib_text(doc) == _stdlib(doc)


def test_small_floats_keep_the_stdlibs_exponent() -> None:
    doc = {"cost_usd": [1.5e-05, 2.5e-07, 0.0001, 3e-4], "nan": [math.inf]}
    assert stdlib_text({"x": doc["cost_usd"]}) == _stdlib({"x": doc["cost_usd"]})
    assert b"1.5e-05" in stdlib_text(doc) and b"Infinity" in stdlib_text(doc)
