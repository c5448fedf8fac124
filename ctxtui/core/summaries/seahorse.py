"""PicoClaw seahorse's constants and its leaf chunk selection (docs/presets.md,
"picoclaw-seahorse"), as pure functions over ``Item`` rows."""

from __future__ import annotations

from collections.abc import Callable, Sequence
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


CONDENSED_MIN_FANOUT = 4
"""``selectShallowestCondensationCandidate`` merges the first 4 summaries of a depth."""
CONDENSED_TARGET_TOKENS = 2_000
"""A chunk of one depth is condensed only from this many tokens up."""


@dataclass(frozen=True, slots=True)
class Summary:
    """A summary in the live context: its text, tokens and depth (0 for a leaf)."""

    text: str
    tokens: int
    depth: int = 0


def condensed_text(texts: Sequence[str]) -> str:
    """``truncateCondensedSummaries``: the contents, each ended by a newline, cut to 2,048
    bytes, then ``[Condensed from N summaries]`` (seahorse's offline text)."""
    joined = "".join(f"{t}\n" for t in texts).encode("utf-8", "surrogatepass")[:L3_BYTES]
    text = joined.decode("utf-8", "ignore")
    return f"{text}\n[Condensed from {len(texts)} summaries]"


def condensation_candidates(summaries: Sequence[Summary], items: int) -> list[int]:
    """``compactCondensed``'s choice among the live context's summaries (the oldest
    ``len(summaries)`` of its ``items``, before the 32-item tail): the leading run of
    summaries of one depth, up to 20,000 tokens, when it holds at least 2,000
    (``selectOldestChunkAtDepth``); else the first 4 of the shallowest depth that has 4
    (``selectShallowestCondensationCandidate``); else none."""
    before_tail = min(len(summaries), max(0, items - FRESH_TAIL_COUNT))
    for depth in sorted({s.depth for s in summaries}):
        chunk: list[int] = []
        total = 0
        for i in range(before_tail):
            s = summaries[i]
            if s.depth != depth or total + s.tokens > LEAF_CHUNK_TOKENS:
                break
            chunk.append(i)
            total += s.tokens
        if total >= CONDENSED_TARGET_TOKENS:
            return chunk
    by_depth: dict[int, list[int]] = {}
    for i in range(before_tail):
        by_depth.setdefault(summaries[i].depth, []).append(i)
    for depth in sorted(by_depth):
        if len(by_depth[depth]) >= CONDENSED_MIN_FANOUT:
            return by_depth[depth][:CONDENSED_MIN_FANOUT]
    return []


def condense_once(
    summaries: Sequence[Summary], items: int, count: Callable[[str], int]
) -> list[Summary] | None:
    """One condensed pass: the candidates replaced, at the first one's place, by their
    condensed summary one level deeper (``count`` gives its tokens); ``None`` without any."""
    chosen = condensation_candidates(summaries, items)
    if not chosen:
        return None
    text = condensed_text([summaries[i].text for i in chosen])
    merged = Summary(text, count(text), max(summaries[i].depth for i in chosen) + 1)
    out = [s for i, s in enumerate(summaries) if i not in chosen]
    out.insert(chosen[0], merged)
    return out


def condensed_loop(
    summaries: Sequence[Summary], messages: int, count: Callable[[str], int], history: int
) -> list[Summary]:
    """``runCondensedLoop``: condense while a candidate exists and the context (the
    summaries' tokens plus ``history``, the messages' tokens) keeps shrinking; an iteration
    that does not shrink it ends the loop, its result kept, as in seahorse."""
    current = list(summaries)
    previous = 0
    while True:
        before = sum(s.tokens for s in current) + history
        step = condense_once(current, len(current) + messages, count)
        if step is None:
            return current
        current = step
        after = sum(s.tokens for s in current) + history
        if after >= before or (previous and after >= previous):
            return current
        previous = after
