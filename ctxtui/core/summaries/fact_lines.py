"""The stand-in summary's fact lines: what the retention audit values, in a few compact lines.

The sections keep the newest bullets; the facts a reader needs (files, tests, commands,
errors, names, links, figures) are often older. One line per kind lists the facts the sections
do not name, most salient first (typed by the user, mentioned most, newest), within
``LINE_CHARS``.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass

from ctxtui.core.session.models import Message, Session
from ctxtui.core.summaries.segment_facts import Fact, normalise, segment_facts

FACT_SCAN_CHARS = 16_384
"""The fact lines read the newest 16 KiB of the range (the last few turns): the facts a
summary most needs are the recent ones."""
LINE_CHARS = 240
"""A fact line's list is cut at this many characters (about 60 tokens): seven lines cost at
most ~420 tokens, well inside the 1,200-token summary the plan's prompt asks for."""
SHARE = 0.35
"""The whole summary may take this share of the text it replaces (seahorse's leaf target,
``SUMMARY_SHARE``); the fact lines get what the sections leave of it, one line at least."""

LINES: tuple[tuple[str, str], ...] = (
    ("path", "Files"),
    ("test", "Tests"),
    ("error", "Errors"),
    ("instruction", "Asked"),
    ("command", "Commands"),
    ("identifier", "Names"),
    ("url", "Links"),
    ("number", "Figures"),
)
"""Each kind of fact a line lists, and the line's label, in the order they are written."""


@dataclass(frozen=True, slots=True)
class FactLine:
    """One line: its label, the facts it names, how many more were left out, the newest
    message one of them came from (its citation)."""

    label: str
    facts: tuple[str, ...]
    more: int
    index: int

    @property
    def text(self) -> str:
        listed = "; ".join(self.facts)
        return f"{self.label}: {listed}" + (f" (+{self.more:,} more)" if self.more else "")


def _rank(facts: Sequence[Fact]) -> list[Fact]:
    return sorted(facts, key=lambda f: (not f.by_user, -f.mentions, -f.message_index))


def room(span: Sequence[tuple[int, Message]], written: str) -> int:
    """Characters the fact lines may take: the summary's share of the text it replaces (the
    newest messages of ``span`` are summed until that share is enough for every line), less
    what the sections wrote; one line at least, all lines at most."""
    most = LINE_CHARS * len(LINES)
    enough = (most + len(written)) / SHARE
    replaced = 0
    for _, m in reversed(span):
        replaced += len(m.content)
        if replaced >= enough:
            break
    left = int(replaced * SHARE) - len(written)
    return min(max(left, LINE_CHARS), most)


def fact_lines(
    session: Session, first: int, last: int, written: str, chars: int
) -> tuple[FactLine, ...]:
    """The lines for ``messages[first:last + 1]``, leaving out what ``written`` (the rest of
    the summary) already names, in at most ``chars`` characters; facts are read from the
    range's newest ``FACT_SCAN_CHARS`` characters."""
    said = normalise(written)
    found = segment_facts(session, first, last, FACT_SCAN_CHARS, instructions_before=False)
    facts = [f for f in found if f.key not in said]
    out: list[FactLine] = []
    for kind, label in LINES:
        ranked = _rank([f for f in facts if f.kind == kind])
        chosen: list[Fact] = []
        size = 0
        for f in ranked:
            cost = len(f.text) + 2
            if chosen and (size + cost > LINE_CHARS or cost > chars):
                break
            if cost > chars:
                return tuple(out)
            chosen.append(f)
            size += cost
            chars -= cost
        if chosen:
            newest = max(f.message_index for f in chosen)
            texts = tuple(f.text for f in chosen)
            out.append(FactLine(label, texts, len(ranked) - len(chosen), newest))
    return tuple(out)


def held(session: Session, first: int, last: int) -> str:
    """What a replaced range held, by role: ``3 user, 5 assistant, 4 tool results`` (found by
    bisection in the session's index, so a long range costs nothing)."""
    index = session.index

    def within(positions: Sequence[int]) -> int:
        return bisect_right(positions, last) - bisect_left(positions, first)

    users, results = within(index.turn_starts), within(index.tool_results)
    replies = within(index.requests)
    others = last - first + 1 - users - results - replies
    parts = [(users, "user"), (replies, "assistant"), (results, "tool results"), (others, "other")]
    return ", ".join(f"{n:,} {word}" for n, word in parts if n)
