"""The retention audit: which facts of a replaced segment a compaction summary keeps.

Per fact whether the summary keeps it (its normalised key occurs in the normalised summary),
per kind kept / total, the dropped facts by salience, lines that only repeat the kept context,
and sizes. Lost and ``needed after`` (used again later) is the headline (docs/retention.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import Any, Literal

from ctxtui.core.session.models import Message, Session
from ctxtui.core.summaries.segment_facts import (
    FACT_CHARS,
    KINDS,
    SEGMENT_CHARS,
    Fact,
    normalise,
    segment_facts,
    used_text,
    words_of,
)

Source = Literal["recorded", "stand-in", "llm", "simulated"]
AFTER_CHARS = 131_072
"""The messages after a compaction are read up to this many characters for facts used again:
what the agent did next (some 30k tokens), not the rest of a long session."""
DUPLICATE_MIN_CHARS = 24
"""A summary line shorter than this (a heading, "(none)") is never counted as duplicated."""
SALIENCE_NEEDED, SALIENCE_USER, SALIENCE_REPEATED = 4, 2, 1
"""Salience adds these: used again after the compaction (the agent needed it), typed by the
user, mentioned more than once in the segment."""


@dataclass(frozen=True, slots=True)
class After:
    """What the messages after a compaction say, normalised: their text and their words (a
    one-word fact is used again when the word comes back, a longer one when its text does)."""

    text: str = ""
    words: frozenset[str] = frozenset()

    @classmethod
    def of(cls, messages: Sequence[Message], budget: int = AFTER_CHARS) -> After:
        text = used_text(messages, budget)
        return cls(text, words_of(text))

    def uses(self, fact: Fact) -> bool:
        key = fact.key
        if " " in key or ":" in key:
            return key in self.text
        return key in self.words


@dataclass(frozen=True, slots=True)
class Retained:
    """One fact, whether the summary kept it and whether the agent used it again."""

    fact: Fact
    kept: bool
    needed_after: bool

    @property
    def salience(self) -> int:
        f = self.fact
        return (
            SALIENCE_NEEDED * self.needed_after
            + SALIENCE_USER * f.by_user
            + SALIENCE_REPEATED * (f.mentions > 1)
        )


@dataclass(frozen=True, slots=True)
class Reading:
    """What a replaced range is audited against and how far each part is read: the messages
    ``after`` it (their first ``after_chars`` characters, for their use), what its compaction
    ``kept``, and the range's own newest ``chars`` characters (for its facts)."""

    after: Sequence[Message] = ()
    kept: Sequence[str] = ()
    chars: int = SEGMENT_CHARS
    after_chars: int = AFTER_CHARS


ALONE = Reading()


@dataclass(frozen=True, slots=True)
class Segment:
    """A replaced range with its facts and what came after it, shared by every summary of it."""

    first: int
    last: int
    tokens: int
    facts: tuple[Fact, ...]
    after: After
    kept_context: str = ""  # normalised: the system prompt and what the compaction kept

    @classmethod
    def of(
        cls,
        session: Session,
        first: int,
        last: int,
        tokens: int,
        reading: Reading = ALONE,
    ) -> Segment:
        """``messages[first:last + 1]`` (``tokens`` of them) with its facts, read as
        ``reading`` says against what came after it and what its compaction kept."""
        prompt = _normalised_prompt(session.system_prompt or "")
        kept = (normalise(k) for k in reading.kept)
        context = "\n".join(t for t in (prompt, *kept) if t)
        facts = segment_facts(session, first, last, reading.chars)
        after = After.of(reading.after, reading.after_chars)
        return cls(first, last, tokens, facts, after, context)


@lru_cache(maxsize=8)
def _normalised_prompt(prompt: str) -> str:
    """A system prompt normalised once, not once per compaction of its session."""
    return normalise(prompt)


