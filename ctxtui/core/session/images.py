"""An image's prompt tokens, counted the provider's way from its pixel size (docs/images.md).

Anthropic charges about ``width × height / 750`` after scaling into 1,568 px; OpenAI counts
512-px tiles for most models and 32-px patches times a multiplier for mini and nano. The rule
follows the session's model, not the file's format. The size comes from the image's header
(PNG, JPEG, GIF, WebP); the rest is never decoded, and base64 is never counted as text.
"""

from __future__ import annotations

import base64
import binascii
import math
import struct
from dataclasses import dataclass
from enum import StrEnum

from ctxtui.core.session.models import ContentPart, Message, PartKind, Session

HEADER_BYTES = 64 * 1024
"""Bytes of a payload read for its size: a JPEG's frame header follows its metadata (EXIF,
ICC profiles), which real files keep under this; the others say it in the first 30 bytes."""


def image_size(head: bytes) -> tuple[int, int] | None:
    """``(width, height)`` from the first bytes of a PNG, JPEG, GIF or WebP; else ``None``."""
    try:
        size = _png(head) or _gif(head) or _webp(head) or _jpeg(head)
    except (struct.error, IndexError):
        return None
    if size is None or size[0] <= 0 or size[1] <= 0:
        return None
    return size


def _png(b: bytes) -> tuple[int, int] | None:
    if b[:8] != b"\x89PNG\r\n\x1a\n" or b[12:16] != b"IHDR":
        return None
    w, h = struct.unpack(">II", b[16:24])
    return int(w), int(h)


def _gif(b: bytes) -> tuple[int, int] | None:
    if b[:6] not in (b"GIF87a", b"GIF89a"):
        return None
    w, h = struct.unpack("<HH", b[6:10])
    return int(w), int(h)


def _webp(b: bytes) -> tuple[int, int] | None:
    if b[:4] != b"RIFF" or b[8:12] != b"WEBP":
        return None
    chunk = b[12:16]
    if chunk == b"VP8X":  # extended: 24-bit width-1 and height-1
        w = int.from_bytes(b[24:27], "little") + 1
        h = int.from_bytes(b[27:30], "little") + 1
        return w, h
    if chunk == b"VP8L":  # lossless: 14-bit fields after the 0x2f signature
        bits = int.from_bytes(b[21:25], "little")
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    if chunk == b"VP8 ":  # lossy: after the 3-byte frame tag and the start code
        w, h = struct.unpack("<HH", b[26:30])
        return int(w) & 0x3FFF, int(h) & 0x3FFF
    return None


_SOF = {0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF}


def _jpeg(b: bytes) -> tuple[int, int] | None:
    if b[:2] != b"\xff\xd8":
        return None
    i = 2
    while i + 9 < len(b):
        if b[i] != 0xFF:
            return None
        marker = b[i + 1]
        if marker == 0xFF:  # fill byte
            i += 1
            continue
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:  # no length
            i += 2
            continue
        (length,) = struct.unpack(">H", b[i + 2 : i + 4])
        if marker in _SOF:
            h, w = struct.unpack(">HH", b[i + 5 : i + 9])
            return int(w), int(h)
        i += 2 + length
    return None


