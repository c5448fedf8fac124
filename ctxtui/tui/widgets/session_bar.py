"""The session bar: which file, format and tokenizer (and any fallback), how many messages.

Beside the figures it says what a newcomer would otherwise miss: messages the source hides
from the active history (PicoClaw's meta ``skip``), a tokenizer the user chose that a preset
change kept, an estimator that is more than 10 % off the exact count of this session, and
on a row of its own what the importer left out or hid (``SessionMeta.warnings``).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import PurePath
from typing import ClassVar

from rich.console import RenderableType
from rich.text import Text
from textual.widget import Widget

from ctxtui.core.literal import visible
from ctxtui.core.planning.plan import Plan
from ctxtui.core.policies.preset_choice import FROM_TRANSCRIPT
from ctxtui.core.session.import_notes import warnings_line
from ctxtui.core.session.models import Session
from ctxtui.core.wording import plural
from ctxtui.tui.cells import flow, shorten_name
from ctxtui.tui.widgets.theme_style import component_style

BEFORE_NEWEST = "(before the newest records)"
"""Said after a watched file's dollars while its grown history is not priced yet."""


class SessionBar(Widget):
    """One line naming what is on screen; the file *name* only, so screenshots leak no paths."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "session-bar--name",
        "session-bar--label",
        "session-bar--warning",
    }

    DEFAULT_CSS = """
    SessionBar {
        height: auto;
        padding: 0 1;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._session: Session | None = None
        self._plan: Plan | None = None
        self._status = "loading…"
        self._undo_depth = 0
        self._kept_tokenizer = ""
        self._estimate = ""
        self._retention = ""
        self._preset_origin = ""
        self._cost = ""
        self._cost_before_newest = False  # a watched file grew since ``_cost`` was priced
        self._compact = False
        self._configured = ""
        self._observed = ""
        self._verdict = ""

    def set_compact(self, compact: bool) -> None:
        """On a short screen (80×24) the notes (the estimator's drift, what the last
        compaction lost, the recorded compactions and import notes, the configured values'
        origins and the observed trigger's verdict) share one row, cut to the width, so the
        list keeps its rows (the screen decides when)."""
        if compact != self._compact:
            self._compact = compact
            self.refresh(layout=True)

    def show(
        self, session: Session, plan: Plan, *, undo_depth: int = 0, preset_origin: str = ""
    ) -> None:
        """``session`` and its ``plan``; ``preset_origin`` says where the preset came from
        (``from the transcript``). The recorded dollars stay: they are the file's, through a
        compaction applied or undone (the screen clears them for another file)."""
        self._session = session
        self._plan = plan
        self._undo_depth = undo_depth
        self._preset_origin = preset_origin
        self.refresh(layout=True)

    def set_cost(self, words: str) -> None:
        """What the whole session recorded in dollars (``recorded $52.97 · $54.96 with 3
        sub-agents``), from ``core.pricing.cost_words.session_total_words``."""
        if (words, False) != (self._cost, self._cost_before_newest):
            self._cost, self._cost_before_newest = words, False
            self.refresh(layout=True)

    def grew(self) -> None:
        """The watched file grew: its dollars stay, said to come before the newest records,
        until the grown file is priced (rather than the row going and coming at each
        append)."""
        if self._cost and not self._cost_before_newest:
            self._cost_before_newest = True
            self.refresh(layout=True)

    def set_tuning(self, *, configured: str = "", observed: str = "", verdict: str = "") -> None:
        """Where the agent's configured values came from (``trigger_buffer from
        ~/.claude/settings.json``), the trigger it was seen to use (``agent compacted at
        155,001–159,897 (10 auto)``) and the verdict where they disagree; ``""``: nothing."""
        if (configured, observed, verdict) != (self._configured, self._observed, self._verdict):
            self._configured, self._observed, self._verdict = configured, observed, verdict
            self.refresh(layout=True)

    def set_notes(self, *, kept_tokenizer: str = "", estimate: str = "") -> None:
        """Why the tokenizer is not the preset's (``kept_tokenizer``), and the estimator's
        drift from the exact count (``estimate``); empty strings say nothing."""
        self._kept_tokenizer = kept_tokenizer
        self._estimate = estimate
        self.refresh(layout=True)

    def set_retention(self, note: str) -> None:
        """What the agent's last recorded compaction lost that it needed after (``""``: no
        note)."""
        self._retention = note
        self.refresh(layout=True)

    def set_status(self, status: str) -> None:
        """A short warning after the figures: how to open a file, or why the request cannot fit.

        Loading and counting progress are the busy row's (``BusyRow``), not this line's.
        """
        self._status = status
        self.refresh(layout=True)

    def render(self) -> RenderableType:
        label = component_style(self, "session-bar--label")
        warn = component_style(self, "session-bar--warning")
        session, plan = self._session, self._plan
        phrases = self._phrases(session, plan) if session is not None and plan is not None else []
        if self._status:
            phrases.append(Text(self._status, warn))
        width = self.content_region.width
        separator = Text(" · ", label)
        if not width:
            lines = [separator.join(phrases)]
        else:
            if session is not None and plan is not None:
                # The preset, then the message count, wrap to the next line before the name
                # gives way (in its middle) to hold the name, format and the rest on one line.
                first = phrases[0]
                # a short screen keeps the identity on one line: the name gives way first
                for last in (5,) if self._compact else (4, 3, 2):
                    identity = sum(p.cell_len + separator.cell_len for p in phrases[1:last])
                    if first.cell_len + identity <= width:
                        break
                phrases[0] = Text(shorten_name(first.plain, width - identity), first.style)
            lines = flow(phrases, separator, width)
        if session is not None and plan is not None and session.meta.summary:
            lines.append(self._summary_line(session.meta.summary, plan))
        if session is not None and plan is not None:
            meta = session.meta
            notes = [self._retention, self._estimate] if self._compact else []
            after = [self._configured, self._verdict] if self._compact else []
            if meta.warnings or meta.events or any(notes) or any(after):
                lines.append(self._warnings_line(meta.warnings, meta.events, notes, after))
        return Text("\n").join(lines)

    def _phrases(self, session: Session, plan: Plan) -> list[Text]:
        """The session's identity (name, format, messages, preset, tokenizer), then its notes."""
        label = component_style(self, "session-bar--label")
        warn = component_style(self, "session-bar--warning")
        meta = session.meta
        name = visible(PurePath(meta.source_path).name) if meta.source_path else "(in memory)"
        count = Text(plural(len(session), "message"))
        if meta.hidden_messages:
            count.append(f" (+{meta.hidden_messages:,} hidden by the meta's skip)", label)
        phrases = [
            Text(name, component_style(self, "session-bar--name")),
            Text(meta.format),
            count,
            Text.assemble(("preset ", label), plan.policy.preset, (self._origin_words(), label)),
            Text.assemble(("tokenizer ", label), plan.tokenizer.used),
        ]
        # The tokenizer's notes are phrases of their own: they take the next line whole
        # rather than pushing the file's name out of the first.
        if self._configured and not self._compact:  # compact, it joins the notes' row
            phrases.append(Text(self._configured, label))
        if plan.tokenizer.fell_back:
            phrases.append(
                Text(plan.tokenizer.note or f"{plan.tokenizer.requested} unavailable", warn)
            )
        if self._kept_tokenizer:
            phrases.append(Text(self._kept_tokenizer, label))
        if self._undo_depth:
            undo = (f" (u undoes, {self._undo_depth} deep)", label)
            phrases.append(Text.assemble(("compacted", warn), undo))
        if self._cost:
            later = f" {BEFORE_NEWEST}" if self._cost_before_newest else ""
            phrases.append(Text(self._cost + later))
        if self._observed:  # compact, the verdict joins the notes' row
            verdict = f": {self._verdict}" if self._verdict and not self._compact else ""
            phrases.append(Text(self._observed + verdict, label))
        if not self._compact:  # compact, they join the notes' row
            phrases += [Text(note, warn) for note in (self._estimate, self._retention) if note]
        return phrases

    def _origin_words(self) -> str:
        """``, from the transcript``: where the preset came from; a short screen says it
        only when the transcript chose (the user knows what they typed or set)."""
        origin = self._preset_origin
        if not origin or (self._compact and origin != FROM_TRANSCRIPT):
            return ""
        return f", {origin}"

    def _warnings_line(
        self,
        warnings: tuple[str, ...],
        events: tuple[str, ...],
        notes: Sequence[str] = (),
        after: Sequence[str] = (),
    ) -> Text:
        """The agent's recorded compactions and what the importer left out or hid
        (sub-agents, skipped lines), between any ``notes`` and ``after``, on a row of its
        own, cut to the width: ``report`` prints them whole."""
        line = Text(no_wrap=True, overflow="ellipsis", end="")
        imported = visible(warnings_line(warnings, events))
        words = " · ".join(w for w in (*notes, imported, *after) if w)
        line.append(words, component_style(self, "session-bar--warning"))
        line.truncate(max(self.content_region.width, 20), overflow="ellipsis")
        return line

    def _summary_line(self, summary: str, plan: Plan) -> Text:
        """The source's own summary as a row of its own (PicoClaw keeps it in the meta file,
        not among the messages): its tokens and its first words, literally, on one line."""
        line = Text(no_wrap=True, overflow="ellipsis", end="")
        line.append("meta summary", component_style(self, "session-bar--name"))
        line.append(
            f" · {plan.totals.summary:,} tok · ", component_style(self, "session-bar--label")
        )
        line.append(visible(summary))
        line.truncate(max(self.content_region.width, 20), overflow="ellipsis")
        return line
