"""Images counted the provider's way from their pixel size (docs/images.md).

The figures are the providers' published examples: Anthropic's vision guide (200×200 ≈ 54,
1000×1000 ≈ 1,334, capped near 1,600), OpenAI's images-and-vision guide (1024×1024 = 765
and 2048×4096 = 1,105 on GPT-4o; 1800×2400 = 1,452 patches on the GPT-4.1 patch rule).
"""

from __future__ import annotations

import base64
import json
import struct
import zlib
from pathlib import Path

import pytest

from ctxtui.core.session.images import (
    Provider,
    anthropic_tokens,
    image_size,
    image_tokens,
    provider_of,
)
from ctxtui.core.session.models import PartKind
from ctxtui.core.tokens.tokenizers import resolve
from ctxtui.importers import load_session


def png(width: int, height: int) -> bytes:
    """A real, decodable PNG: grey pixels, one IDAT chunk, CRCs and all."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    rows = b"".join(b"\x00" + b"\x80" * width for _ in range(height))
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


def test_real_png_header_is_read() -> None:
    data = png(300, 200)
    assert zlib.decompress(data[41:-12])  # the pixel data is really there
    assert image_size(data) == (300, 200)


def test_other_formats_headers() -> None:
    gif = b"GIF89a" + struct.pack("<HH", 640, 480) + b"\x00" * 8
    assert image_size(gif) == (640, 480)
    jpeg = (
        b"\xff\xd8"
        + b"\xff\xe0" + struct.pack(">H", 16) + b"JFIF\x00" + b"\x00" * 9
        + b"\xff\xc0" + struct.pack(">HBHH", 17, 8, 768, 1024) + b"\x00" * 10
    )  # fmt: skip
    assert image_size(jpeg) == (1024, 768)
    vp8x = b"RIFF\x00\x00\x00\x00WEBPVP8X" + b"\x00" * 8 + (799).to_bytes(3, "little")
    vp8x += (599).to_bytes(3, "little")
    assert image_size(vp8x) == (800, 600)
    lossy = b"RIFF\x00\x00\x00\x00WEBPVP8 " + b"\x00" * 4 + b"\x00\x00\x00\x9d\x01\x2a"
    lossy += struct.pack("<HH", 320, 240)
    assert image_size(lossy) == (320, 240)
    bits = (99) | (49 << 14)
    lossless = b"RIFF\x00\x00\x00\x00WEBPVP8L" + b"\x00" * 4 + b"\x2f" + bits.to_bytes(4, "little")
    assert image_size(lossless) == (100, 50)
    assert image_size(b"not an image") is None
    assert image_size(b"\x89PNG\r\n\x1a\n") is None  # cut short: no size, no exception


def test_provider_follows_the_model() -> None:
    assert provider_of("claude-sonnet-4-5-20250929") is Provider.ANTHROPIC
    assert provider_of("anthropic/claude-opus-4") is Provider.ANTHROPIC
    assert provider_of("gpt-5-codex") is Provider.OPENAI
    assert provider_of("o4-mini") is Provider.OPENAI
    assert provider_of("llama-3") is None


def test_anthropic_rule() -> None:
    assert anthropic_tokens(200, 200) == 54
    assert anthropic_tokens(1000, 1000) == 1334
    assert anthropic_tokens(1092, 1092) == 1590
    # scaled into 1,568 px and ~1,600 tokens first, aspect ratio kept
    assert 1590 <= anthropic_tokens(4000, 3000) <= 1600
    assert anthropic_tokens(8000, 8000) == anthropic_tokens(4000, 4000)


def test_openai_tile_and_patch_rules() -> None:
    assert image_tokens(1024, 1024, "gpt-4o") == 765
    assert image_tokens(2048, 4096, "gpt-4o") == 1105
    assert image_tokens(512, 512, "gpt-5") == 70 + 140
    # patches: 1800×2400 is scaled to 1,452 patches, times the mini's 1.62
    assert image_tokens(1800, 2400, "gpt-4.1-mini") == 2353
    assert image_tokens(1024, 1024, "gpt-4.1-mini") == 1659
    assert image_tokens(100, 100, "claude-3-5-sonnet") == 14
    assert image_tokens(100, 100, "some-local-model") is None


def _claude_line(data: str) -> str:
    return json.dumps(
        {
            "type": "user",
            "uuid": "u1",
            "parentUuid": None,
            "sessionId": "s",
            "timestamp": "2025-01-01T00:00:00Z",
            "message": {
                "role": "user",
                "content": [
                    {"type": "text", "text": "what is in this picture?"},
                    {
                        "type": "image",
                        "source": {"type": "base64", "media_type": "image/png", "data": data},
                    },
                ],
            },
        }
    )


def _assistant_line(model: str) -> str:
    return json.dumps(
        {
            "type": "assistant",
            "uuid": "a1",
            "parentUuid": "u1",
            "sessionId": "s",
            "timestamp": "2025-01-01T00:00:01Z",
            "message": {
                "id": "msg_1",
                "role": "assistant",
                "model": model,
                "content": [{"type": "text", "text": "A grey square."}],
                "usage": {"input_tokens": 1400, "output_tokens": 5},
            },
        }
    )


def test_anthropic_png_in_a_claude_code_session(tmp_path: Path) -> None:
    data = base64.b64encode(png(1000, 1000)).decode()
    path = tmp_path / "s.jsonl"
    path.write_text(_claude_line(data) + "\n" + _assistant_line("claude-sonnet-4-5") + "\n")
    session = load_session(path)
    image = next(p for p in session.messages[0].parts if p.kind is PartKind.IMAGE)
    assert (image.width, image.height, image.token_estimate) == (1000, 1000, 1334)
    # every counter charges the provider's figure, none counts the base64 as text
    for spec in ("plan", "tiktoken:cl100k_base"):
        counter, _ = resolve(spec)
        text_only = session.messages[0].model_copy(update={"parts": session.messages[0].parts[:1]})
        assert counter.count_message(session.messages[0]) - counter.count_message(text_only) == 1334


@pytest.mark.parametrize(
    ("model", "expected"),
    [("gpt-4o", 765), ("gpt-4.1-mini", 1659), ("claude-opus-4", 1334)],
)
def test_openai_chat_png_follows_the_model(tmp_path: Path, model: str, expected: int) -> None:
    """An OpenAI Chat file is counted by the rule of the model it names, even a Claude one."""
    url = "data:image/png;base64," + base64.b64encode(png(1024, 1024) if model != "claude-opus-4"
                                                      else png(1000, 1000)).decode()  # fmt: skip
    doc = {
        "model": model,
        "messages": [
            {"role": "user", "content": [
                {"type": "text", "text": "look"},
                {"type": "image_url", "image_url": {"url": url}},
            ]},
            {"role": "assistant", "content": "ok"},
        ],
    }  # fmt: skip
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(doc))
    session = load_session(path)
    image = session.messages[0].parts[1]
    assert image.kind is PartKind.IMAGE and image.token_estimate == expected
