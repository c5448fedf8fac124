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
