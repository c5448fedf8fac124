"""The retention audit of a compaction the agent recorded, opened from the timeline (`a`),
the main screen (`a`) and, on a session with nothing left to compact, `c`.

The audit of the recorded compaction at the cursor (or the last one before it) is worked out
in a thread worker from the full history: the agent's summary against the messages it
replaced, with ctxtui's stand-in for the same messages named beside it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Label

from ctxtui.core.simulation.replay import Replay
from ctxtui.core.summaries.retention import Audit
from ctxtui.tui.screens.dialog import Dialog
from ctxtui.tui.widgets.retention import RetentionView


def _replay_audits(r: Replay) -> tuple[Audit, ...]:
    from ctxtui.core.simulation.retention_audits import recorded_audits

    return recorded_audits(r.session, r.policy, r.counts, r.tokenizer)


def recorded_at(audits: tuple[Audit, ...], request: int) -> tuple[Audit, Audit | None] | None:
    """The recorded audit at ``request`` or the last one before it (else the first), with the
    stand-in's audit of the same segment; ``None`` when nothing was recorded."""
    pairs = [
        (a, next((b for b in audits if b.source == "stand-in" and b.segment is a.segment), None))
        for a in audits
        if a.source == "recorded"
    ]
    if not pairs:
        return None
    before = [p for p in pairs if p[0].request is not None and p[0].request <= request]
    return before[-1] if before else pairs[0]


class RecordedAuditScreen(Dialog[None]):
    """What a recorded compaction's summary kept of the messages it replaced."""

    DEFAULT_CSS = """
    RecordedAuditScreen > #dialog {
        max-width: 120;
        height: 80%;
    }
    """
    DIALOG_ID = "audit"
    CANCEL_LABEL = "Close"
    CANCEL_NAME = "close"

    @dataclass
    class Ready(Message):
        """The audits are worked out (``None``: the session recorded no compaction)."""

        found: tuple[Audit, Audit | None] | None

    def __init__(
        self,
        replay: Replay | Callable[[], tuple[Audit, ...]],
        request: int = sys.maxsize,
        note: str = "",
        counted_by: str | None = None,
    ) -> None:
        """``replay`` (or a function returning the audits, run in the worker) and the
        request whose recorded compaction is shown (by default the last); ``note`` heads the
        title (why this audit opened instead of what was asked). ``counted_by`` names the
        tokenizer of the audit's token figures (the replay's by default), which the main
        list's may differ from."""
        super().__init__()
        self.replay = None if callable(replay) else replay
        self.audits = replay if callable(replay) else partial(_replay_audits, replay)
        replayed = replay.policy.tokenizer if not callable(replay) else None
        self.counted_by = counted_by or replayed
        self.request = request
        self.note = note
        self.found: tuple[Audit, Audit | None] | None = None
        self.done = False  # the worker has answered

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Label(f"{self.note}Recorded compaction · auditing…", id="title", markup=False)
            yield RetentionView(id="retention", empty="Reading the replaced messages…")

    def on_mount(self) -> None:
        self._audit()

    @work(thread=True, exclusive=True, group="recorded-audit", description="retention audit")
    def _audit(self) -> None:
        try:
            audits = self.audits()
        except Exception:  # an unreadable file audits as nothing recorded, said in the title
            audits = ()
        self.post_message(self.Ready(recorded_at(audits, self.request)))

    @on(Ready)
    def _ready(self, event: Ready) -> None:
        self.found, self.done = event.found, True
        title = self.query_one("#title", Label)
        if event.found is None:
            title.update(f"{self.note}No compaction recorded in this session: nothing to audit.")
            self.query_one(RetentionView).show_empty("")
            return
        recorded, stand_in = event.found
        seg = recorded.segment
        where = f"request {recorded.request + 1:,}" if recorded.request is not None else "the end"
        title.update(
            f"{self.note}Recorded compaction at {where} · replaced #{seg.first:,}–#{seg.last:,} "
            f"({seg.tokens:,} tok) with {recorded.summary_tokens:,} tok"
            + (f", counted by {self.counted_by}" if self.counted_by else "")
        )
        self.query_one(RetentionView).show(recorded, beside=stand_in)
