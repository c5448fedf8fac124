"""``count_session`` and ``count_message_everywhere``: exact sums, progress, stopping."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxtui.core.session.models import (
    ContentPart,
    Message,
    PartKind,
    Session,
    SessionMeta,
    ToolCall,
    ToolDefinition,
)
from ctxtui.core.tokens.counting import Pace, count_message_everywhere, count_session
from ctxtui.core.tokens.tokenizers import Tokenizer, TokenizerInfo, encodings, resolve
from ctxtui.core.tokens.tokenizers.picoclaw import CONTEXT_SUMMARY_PREFIX

SPECS = ("plan", "picoclaw", "tiktoken:cl100k_base")


class CallCounting:
    """A plain tokenizer (no batch method) that records how many messages it counted."""

    name = "counting"

    def __init__(self) -> None:
        self.counted = 0

    def count_text(self, text: str) -> int:
        return len(text)

    def count_message(self, message: Message) -> int:
        self.counted += 1
        return len(message.content) + 1

    def count_tool_defs(self, tools: Sequence[ToolDefinition]) -> int:
        return len(tools)

    def count_system(self, system_prompt: str) -> int:
        return len(system_prompt)


INFO = TokenizerInfo("counting", "counting")


def session_of(n: int, **fields: Any) -> Session:
    messages = tuple(
        Message(role="user" if i % 2 == 0 else "assistant", content=f"message {i}")
        for i in range(n)
    )
    return Session(messages=messages, **fields)


messages_strategy = st.lists(
    st.builds(
        Message,
        role=st.sampled_from(["user", "assistant", "tool", "system"]),
        content=st.text(max_size=40),
        reasoning=st.text(max_size=10),
        name=st.none() | st.text(min_size=1, max_size=5),
        tool_call_id=st.none() | st.text(max_size=6),
        tool_calls=st.lists(
            st.builds(
                ToolCall,
                id=st.text(max_size=5),
                name=st.text(max_size=8),
                arguments=st.text(max_size=30),
            ),
            max_size=2,
        ).map(tuple),
        parts=st.lists(
            st.builds(
                ContentPart,
                kind=st.sampled_from(list(PartKind)),
                token_estimate=st.none() | st.integers(0, 2_000),
            ),
            max_size=2,
        ).map(tuple),
    ),
    max_size=25,
)


@pytest.mark.parametrize("spec", SPECS)
@given(messages=messages_strategy, chunk=st.integers(1, 7))
def test_counts_equal_a_simple_per_message_loop(
    spec: str, messages: list[Message], chunk: int
) -> None:
    tokenizer, info = resolve(spec)
    tools = (ToolDefinition(name="grep", description="search", parameters={"type": "object"}),)
    session = Session(messages=tuple(messages), system_prompt="Be brief.", tools=tools)
    counts = count_session(session, tokenizer, info, Pace(chunk=chunk))
    assert counts is not None
    assert list(counts.message_tokens) == [tokenizer.count_message(m) for m in messages]
    assert counts.system_tokens == tokenizer.count_system("Be brief.")
    assert counts.tool_def_tokens == tokenizer.count_tool_defs(tools)
    assert counts.history_tokens == sum(tokenizer.count_message(m) for m in messages)
    assert counts.tokenizer == info


def test_progress_is_reported_after_every_chunk() -> None:
    seen: list[tuple[int, int]] = []
    counts = count_session(
        session_of(10), CallCounting(), INFO, Pace(lambda d, t: seen.append((d, t)), chunk=3)
    )
    assert counts is not None and len(counts) == 10
    assert seen == [(3, 10), (6, 10), (9, 10), (10, 10)]


def test_stop_returns_none_after_the_current_chunk() -> None:
    tokenizer = CallCounting()
    progress: list[int] = []
    result = count_session(
        session_of(100),
        tokenizer,
        INFO,
        Pace(lambda done, _total: progress.append(done), lambda: bool(progress), chunk=10),
    )
    assert result is None
    assert tokenizer.counted == 10
    assert progress == [10]


def test_stop_before_starting_counts_nothing() -> None:
    tokenizer = CallCounting()
    assert count_session(session_of(5), tokenizer, INFO, Pace(should_stop=lambda: True)) is None
    assert tokenizer.counted == 0


def test_stop_during_the_last_chunk_still_returns_none() -> None:
    progress: list[int] = []
    result = count_session(
        session_of(5),
        CallCounting(),
        INFO,
        Pace(lambda done, _total: progress.append(done), lambda: bool(progress), chunk=100),
    )
    assert result is None


def test_empty_session_has_no_tokens() -> None:
    for spec in SPECS:
        tokenizer, info = resolve(spec)
        counts = count_session(Session(), tokenizer, info)
        assert counts is not None
        assert (len(counts), counts.history_tokens, counts.system_tokens) == (0, 0, 0)
        assert (counts.tool_def_tokens, counts.summary_tokens) == (0, 0)


def test_picoclaw_summary_is_charged_as_carried_in_the_system_prompt() -> None:
    summary = "Earlier: the user set up the repo and ran the tests."
    tokenizer, info = resolve("picoclaw")
    counts = count_session(session_of(2, meta=SessionMeta(summary=summary)), tokenizer, info)
    assert counts is not None
    assert counts.summary_tokens == (len(CONTEXT_SUMMARY_PREFIX) + len(summary) + 7) * 2 // 5


def test_tiktoken_summary_includes_the_prefix() -> None:
    summary = "Earlier: the user set up the repo."
    tokenizer, info = resolve("tiktoken:cl100k_base")
    counts = count_session(session_of(1, meta=SessionMeta(summary=summary)), tokenizer, info)
    assert counts is not None
    assert counts.summary_tokens > tokenizer.count_text(CONTEXT_SUMMARY_PREFIX + summary)
    assert counts.summary_tokens < tokenizer.count_text(CONTEXT_SUMMARY_PREFIX + summary) + 5


def test_chunk_must_be_positive() -> None:
    with pytest.raises(ValueError, match="chunk"):
        count_session(session_of(1), CallCounting(), INFO, Pace(chunk=0))


def test_a_plain_tokenizer_without_batching_is_accepted() -> None:
    tokenizer: Tokenizer = CallCounting()
    counts = count_session(session_of(4), tokenizer, INFO, Pace(chunk=3))
    assert counts is not None
    assert list(counts.message_tokens) == [len(f"message {i}") + 1 for i in range(4)]


def test_everywhere_counts_one_message_under_each_tokenizer() -> None:
    message = Message(role="user", content="Compare these estimators, please. " * 5)
    drift = count_message_everywhere(message, chars_per_token=4.0)
    assert set(drift) == set(SPECS)
    for spec in SPECS:
        assert drift[spec] == resolve(spec)[0].count_message(message)
    assert count_message_everywhere(message, chars_per_token=2.0)["plan"] > drift["plan"]


def test_everywhere_leaves_out_cl100k_when_no_exact_counter_is_usable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(encodings, "_loads", {})
    monkeypatch.setattr(encodings, "_quicktok", {})
    monkeypatch.setitem(sys.modules, "tiktoken", None)
    monkeypatch.setitem(sys.modules, "quicktok", None)
    drift = count_message_everywhere(Message(role="user", content="hi"), chars_per_token=4.0)
    assert set(drift) == {"plan", "picoclaw"}


def test_the_drift_view_does_not_load_the_fast_backend_for_one_message(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """quicktok's load holds the GIL; one message is counted by tiktoken unless it is loaded."""
    monkeypatch.setattr(encodings, "_quicktok", {})
    message = Message(role="user", content="Compare these estimators, please. 漢字 " * 5)
    drift = count_message_everywhere(message, chars_per_token=4.0)
    assert not encodings.quicktok_loaded("cl100k_base")
    encodings.load_quicktok("cl100k_base")
    assert count_message_everywhere(message, chars_per_token=4.0) == drift
