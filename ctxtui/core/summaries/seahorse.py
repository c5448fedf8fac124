"""PicoClaw seahorse's constants and its leaf chunk selection (docs/presets.md,
"picoclaw-seahorse"), as pure functions over ``Item`` rows."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

FRESH_TAIL_COUNT = 32
"""The last N context items (messages or summaries) are protected."""
LEAF_MIN_FANOUT = 8
"""A leaf summary covers at least this many messages."""
LEAF_CHUNK_TOKENS = 20_000
"""A leaf chunk accumulates at most about this many tokens."""
LEAF_TARGET_TOKENS = 1_200
"""A leaf summary's target: at most min(1,200, 35 % of its input)."""
SUMMARY_SHARE = 0.35
"""The leaf target is also capped at this share of the input."""
L3_BYTES = 2_048
"""The deterministic fallback keeps the first 2,048 bytes of the joined contents."""


def leaf_target(input_tokens: int) -> int:
    """``min(1200, int(input · 0.35))``."""
    return min(LEAF_TARGET_TOKENS, int(input_tokens * SUMMARY_SHARE))


@dataclass(frozen=True, slots=True)
class Item:
    """One context item: a message (``depth`` is ``None``) or a summary of some depth."""

    tokens: int
    depth: int | None = None

    @property
    def is_summary(self) -> bool:
        return self.depth is not None


def leaf_chunk(items: Sequence[Item], *, force: bool = False) -> tuple[int, int] | None:
    """``compactLeaf``'s chunk: the oldest run of ≥ 8 messages outside the tail, or ``None``
    (also with fewer than 8 messages under 20,000 tokens in all). The run grows until it
    reaches 20,000, the crossing message included; a summary ends it, and a run under 8 starts
    again after it. ``force`` ignores the fresh tail (the emergency path)."""
    messages = [it for it in items if not it.is_summary]
    if len(messages) < LEAF_MIN_FANOUT and sum(m.tokens for m in messages) < LEAF_CHUNK_TOKENS:
        return None
    stop = len(items) if force else max(0, len(items) - FRESH_TAIL_COUNT)
    start, count, total = 0, 0, 0
    for i in range(stop):
        if items[i].is_summary:
            if count >= LEAF_MIN_FANOUT:
                return (start, i - 1)
            start, count, total = i + 1, 0, 0
            continue
        count += 1
        total += items[i].tokens
        if total >= LEAF_CHUNK_TOKENS:
            break
    else:
        i = stop - 1
    return (start, i) if count >= LEAF_MIN_FANOUT else None
