"""The decision prefilter never changes an answer: it only spares the regular expression texts
that cannot match it, including those whose letters match only case-insensitively."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from ctxtui.core.summaries.text_rules import DECISION, states_decision

WORDS = [
    "decided", "decide to", "instead", "because", "will use", "i'll use", "we'll use",
    "going to use", "chose", "choose", "opted", "rather than", "switch to", "switched to",
    "settled on", "let's", "let us", "found it",
]  # fmt: skip
# Characters that match ASCII letters only under IGNORECASE, or change length when lowered.
TRICKY = "İıſKÅßẞµΜ"


def _variants(word: str) -> st.SearchStrategy[str]:
    return st.lists(st.booleans(), min_size=len(word), max_size=len(word)).map(
        lambda ups: "".join(c.upper() if up else c for c, up in zip(word, ups, strict=True))
    )


text = st.lists(
    st.one_of(
        st.sampled_from(WORDS).flatmap(_variants),
        st.text(alphabet=st.sampled_from(list("abcdehilnorstu '.\n" + TRICKY)), max_size=12),
    ),
    max_size=8,
).map("".join)


@given(text)
def test_the_prefilter_agrees_with_the_pattern(sample: str) -> None:
    assert states_decision(sample) == (DECISION.search(sample) is not None)


def test_letters_that_match_only_case_insensitively_still_count() -> None:
    for sample in ("becauſe we must", "İnstead, use Decimal", "LET'S GO", "Found İt"):
        assert states_decision(sample) == (DECISION.search(sample) is not None)
    assert not states_decision("nothing to see here")
