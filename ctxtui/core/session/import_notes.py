"""What reading a transcript left out or hid, in the words the app shows: importers word
each warning (``SessionMeta.warnings``); this module gathers them into one line, and says
what a watched file's new read changed when the agent compacted meanwhile.
"""

from __future__ import annotations

from ctxtui.core.session.models import Session
from ctxtui.core.wording import plural


def warnings_line(warnings: tuple[str, ...]) -> str:
    """``"2 import notes: compact boundary at line 29: … · the other"``; ``""`` without any."""
    if not warnings:
        return ""
    return f"{plural(len(warnings), 'import note')}: " + " · ".join(warnings)


def shrink_note(before: Session, after: Session) -> str:
    """Why a watched session's new read holds fewer messages: the agent compacted (its new
    recorded compaction), or the file was rewritten; ``""`` when it did not shrink."""
    if len(after) >= len(before):
        return ""
    sizes = f"{len(before):,} → {plural(len(after), 'message')}"
    seen = {(c.source_line, c.pre_tokens) for c in before.meta.recorded_compactions}
    new = [c for c in after.meta.recorded_compactions if (c.source_line, c.pre_tokens) not in seen]
    if new:
        last = new[-1]
        how = f" ({last.trigger})" if last.trigger else ""
        at = f" at line {last.source_line:,}" if last.source_line else ""
        return f"the agent compacted{how}{at}: the list went from {sizes}"
    return f"the file was rewritten: the list went from {sizes}"
