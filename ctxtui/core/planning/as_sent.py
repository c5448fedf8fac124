"""What each message costs in the request, as sent: the figure a row shows and what it left out.

A row shows what the request carries after truncation and pruning (``effective_tokens``), so a
zone's rows add up to its part of the gauge; the stored size and the tokens freed are its tag.
"""

from __future__ import annotations

from dataclasses import dataclass

from ctxtui.core.planning.plan import Plan
from ctxtui.core.planning.rows import MINUS
from ctxtui.core.wording import plural


@dataclass(frozen=True, slots=True)
class RowFigures:
    """One message's tokens: as sent, as stored, and what truncation and pruning freed."""

    index: int
    sent: int
    original: int
    pruned: bool
    truncated: bool

    @property
    def freed(self) -> int:
        """Tokens the request no longer carries for this message (0 when it is sent whole;
        negative when a truncation notice outweighs the output it stands for)."""
        return self.original - self.sent

    @property
    def change(self) -> str:
        """What shrank it, as the tag's first word: ``pruned``, ``truncated``, or nothing."""
        if self.pruned:
            return "pruned"
        return "truncated" if self.truncated else ""

    def tag(self) -> str:
        """The row's tag: ``pruned · was 13,044 · −13,026 tok``, or ``""`` when sent whole."""
        if not self.change:
            return ""
        sign = MINUS if self.freed >= 0 else "+"
        return f"{self.change} · was {self.original:,} · {sign}{abs(self.freed):,} tok"

    def tags(self) -> tuple[str, ...]:
        """The tag in shorter forms, longest first: ``pruned · was 13,044 · −13,026 tok``,
        ``pruned −13,026``, ``pruned``; a narrow row takes a short one so its text keeps the
        room, and the detail pane says the rest."""
        if not self.change:
            return ()
        sign = MINUS if self.freed >= 0 else "+"
        return (self.tag(), f"{self.change} {sign}{abs(self.freed):,}", self.change)

    def detail(self) -> str:
        """The detail pane's sentence with the three figures: sent, stored, freed."""
        if not self.change:
            return f"Sent whole: {plural(self.sent, 'token')}."
        how = "truncated, then pruned" if self.pruned and self.truncated else self.change
        # A tiny truncation limit can send a notice longer than the output it replaces.
        effect = "frees" if self.freed >= 0 else "adds"
        return (
            f"Sent as {plural(self.sent, 'token')} of its {self.original:,}: {how}, which "
            f"{effect} {plural(abs(self.freed), 'token')}."
        )


def row_figures(plan: Plan, index: int) -> RowFigures:
    """Message ``index``'s figures under ``plan`` (``IndexError`` outside the session)."""
    if not 0 <= index < len(plan):
        raise IndexError(f"message {index:,} is not in the plan")
    return RowFigures(
        index=index,
        sent=plan.effective_tokens[index],
        original=plan.message_tokens[index],
        pruned=index in plan.pruned,
        truncated=index in plan.truncated,
    )


def history_tokens(plan: Plan) -> int:
    """The history the planned request sends: the kept messages and the fresh tail."""
    return plan.totals.kept + plan.totals.tail
