"""PicoClaw's shipped estimator against every estimator vector of algorithms.md §2.16."""

from __future__ import annotations

from typing import Any

from ctxtui.core.session.models import ContentPart, Message, PartKind, ToolCall
from ctxtui.core.tokens.counting import count_summary
from ctxtui.core.tokens.tokenizers.picoclaw import CONTEXT_SUMMARY_PREFIX, PicoClawTokenizer

pico = PicoClawTokenizer()


def user(content: str = "", **fields: Any) -> Message:
    return Message(role="user", content=content, **fields)


def test_hello_world_is_10() -> None:
    assert pico.count_message(user("Hello, world!")) == 10


def test_empty_message_is_4() -> None:
    assert pico.count_message(user()) == 4


def test_x_times_488_is_200() -> None:
    """Also the compaction vector: content exactly at target (488 chars → 200 tokens)."""
    assert pico.count_message(user("x" * 488)) == 200


def test_each_media_item_adds_256_exactly() -> None:
    image = ContentPart(kind=PartKind.IMAGE, media_type="image/png", byte_size=10_000)
    audio = ContentPart(kind=PartKind.OTHER, media_type="audio/wav", token_estimate=9)
    base = pico.count_message(user("look"))
    assert pico.count_message(user("look", parts=(image,))) == base + 256
    assert pico.count_message(user("look", parts=(image, audio))) == base + 512


def test_5000_char_tool_arguments_at_least_2000() -> None:
    call = ToolCall(id="c", name="write", arguments="a" * 5000)
    assert pico.count_message(Message(role="assistant", tool_calls=(call,))) >= 2000


def test_tool_calls_counted() -> None:
    bare = pico.count_message(Message(role="assistant", content="ok"))
    call = ToolCall(id="call_1", name="read_file", arguments='{"path":"a.txt"}')
    with_call = pico.count_message(Message(role="assistant", content="ok", tool_calls=(call,)))
    chars = len("ok") + 12 + len("call_1") + len("function") + len("read_file")
    chars += len('{"path":"a.txt"}')
    assert with_call == chars * 2 // 5
    assert with_call > bare


def test_multibyte_text_counted() -> None:
    """Content is counted in runes: 100 CJK characters weigh 100, not 300."""
    assert pico.count_message(user("字" * 100)) == (100 + 12) * 2 // 5


def test_reasoning_counted() -> None:
    plain = pico.count_message(Message(role="assistant", content="answer"))
    thought = pico.count_message(Message(role="assistant", content="answer", reasoning="r" * 50))
    assert thought == (len("answer") + 50 + 12) * 2 // 5
    assert thought > plain


def test_tool_result_id_counted() -> None:
    result = Message(role="tool", content="done", tool_call_id="call_42")
    assert pico.count_message(result) == (len("done") + len("call_42") + 12) * 2 // 5


def test_token_count_includes_every_field() -> None:
    """``context_seahorse_test``: content, reasoning, tool calls, ids and media all count."""
    call = ToolCall(id="i", name="n", arguments="a")
    image = ContentPart(kind=PartKind.IMAGE)
    full = Message(role="assistant", content="c", reasoning="r", tool_calls=(call,), parts=(image,))
    chars = 1 + 1 + (1 + len("function") + 1 + 1) + 12
    assert pico.count_message(full) == chars * 2 // 5 + 256


def test_summary_message_count_is_content_plus_overhead() -> None:
    """Seahorse stores a summary's tokens as ``EstimateMessageTokens({Content: content})``."""
    content = "summary " * 40
    assert pico.count_message(user(content)) == (len(content) + 12) * 2 // 5


def test_context_summary_prefix_is_174_runes_176_bytes() -> None:
    assert len(CONTEXT_SUMMARY_PREFIX) == 174
    assert len(CONTEXT_SUMMARY_PREFIX.encode()) == 176
    assert CONTEXT_SUMMARY_PREFIX.endswith("instructions.\n\n")
    assert "outdated — always" in CONTEXT_SUMMARY_PREFIX


def test_summary_in_system_prompt_is_prefix_plus_summary_plus_7() -> None:
    summary = "The user asked for a refactor; tests pass."
    assert count_summary(pico, summary) == (174 + len(summary) + 7) * 2 // 5
    assert count_summary(pico, "") == 0  # an empty summary is not carried
