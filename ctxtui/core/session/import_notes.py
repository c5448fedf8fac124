"""What reading a transcript left out or hid, in the words the app shows: importers word
each warning (``SessionMeta.warnings``) and each compaction the agent recorded
(``SessionMeta.events``); this module gathers them into one line for the app and into
event lines for the commands, and says what a watched file's new read changed when the
agent compacted meanwhile.
"""

from __future__ import annotations

from collections.abc import Sequence

from ctxtui.core.session.models import Session
from ctxtui.core.wording import plural

EARLIER_UNREAD = "the earlier part is still being read"
"""How a first look from a file's end (``importers.load_tail``) ends its compaction's event:
what only the earlier part says (how much the compaction hid, earlier warnings) is not in it."""
EARLIER_FAILED = "the earlier part could not be read"
"""The same event once the whole read of the file failed: the first look is all there is."""


def earlier_failed(session: Session, problem: str) -> Session:
    """``session``, a first look, once the whole read failed with ``problem``: its events
    say the earlier part could not be read, and ``problem`` joins its warnings."""
    events = tuple(e.replace(EARLIER_UNREAD, EARLIER_FAILED) for e in session.meta.events)
    warnings = (*session.meta.warnings, problem)
    meta = session.meta.model_copy(update={"events": events, "warnings": warnings})
    return session.model_copy(update={"meta": meta})


EVENTS_LISTED = 10
"""The commands' text lists this many recorded compactions, then says how many more there
were (``--json`` lists every one): a rollout can hold hundreds."""


def events_summary(events: Sequence[str]) -> str:
    """``"last recorded compaction: compact boundary at line 29: …"`` (a read from the last
    compaction on may know of no earlier one, so one event is not counted as the only one),
    or the count and the last (``"210 recorded compactions, the last: compacted at …"``);
    ``""`` without any."""
    if not events:
        return ""
    if len(events) == 1:
        return f"last recorded compaction: {events[0]}"
    return f"{plural(len(events), 'recorded compaction')}, the last: {events[-1]}"


def event_lines(events: Sequence[str], listed: int = EVENTS_LISTED) -> list[str]:
    """The agent's recorded compactions for a command's text, one line each and labelled as
    events (they are what the agent did, not a problem with the file): the last ``listed``
    of them, after a line counting the ones left out."""
    lines = [f"recorded compaction: {event}" for event in events[-listed:]]
    if len(events) > listed:
        left = f"the earlier {len(events) - listed:,} in --json"
        head = f"recorded compactions: {len(events):,} in all, the last {listed} below ({left})"
        lines.insert(0, head)
    return lines


def warnings_line(warnings: Sequence[str], events: Sequence[str] = ()) -> str:
    """``"last recorded compaction: compact boundary at line 29: … · 2 import notes: … · the
    other"``; ``""`` without any."""
    parts = [events_summary(events)] if events else []
    if warnings:
        parts.append(f"{plural(len(warnings), 'import note')}: " + " · ".join(warnings))
    return " · ".join(parts)


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