@dataclass(frozen=True)
class Audit:
    """One summary of one segment, audited."""

    source: Source
    request: int | None
    segment: Segment
    summary_tokens: int
    retained: tuple[Retained, ...]
    duplicated_lines: int

    @cached_property
    def kinds(self) -> dict[str, tuple[int, int]]:
        """Kind → (kept, total), every kind present (0 of 0 when the segment has none)."""
        out = {k: [0, 0] for k in KINDS}
        for r in self.retained:
            row = out[r.fact.kind]
            row[0] += r.kept
            row[1] += 1
        return {k: (v[0], v[1]) for k, v in out.items()}

    @property
    def kept(self) -> int:
        return sum(r.kept for r in self.retained)

    @cached_property
    def dropped(self) -> tuple[Retained, ...]:
        """Facts the summary lost, the most salient first, then the oldest."""
        lost = (r for r in self.retained if not r.kept)
        return tuple(sorted(lost, key=lambda r: (-r.salience, -r.fact.mentions,
                                                 r.fact.message_index)))  # fmt: skip

    @property
    def needed_after(self) -> tuple[int, int]:
        """(kept, total) of the facts the messages after the compaction used again."""
        needed = [r for r in self.retained if r.needed_after]
        return sum(r.kept for r in needed), len(needed)

    @property
    def needed_and_lost(self) -> int:
        kept, total = self.needed_after
        return total - kept

    def listed(self, per_kind: int) -> tuple[Retained, ...]:
        """The dropped facts, most salient first, at most ``per_kind`` of each kind."""
        seen: dict[str, int] = {}
        out: list[Retained] = []
        for r in self.dropped:
            n = seen.get(r.fact.kind, 0)
            if n < per_kind:
                out.append(r)
            seen[r.fact.kind] = n + 1
        return tuple(out)

    def block(self, per_kind: int | None = None) -> dict[str, Any]:
        """The ``retention`` block of ``ctxtui.retention/2`` (with ``per_kind``: at most that
        many dropped facts of each kind listed, and how many more were not) and of ``replay
        --json`` (without: every dropped fact, as ``ctxtui.retention/1`` had it)."""
        seg = self.segment
        kept, total = self.needed_after
        dropped = self.dropped if per_kind is None else self.listed(per_kind)
        block = {
            "source": self.source,
            "request": self.request,
            "replaced": {"from": seg.first, "to": seg.last, "tokens": seg.tokens},
            "summary_tokens": self.summary_tokens,
            "kinds": {k: {"kept": v[0], "total": v[1]} for k, v in self.kinds.items()},
            "dropped": [
                {
                    "kind": r.fact.kind,
                    "text": r.fact.text,
                    "message_index": r.fact.message_index,
                    "salience": r.salience,
                    "needed_after": r.needed_after,
                }
                for r in dropped
            ],
            "needed_after": {"kept": kept, "total": total},
            "duplicated_lines": self.duplicated_lines,
        }
        if per_kind is not None:
            block["dropped_per_kind"] = per_kind
            block["dropped_unlisted"] = len(self.dropped) - len(dropped)
        return block


def audit(
    segment: Segment,
    summary: str,
    source: Source,
    summary_tokens: int,
    request: int | None = None,
) -> Audit:
    """Audit ``summary`` as the stand-in for ``segment``."""
    text = normalise(summary)
    retained = tuple(Retained(f, keeps(text, f), segment.after.uses(f)) for f in segment.facts)
    return Audit(source, request, segment, summary_tokens, retained,
                 duplicated_lines(summary, segment.kept_context))  # fmt: skip


def keeps(summary: str, fact: Fact) -> bool:
    """Whether the normalised ``summary`` holds the fact; a path may be named from its
    project down (``docs/x.rst`` keeps ``/home/dev/p/docs/x.rst``), at least two parts deep."""
    if fact.key in summary:
        return True
    if fact.kind != "path" or not fact.key.startswith(("/", "~/", "../")):
        return False
    parts = fact.key.split("/")
    return any("/".join(parts[i:]) in summary for i in range(1, len(parts) - 1))


def duplicated_lines(summary: str, kept_context: str) -> int:
    """Summary lines (not headings, at least ``DUPLICATE_MIN_CHARS`` long) that repeat a line
    before them or text the kept context holds."""
    seen: set[str] = set()
    count = 0
    for raw in summary.splitlines():
        line = normalise(raw[: FACT_CHARS * 4]).lstrip("-*• ")
        if len(line) < DUPLICATE_MIN_CHARS or line.startswith("#"):
            continue
        if line in seen or line in kept_context:
            count += 1
        seen.add(line)
    return count


def headline(audits: Sequence[Audit], *, so_far: bool = False) -> str:
    """One line for a session bar: the last recorded compaction's needed-after losses;
    ``so_far`` while the agent is still writing, whose next messages may need more."""
    recorded = [a for a in audits if a.source == "recorded"]
    if not recorded:
        return ""
    last = recorded[-1]
    kept, total = last.needed_after
    line = f"last compaction lost {total - kept:,} of {total:,} facts needed after it"
    return f"{line} so far" if so_far else line