def base64_dimensions(data: str) -> tuple[int, int] | None:
    """An image's pixel size from the header at the start of its base64 payload (only the
    first ``HEADER_BYTES`` are decoded); ``None`` when it is not a known image."""
    head = data[: HEADER_BYTES * 4 // 3 + 4]
    if any(c in head for c in " \t\r\n"):
        head = "".join(head.split())
    head = head[: len(head) // 4 * 4]
    try:
        raw = base64.b64decode(head, validate=False)
    except (binascii.Error, ValueError):
        return None
    return image_size(raw)


def sized(part: ContentPart, data: str) -> ContentPart:
    """``part`` with the pixel size its base64 ``data`` declares, when it is an image."""
    if part.kind is not PartKind.IMAGE:
        return part
    size = base64_dimensions(data)
    if size is None:
        return part
    return part.model_copy(update={"width": size[0], "height": size[1]})


# --- the providers' rules ----------------------------------------------------------------


class Provider(StrEnum):
    ANTHROPIC = "anthropic"
    OPENAI = "openai"


def provider_of(model: str | None) -> Provider | None:
    """The provider whose rule counts a model's images; ``None`` when the name says nothing."""
    name = (model or "").lower().rpartition("/")[2]
    if "claude" in name:
        return Provider.ANTHROPIC
    if name.startswith(("gpt-", "o1", "o3", "o4", "chatgpt", "codex", "computer-use")):
        return Provider.OPENAI
    return None


ANTHROPIC_LONG_EDGE = 1568
ANTHROPIC_MAX_TOKENS = 1600
ANTHROPIC_PIXELS_PER_TOKEN = 750
"""Anthropic's vision guide: ``tokens = width × height / 750``; an image whose long edge is
over 1,568 px or over ~1,600 tokens is first scaled down, keeping its aspect ratio."""


def anthropic_tokens(width: int, height: int) -> int:
    scale = min(
        1.0,
        ANTHROPIC_LONG_EDGE / max(width, height),
        math.sqrt(ANTHROPIC_MAX_TOKENS * ANTHROPIC_PIXELS_PER_TOKEN / (width * height)),
    )
    w, h = max(1, int(width * scale)), max(1, int(height * scale))
    return min(ANTHROPIC_MAX_TOKENS, math.ceil(w * h / ANTHROPIC_PIXELS_PER_TOKEN))


@dataclass(frozen=True, slots=True)
class TileRule:
    """OpenAI's tile rule (``detail: high``): fit in 2048², shortest side to 768, 512-px tiles."""

    base: int
    per_tile: int


@dataclass(frozen=True, slots=True)
class PatchRule:
    """OpenAI's patch rule: 32-px patches, at most 1,536 (scaled down to fit), × a multiplier."""

    multiplier: float


OPENAI_RULES: tuple[tuple[str, TileRule | PatchRule], ...] = (
    # most specific first: the first prefix the model name starts with wins
    ("gpt-4.1-mini", PatchRule(1.62)),
    ("gpt-4.1-nano", PatchRule(2.46)),
    ("gpt-5-mini", PatchRule(1.62)),
    ("gpt-5-nano", PatchRule(2.46)),
    ("o4-mini", PatchRule(1.72)),
    ("gpt-4o-mini", TileRule(2833, 5667)),
    ("gpt-5", TileRule(70, 140)),
    ("o1", TileRule(75, 150)),
    ("o3", TileRule(75, 150)),
    ("computer-use", TileRule(65, 129)),
)
DEFAULT_OPENAI_RULE = TileRule(85, 170)
"""GPT-4o, GPT-4.1, GPT-4.5 and any OpenAI model the table does not name."""

PATCH = 32
MAX_PATCHES = 1536


def openai_rule(model: str | None) -> TileRule | PatchRule:
    name = (model or "").lower().rpartition("/")[2]
    return next((rule for prefix, rule in OPENAI_RULES if name.startswith(prefix)),
                DEFAULT_OPENAI_RULE)  # fmt: skip


def tile_tokens(width: int, height: int, rule: TileRule) -> int:
    w, h = float(width), float(height)
    if max(w, h) > 2048:
        s = 2048 / max(w, h)
        w, h = w * s, h * s
    if min(w, h) > 768:
        s = 768 / min(w, h)
        w, h = w * s, h * s
    tiles = math.ceil(int(w) / 512) * math.ceil(int(h) / 512)
    return rule.base + rule.per_tile * max(1, tiles)


def patch_tokens(width: int, height: int, rule: PatchRule) -> int:
    w, h = float(width), float(height)
    if math.ceil(w / PATCH) * math.ceil(h / PATCH) > MAX_PATCHES:
        shrink = math.sqrt(PATCH * PATCH * MAX_PATCHES / (w * h))
        sw, sh = w * shrink / PATCH, h * shrink / PATCH
        shrink *= min(math.floor(sw) / sw, math.floor(sh) / sh)
        w, h = float(int(w * shrink)), float(int(h * shrink))
    patches = min(MAX_PATCHES, math.ceil(w / PATCH) * math.ceil(h / PATCH))
    return math.ceil(patches * rule.multiplier)


def image_tokens(width: int, height: int, model: str | None) -> int | None:
    """Prompt tokens of a ``width`` × ``height`` image for ``model``; ``None`` if unknown."""
    if width <= 0 or height <= 0:
        return None
    provider = provider_of(model)
    if provider is Provider.ANTHROPIC:
        return anthropic_tokens(width, height)
    if provider is Provider.OPENAI:
        rule = openai_rule(model)
        if isinstance(rule, PatchRule):
            return patch_tokens(width, height, rule)
        return tile_tokens(width, height, rule)
    return None


def priced_part(part: ContentPart, model: str | None) -> ContentPart:
    """``part`` with its token estimate from its pixel size, when both are known."""
    if part.kind is not PartKind.IMAGE or part.width is None or part.height is None:
        return part
    tokens = image_tokens(part.width, part.height, model)
    if tokens is None or tokens == part.token_estimate:
        return part
    return part.model_copy(update={"token_estimate": tokens})


def priced_images(session: Session) -> Session:
    """Every sized image of ``session`` counted by its model's provider (the message's model
    when it names one, else the session's); the session itself when nothing changes."""
    messages: list[Message] | None = None
    for i, m in enumerate(session.messages):
        if not m.parts or not any(
            p.kind is PartKind.IMAGE and p.width is not None for p in m.parts
        ):
            continue
        model = m.model or session.meta.model
        parts = tuple(priced_part(p, model) for p in m.parts)
        if parts != m.parts:
            if messages is None:
                messages = list(session.messages)
            messages[i] = m.model_copy(update={"parts": parts})
    if messages is None:
        return session
    return session.model_copy(update={"messages": tuple(messages)})
