"""Counted nouns and articles: every affected sentence rendered with 1 and with 2 (issue 13)."""

from __future__ import annotations

import pytest

from ctxtui.core.planning.plan import FreshTail, TailReason
from ctxtui.core.planning.planner import build_plan
from ctxtui.core.planning.truncation import shown_marker
from ctxtui.core.policies.policy import preset
from ctxtui.core.session.models import Message, Session
from ctxtui.core.tokens.counts import SessionCounts
from ctxtui.core.tokens.tokenizers import TokenizerInfo
from ctxtui.core.wording import a, article, file_size, plural
from tests.core.fakes import CharTokenizer


@pytest.mark.parametrize(
    ("n", "word", "expected"),
    [
        (0, "message", "0 messages"),
        (1, "message", "1 message"),
        (2, "message", "2 messages"),
        (1_204, "line", "1,204 lines"),
        (1, "entry", "1 entry"),
        (3, "entry", "3 entries"),
        (2, "match", "2 matches"),
    ],
)
def test_plural(n: int, word: str, expected: str) -> None:
    assert plural(n, word) == expected


@pytest.mark.parametrize(
    ("n", "expected"),
    [
        (8, "an"),
        (11, "an"),
        (18, "an"),
        (80, "an"),
        (800, "an"),
        (8_000, "an"),
        (11_500, "an"),
        (18_000, "an"),
        (1, "a"),
        (110, "a"),
        (180, "a"),
        (1_000, "a"),
        (386, "a"),
        (111_000, "a"),
    ],
)
def test_article_follows_how_the_figure_is_read(n: int, expected: str) -> None:
    assert article(n) == expected


def test_compound_adjective() -> None:
    assert a(8_000, "token") == "an 8,000-token"
    assert a(386, "tok") == "a 386-tok"


@pytest.mark.parametrize(("turns", "text"), [(1, "min 1 turn"), (2, "min 2 turns")])
def test_the_tail_label_counts_turns(turns: int, text: str) -> None:
    tail = FreshTail(
        start=0, budget=8_000, tokens=10, reason=TailReason.BUDGET, turns=1, min_turns=turns
    )
    assert tail.label().endswith(text)


@pytest.mark.parametrize(
    ("lines", "size", "text"),
    [
        (1, 1, "...0 of 1 line (0 of 1 byte) shown..."),
        (2, 2, "...0 of 2 lines (0 of 2 bytes) shown..."),
    ],
)
def test_the_truncation_marker_counts_lines_and_bytes(lines: int, size: int, text: str) -> None:
    assert shown_marker(0, lines, 0, size) == text


@pytest.mark.parametrize(
    ("turns", "text"), [(2, "the last 2 turns take"), (3, "the last 3 turns take")]
)
def test_the_min_turns_warning_counts_turns(turns: int, text: str) -> None:
    messages = []
    for k in range(3):
        messages += [Message(role="user", content=f"q{k}"), Message(role="assistant", content="a")]
    session = Session(messages=tuple(messages))
    counts = SessionCounts(TokenizerInfo("chars", "chars"), [1_000] * 6)
    policy = preset("plan", tail_min_turns=turns, tail_min_tokens=0, tail_max_tokens=100)
    plan = build_plan(session, policy, counts, CharTokenizer())
    assert any(w.startswith(text + " the fresh tail") for w in plan.warnings), plan.warnings


def test_a_count_nobody_knows_keeps_its_plural_noun() -> None:
    from ctxtui.core.wording import counted

    assert counted(1, "message") == "1 message"
    assert counted(1_204, "request") == "1,204 requests"
    assert counted(None, "message") == "- messages"


def test_sizes_read_as_a_user_compares_them() -> None:
    assert file_size(512) == "512 B"
    assert file_size(2_374_850) == "2.4 MB"
    assert file_size(228_907_991) == "228.9 MB"
    assert file_size(3_000_000_000_000) == "3,000.0 GB"
