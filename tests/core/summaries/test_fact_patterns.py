"""The fact rules' patterns: the same matches as the rules' regular expressions, in time linear
in the text, whatever the text (a hostile transcript of ``a-a-a-…1`` took 12 s per 37 KB)."""

from __future__ import annotations

import re
import time

from hypothesis import example, given, settings
from hypothesis import strategies as st

from ctxtui.core.session.models import Message, Session
from ctxtui.core.summaries.segment_facts import message_facts, numbers, segment_facts
from ctxtui.core.summaries.text_rules import CODE_LINE

NUMBER_RULE = re.compile(
    r"(?<![\w.#/-])("
    r"#\d{1,9}"
    r"|v?\d+\.\d+\.\d+(?:[-+][\w.]+)?"
    r"|\d+(?:\.\d+)?\s?(?:%|ms|µs|ns|s|sec|seconds|min|minutes|h|hours|KB|MB|GB|KiB|MiB|GiB|"
    r"B|bytes|tokens|tok|x|×|lines|files|tests|passed|failed|errors|req/s|rps|fps)"
    r"|\d+\.\d+"
    r")(?![\w%/-]|\.\w)"
    r"|(?<![\w.])([A-Za-z_][\w-]*\s?[=:]\s?-?\d+(?:\.\d+)?)(?![\w.])"
)
"""The number rule of docs/retention.md as one expression (quadratic on ``a-a-a-…``): the
specification ``numbers`` must agree with."""
CODE_RULE = re.compile(
    r"^\s*(?:\d+\s*[:|]?\s+)?(?:(?:raise|except|class|def|import|from|throw|catch|assert|"
    r"if|elif|return|try)\b|#|//|/?\*)"
)
"""A line of source code, as the rule reads (quadratic on ``1`` and many spaces)."""

PIECES = ["1", "2", " ", "=", ":", "-", ".", "a", "Z", "_", "#", "v", "+", "%", "s", "ms", "\n",
          "é", "/", "x", "3.4", "\t", "`", "(", ")", "::", "py", "Error", "https://"]  # fmt: skip
texts = st.lists(st.sampled_from(PIECES), max_size=16).map("".join)

CPU_SECONDS = 2.0
"""A generous bound on one 300 KB text: the linear rules take about 0.05 s, the quadratic
ones minutes. CPU time, not the wall clock, so a loaded machine does not fail it."""


@settings(max_examples=400)
@given(texts)
@example("x--max-count=3 a-b: 4.5 v1.2.3-rc.1 5 passed in 2.31s #12")
@example("a-a-a-1 b=2 c=3")
def test_numbers_match_the_rule(text: str) -> None:
    expected = [
        (m.start(), m.end(), next(g for g in m.groups() if g)) for m in NUMBER_RULE.finditer(text)
    ]
    assert list(numbers(text)) == expected


@settings(max_examples=400)
@given(st.lists(st.sampled_from(["1", " ", "  ", ":", "|", "\t", "#", "/", "*", "def ", "x"]),
                max_size=10).map("".join))  # fmt: skip
def test_code_lines_match_the_rule(line: str) -> None:
    assert bool(CODE_LINE.match(line)) == bool(CODE_RULE.match(line))


def _cpu(run: object) -> float:
    assert callable(run)
    start = time.process_time()
    run()
    return time.process_time() - start


@settings(max_examples=10, deadline=None)
@given(
    unit=st.lists(st.sampled_from(PIECES), min_size=1, max_size=3).map("".join),
    end=st.sampled_from(["", "=1", ": 2", "()", ".py", " Error", "`"]),
)
@example(unit="a-", end="1")
@example(unit="a-", end="=1")
@example(unit="a`", end="")
@example(unit="1" + " " * 1_000, end="x")
def test_facts_cost_what_the_text_is_long(unit: str, end: str) -> None:
    """Any text of repeated pieces is read in bounded time: the number rule, and every rule of
    a user's text and of a tool's output (read up to 64 KiB each)."""
    text = unit * (300_000 // len(unit)) + end
    assert _cpu(lambda: list(numbers(text))) < CPU_SECONDS
    for role in ("user", "tool"):
        message = Message(role=role, content=text)
        assert _cpu(lambda m=message: list(message_facts(m))) < CPU_SECONDS


def test_a_hostile_segment_is_audited_in_bounded_time() -> None:
    """The campaign's shape: messages of ``a-a-a-…1`` (12 s per 37 KB before)."""
    hostile = "a-" * 150_000 + "1"
    session = Session(
        messages=tuple(
            Message(role=role, content=hostile) for role in ("user", "assistant", "tool")
        )
    )
    assert _cpu(lambda: segment_facts(session, 0, 2)) < CPU_SECONDS


@settings(max_examples=300)
@given(
    st.lists(
        st.sampled_from(["a", " ", "\n", "\t", "\r", "\r\n", "\x1b[1m", "\x1b]0;t\x07", "\x9b2J",
                         "\x00", "\u200e", "\u202e", "é", "'", "`", "./", "x.", "\x85", "\xa0"]),
        max_size=12,
    ).map("".join)
)  # fmt: skip
def test_the_quick_clean_and_words_agree_with_the_rules(text: str) -> None:
    """``_clean`` skips ``clean_text`` only where it would change nothing, and ``words_of``
    strips only the words that need it."""
    from ctxtui.core.summaries.segment_facts import _TRAILING, _WORD_SPLIT, _clean, words_of
    from ctxtui.core.summaries.text_rules import clean_text

    assert _clean(text) == clean_text(text)
    expected = set()
    for word in text.translate(_WORD_SPLIT).split():
        word = word.rstrip(_TRAILING)
        while word.startswith("./"):
            word = word[2:]
        if word:
            expected.add(word)
    assert words_of(text) == expected
