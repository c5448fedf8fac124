"""Import warnings in one line, and why a watched session shrank."""

from __future__ import annotations

from ctxtui.core.session.import_notes import shrink_note, warnings_line
from ctxtui.core.session.models import Message, RecordedCompaction, Session, SessionMeta


def _session(n: int, *lines: int) -> Session:
    marks = tuple(
        RecordedCompaction(message_index=0, trigger="auto", source_line=line) for line in lines
    )
    return Session(
        messages=tuple(Message(role="user", content=str(i)) for i in range(n)),
        meta=SessionMeta(recorded_compactions=marks),
    )


def test_warnings_line() -> None:
    assert warnings_line(()) == ""
    assert warnings_line(("a", "b")) == "2 import notes: a · b"
    assert warnings_line(("compact boundary at line 29",)).startswith("1 import note: compact")


def test_a_new_recorded_compaction_explains_a_shorter_list() -> None:
    assert shrink_note(_session(10), _session(12)) == ""
    assert shrink_note(_session(40, 5), _session(6, 5, 90)) == (
        "the agent compacted (auto) at line 90: the list went from 40 → 6 messages"
    )
    assert shrink_note(_session(40), _session(6)) == (
        "the file was rewritten: the list went from 40 → 6 messages"
    )


def test_recorded_compactions_are_events_with_a_count_beyond_the_listed() -> None:
    from ctxtui.core.session.import_notes import event_lines, events_summary, warnings_line

    events = [f"compacted at line {n}: 3 earlier messages replaced" for n in range(12)]
    lines = event_lines(events, listed=10)
    assert lines[0] == (
        "recorded compactions: 12 in all, the last 10 below (the earlier 2 in --json)"
    )
    assert lines[1:] == [f"recorded compaction: {e}" for e in events[2:]]
    assert event_lines(events[:1]) == [f"recorded compaction: {events[0]}"]
    assert events_summary(events[:1]) == f"last recorded compaction: {events[0]}"
    assert events_summary(events).startswith("12 recorded compactions, the last: ")
    assert warnings_line(("a note",), events[:1]) == (
        f"last recorded compaction: {events[0]} · 1 import note: a note"
    )
