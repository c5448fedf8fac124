"""Compact, undo and export: the main screen's flows that ask in a dialog, then work.

Each pushes a dialog (the reason, the preview, the export path) and runs
its slow step as a ``tui/jobs.py`` function in a worker that only posts messages; the
handlers here take the answers. Kept apart from ``main.py``, which lays out the panes and
routes the keys that act on them.
"""

from __future__ import annotations

from pathlib import Path

from textual import events, on

from ctxtui.core.compacting.compaction import CompactionResult
from ctxtui.core.policies.reason_effects import reason_choices
from ctxtui.core.policies.reasons import CompactReason
from ctxtui.core.session.models import Session
from ctxtui.core.wording import plural
from ctxtui.tui import jobs
from ctxtui.tui.commands import NOTHING_TO_UNDO
from ctxtui.tui.messages import CompactionReady, ExportFailed, SessionExported
from ctxtui.tui.screens.session import SessionScreen
from ctxtui.tui.state import MainState


def undone_note(compacted: int, state: MainState) -> str:
    """What undo did: the compaction taken back, the messages it brought back, and how many
    compactions are left to undo."""
    restored = len(state.session) if state.session is not None else 0
    note = (
        f"Undid the compaction: back to {plural(restored, 'message')} "
        f"(the compacted session had {compacted})."
    )
    if state.undo:
        note += f" {plural(len(state.undo), 'more compaction')} to undo."
    return note


class FlowScreen(SessionScreen):
    """A ``SessionScreen`` that compacts, undoes and exports (the main screen's keys); opening
    another file is the base's, since every view may hand back a path to open."""

    _reason_in_preview = False
    """The reason dialog was skipped: the preview offers the reason (``r``) instead."""

    def action_compact(self) -> None:
        """Preview a compaction. Under most presets the reason only labels the event, so
        the preview opens at once with the plan's reason (``r`` there changes it); where the
        reason changes what is compacted (PicoClaw after its turn limit), it is asked first."""
        if self.engine is None or self.plan is None:
            return
        post_turn = self.plan.compaction.post_turn
        choices = reason_choices(self.policy, post_turn=post_turn)
        if all(choice.labels_only for choice in choices):
            planned = self.plan.compaction.reason
            offered = [choice.reason for choice in choices]
            self._compact(planned if planned in offered else offered[0], in_preview=True)
        else:
            self._ask_reason()

    def _ask_reason(self) -> None:
        from ctxtui.tui.screens.reason import ReasonScreen

        def chosen(reason: CompactReason | None) -> None:
            if reason is not None:
                self._compact(reason, in_preview=False)

        self.app.push_screen(ReasonScreen(), chosen)

    def _compact(self, reason: CompactReason, *, in_preview: bool) -> None:
        if self.engine is None:
            return
        self._reason_in_preview = in_preview
        self._busy.start(f"compacting ({reason.value})…")
        self._run(jobs.compact, self.engine, self.policy, reason, group="compact")

    @on(CompactionReady)
    def _compaction_ready(self, event: CompactionReady) -> None:
        from ctxtui.tui.screens.compaction import CompactionPreviewScreen

        self._busy.stop()
        result: CompactionResult = event.result
        before = len(self.session) if self.session is not None else None
        engine = self.state.engine
        preview = CompactionPreviewScreen(
            result,
            messages_before=before,
            calls=event.calls,
            llm=self.llm,
            tokenizer=engine.tokenizer(self.policy) if engine is not None else None,
            audit=event.audit,
            choose_reason=self._reason_in_preview,
        )

        def decided(choice: str | None) -> None:
            if choice == "apply":
                applied = preview.session_to_apply
                self.state = self.state.applied(applied)
                self.session_changed()
                self.notify(f"Compacted: {plural(len(applied), 'message')} now.", timeout=3)
            elif choice == "export":
                self._export(preview.session_to_apply, compacted=True)
            elif choice == "reason":
                self._ask_reason()

        self.app.push_screen(preview, decided)

    def action_undo(self) -> None:
        if not self.state.undo:
            self.notify(NOTHING_TO_UNDO, timeout=3)
            return
        compacted = len(self.session) if self.session is not None else 0
        self.state = self.state.undone()
        self.session_changed()
        self.notify(undone_note(compacted, self.state), timeout=4)

    def on_key(self, event: events.Key) -> None:
        """Undo's key is dimmed while nothing is applied, so Textual runs nothing when it is
        pressed; say why rather than leave the press unanswered."""
        active = self.active_bindings.get(event.key)
        if active is not None and active.binding.action == "undo" and not active.enabled:
            event.stop()
            self.notify(NOTHING_TO_UNDO, timeout=3)

    def action_export(self) -> None:
        if self.session is not None:
            self._export(self.session, compacted=self.state.compacted)

    def _export(self, session: Session, *, compacted: bool) -> None:
        from ctxtui.tui.screens.export import ExportScreen

        default, source = self.state.export_paths(session)
        title = "Export compacted session" if compacted else "Export session"

        def chosen(path: Path | None) -> None:
            if path is not None:
                self._busy.start(f"writing {path.name}…")
                self._run(jobs.write, session, path, group="export")

        self.app.push_screen(ExportScreen(default, source, title=title), chosen)

    @on(SessionExported)
    def _exported(self, event: SessionExported) -> None:
        self._busy.stop()
        self.notify(f"Wrote {event.path} ({plural(event.messages, 'message')})", timeout=4)

    @on(ExportFailed)
    def _export_failed(self, event: ExportFailed) -> None:
        self._busy.stop()
        self._show_error(event.problem, "Could not export")
