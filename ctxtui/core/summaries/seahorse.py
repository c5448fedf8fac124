"""PicoClaw seahorse's constants and its leaf and condensed chunk selection.

The figures are in docs/presets.md, "picoclaw-seahorse".

One home for the numbers (they were literals in two modules before), and the selection rules
as pure functions over ``Item`` rows, so the compaction and the tests share them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

FRESH_TAIL_COUNT = 32
"""The last N context items (messages or summaries) are protected."""
LEAF_MIN_FANOUT = 8
"""A leaf summary covers at least this many messages."""
CONDENSED_MIN_FANOUT = 4
"""The fallback condensed selector takes this many summaries of one depth."""
LEAF_CHUNK_TOKENS = 20_000
"""A leaf chunk (and a condensed chunk) accumulates at most about this many tokens."""
LEAF_TARGET_TOKENS = 1_200
"""A leaf summary's target: at most min(1,200, 35 % of its input)."""
CONDENSED_TARGET_TOKENS = 2_000
"""A condensed summary's target, and the smallest condensed chunk."""
SUMMARY_SHARE = 0.35
"""Both targets are also capped at this share of the input."""
L3_BYTES = 2_048
"""The deterministic fallback keeps the first 2,048 bytes of the joined contents."""


def leaf_target(input_tokens: int) -> int:
    """``min(1200, int(input · 0.35))``."""
    return min(LEAF_TARGET_TOKENS, int(input_tokens * SUMMARY_SHARE))


def condensed_target(input_tokens: int) -> int:
    """``min(2000, int(input · 0.35))``."""
    return min(CONDENSED_TARGET_TOKENS, int(input_tokens * SUMMARY_SHARE))


@dataclass(frozen=True, slots=True)
class Item:
    """One context item: a message (``depth`` is ``None``) or a summary of some depth."""

    tokens: int
    depth: int | None = None

    @property
    def is_summary(self) -> bool:
        return self.depth is not None


def leaf_chunk(items: Sequence[Item], *, force: bool = False) -> tuple[int, int] | None:
    """``compactLeaf``'s chunk: the oldest run of ≥ 8 messages outside the tail, or ``None``.

    Nothing happens with fewer than 8 messages and under 20,000 message tokens in all. The run
    grows until its sum reaches 20,000 (the crossing message included); a summary ends it, and
    a run shorter than 8 messages then starts again after the summary. ``force`` ignores the
    fresh tail (the emergency path).
    """
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


def oldest_chunk_at_depth(items: Sequence[Item], depth: int) -> tuple[int, int] | None:
    """``selectOldestChunkAtDepth``: consecutive depth-``depth`` summaries from the first item.

    The scan stops at the fresh tail, a message, another depth, or when the next summary would
    take the chunk over 20,000 tokens; a chunk under 2,000 tokens does not count.
    """
    stop = max(0, len(items) - FRESH_TAIL_COUNT)
    first = next((i for i in range(stop) if items[i].depth == depth), None)
    if first is None:
        return None
    total, last = 0, first - 1
    for i in range(first, stop):
        if items[i].depth != depth or total + items[i].tokens > LEAF_CHUNK_TOKENS:
            break
        total, last = total + items[i].tokens, i
    if last < first or total < CONDENSED_TARGET_TOKENS:
        return None
    return (first, last)


def condensed_sources(items: Sequence[Item]) -> list[int] | None:
    """``compactCondensed``'s sources: a chunk at the shallowest depth, else the fallback.

    The fallback takes the first 4 summaries (not necessarily adjacent) at the shallowest depth
    that has 4 outside the fresh tail.
    """
    stop = max(0, len(items) - FRESH_TAIL_COUNT)
    depths = sorted({it.depth for it in items[:stop] if it.depth is not None})
    for depth in depths:
        chunk = oldest_chunk_at_depth(items, depth)
        if chunk is not None:
            return list(range(chunk[0], chunk[1] + 1))
    for depth in depths:
        at = [i for i in range(stop) if items[i].depth == depth]
        if len(at) >= CONDENSED_MIN_FANOUT:
            return at[:CONDENSED_MIN_FANOUT]
    return None


def condensed_depth(items: Sequence[Item], sources: Sequence[int]) -> int:
    """A condensed summary's depth: one more than its deepest source."""
    return max(items[i].depth or 0 for i in sources) + 1


# -- what Assemble adds to the system prompt --------------------------------------------

MULTI_LEVEL_LINES: tuple[str, ...] = (
    "Your context has been heavily compressed through multi-level summarization.",
    "Do NOT assert specific facts (commands, SHAs, paths, timestamps) from summaries without "
    "expanding.",
    "When uncertain, use expand tools to recover the details.",
    "Tool escalation: grep → describe → expand",
)
"""The lines seahorse's warning is known to hold (its full wording is not reproduced)."""
SOME_SUMMARIZED = (
    "Some earlier messages have been summarized. Use expand tools to recover details if needed."
)


@dataclass(frozen=True, slots=True)
class SummaryNode:
    """A summary as seahorse renders it into the system prompt."""

    id: str
    kind: str  # "leaf" or "condensed"
    depth: int
    descendant_count: int
    content: str
    earliest_at: str | None = None  # RFC 3339, omitted when unset
    latest_at: str | None = None
    parents: tuple[str, ...] = ()


def _escape(text: str) -> str:
    """Go's ``html.EscapeString``: ``& < > " '``."""
    return (
        text.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace('"', "&#34;")
        .replace("'", "&#39;")
    )


def format_summary_xml(node: SummaryNode) -> str:
    """``FormatSummaryXML``: the summary element, its escaped content, a condensed one's parents."""
    attrs = (
        f'id="{node.id}" kind="{node.kind}" depth="{node.depth}" '
        f'descendant_count="{node.descendant_count}"'
    )
    if node.earliest_at:
        attrs += f' earliest_at="{node.earliest_at}"'
    if node.latest_at:
        attrs += f' latest_at="{node.latest_at}"'
    lines = [f"<summary {attrs}>", "  <content>", f"    {_escape(node.content)}", "  </content>"]
    if node.kind == "condensed" and node.parents:
        lines.append("  <parents>")
        lines.extend(f'    <summary_ref id="{p}" />' for p in node.parents)
        lines.append("  </parents>")
    lines.append("</summary>")
    return "\n".join(lines)


def render_summaries(nodes: Sequence[SummaryNode]) -> str:
    """The ``Summary`` string ``Assemble`` returns: the nodes, then the system-prompt addition."""
    if not nodes:
        return ""
    body = "\n\n".join(format_summary_xml(n) for n in nodes)
    condensed = sum(n.kind == "condensed" for n in nodes)
    if max(n.depth for n in nodes) >= 2 or condensed >= 2:
        note = "\n".join(MULTI_LEVEL_LINES)
    else:
        note = SOME_SUMMARIZED
    return f"{body}\n\n{note}"
