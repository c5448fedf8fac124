"""The retention audit of one summary as a pane: a headline, then the facts it lost.

It renders a ``core.summaries.retention.Audit`` and holds no rule of its own. The compaction preview
shows the stand-in's audit in its Lost tab and swaps in the LLM's when that summary arrives,
with the stand-in's figures beside it. The timeline shows a recorded compaction's audit.
Every fact is shown literally (``Text``, never markup); the core has already removed escapes
and cut each fact to one line.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import DataTable, Static

from ctxtui.core.summaries.retention import Audit
from ctxtui.core.summaries.segment_facts import KINDS

FACT_WIDTH = 60
"""The fact column's width in cells; a longer fact is cut with an ellipsis (the row is one
line, and the detail is a message the user can open)."""


def headline(audit: Audit, beside: Audit | None = None) -> str:
    """``stand-in keeps 21 of 23 facts · lost 1 of the 13 used again after it`` (and the
    other's)."""
    total = len(audit.retained)
    kept_after, needed = audit.needed_after
    line = f"{audit.source} keeps {audit.kept:,} of {total:,} facts"
    if needed:
        line += f" · lost {needed - kept_after:,} of the {needed:,} used again after it"
    if beside is not None:
        line += f" (the {beside.source} kept {beside.kept:,}, lost {beside.needed_and_lost:,})"
    return line


def per_kind(audit: Audit) -> str:
    """``path 5/5 · error 5/6 · …`` for the kinds the segment has."""
    kinds = audit.kinds
    return " · ".join(f"{k} {kinds[k][0]}/{kinds[k][1]}" for k in KINDS if kinds[k][1])


class RetentionView(Vertical):
    """A headline, the kept/total per kind, and a table of the lost facts, most salient first;
    the fact comes last, so that at 80 columns its start and the short columns all show."""

    DEFAULT_CSS = """
    RetentionView {
        height: 1fr;
    }
    RetentionView #retention-headline {
        padding: 0 1;
        text-style: bold;
        height: auto;
    }
    RetentionView #retention-kinds {
        padding: 0 1;
        color: $text-muted;
        height: auto;
    }
    RetentionView DataTable {
        height: 1fr;
        margin-top: 1;
    }
    RetentionView #retention-none {
        padding: 1 1;
        height: auto;
    }
    """

    def __init__(
        self,
        audit: Audit | None = None,
        *,
        empty: str = "No summary to audit: nothing is replaced.",
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self.audit = audit
        self.beside: Audit | None = None
        self.empty = empty  # the headline while there is no audit

    def compose(self) -> ComposeResult:
        yield Static("", id="retention-headline", markup=False)
        yield Static("", id="retention-kinds", markup=False)
        table: DataTable[Text] = DataTable(
            id="retention-lost", cursor_type="row", zebra_stripes=True
        )
        table.add_column("kind", key="kind")
        table.add_column("from", key="from")
        table.add_column("needed after?", key="needed")
        table.add_column("fact", key="fact", width=FACT_WIDTH)
        yield table
        yield Static("", id="retention-none", markup=False)

    def on_mount(self) -> None:
        self._fill()

    def show(self, audit: Audit, beside: Audit | None = None) -> None:
        """Show ``audit``; ``beside`` (the summary it replaces on screen) is named in the
        headline for comparison."""
        self.audit, self.beside = audit, beside
        if self.is_mounted:
            self._fill()

    def show_empty(self, line: str) -> None:
        """No audit: ``line`` instead."""
        self.audit, self.empty = None, line
        if self.is_mounted:
            self._fill()

    def _fill(self) -> None:
        headline_text = self.query_one("#retention-headline", Static)
        kinds = self.query_one("#retention-kinds", Static)
        table: DataTable[Text] = self.query_one("#retention-lost", DataTable)
        table.clear()
        audit = self.audit
        none = self.query_one("#retention-none", Static)
        if audit is None:
            headline_text.update(self.empty)
            kinds.update("")
            none.display = table.display = False
            return
        headline_text.update(Text(headline(audit, self.beside)))
        none.update("Nothing lost: the summary keeps every fact found." if audit.retained else "")
        none.display = not audit.dropped
        table.display = bool(audit.dropped)
        kinds.update(Text(per_kind(audit) or "no facts found in the replaced messages"))
        for r in audit.dropped:
            f = r.fact
            fact = Text(f.text, no_wrap=True, overflow="ellipsis")
            fact.truncate(FACT_WIDTH, overflow="ellipsis")
            table.add_row(
                Text(f.kind),
                Text(f"#{f.message_index:,} {f.role}"),
                Text("yes" if r.needed_after else ""),
                fact,
            )
