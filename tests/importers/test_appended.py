"""A Claude Code or Codex history read on from its settled messages
(``importers.appended``) holds the messages a whole read has from there on, for every split
of the file into what was read and what was appended (hypothesis over the split points)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ctxtui.core.session.models import Message
from ctxtui.importers import load_session
from ctxtui.importers.appended import Settled, read_appended, read_settled
from tests.generated import growing_transcripts, line_end

SOURCES = {
    name: raw
    for name, raw in growing_transcripts().items()
    if name in ("generated", "codex-generated", "codex-replay", "compacted", "replay")
}


def _shown(m: Message) -> tuple[object, ...]:
    """What the figures read of a message (a tool result's name is only known to a read
    that saw its call, which may lie before the settled messages)."""
    return (m.role, m.content, m.usage, m.created_at, m.is_summary, m.injected, m.model)


@pytest.mark.parametrize("name", sorted(SOURCES))
@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(first=st.floats(0.05, 1.0), more=st.floats(0.0, 1.0))
def test_the_history_read_on_is_the_whole_reads_from_the_settled_message(
    tmp_path: Path, name: str, first: float, more: float
) -> None:
    raw = SOURCES[name]
    path = tmp_path / "s.jsonl"
    start = line_end(raw, int(first * (len(raw) - 1)))
    path.write_bytes(raw[:start])
    found = read_settled(path, None)
    assert found is not None
    history, kept = found
    assert [_shown(m) for m in history.messages] == [
        _shown(m) for m in load_session(path, full_history=True).messages
    ]
    if kept is None:
        return
    assert Settled.loads(kept.dumps()) == kept
    path.write_bytes(raw[: line_end(raw, start + int(more * (len(raw) - start)))])
    read_on = read_appended(path, kept)
    if read_on is None:
        return
    part, _ = read_on
    whole = load_session(path, full_history=True)
    assert [_shown(m) for m in part.messages] == [
        _shown(m) for m in whole.messages[kept.messages :]
    ]


def test_a_cut_line_is_left_for_a_whole_read(tmp_path: Path) -> None:
    """A last line without its newline is read by a whole read and waited for by a cursor:
    neither a state nor a read on is made of it."""
    raw = SOURCES["generated"]
    path = tmp_path / "s.jsonl"
    half = line_end(raw, len(raw) // 2)
    path.write_bytes(raw[:half])
    found = read_settled(path, None)
    assert found is not None and found[1] is not None
    path.write_bytes(raw[: line_end(raw, half + 10) - 1])
    assert read_appended(path, found[1]) is None
    assert read_settled(path, None) is None


def test_bytes_that_are_not_a_state_are_none() -> None:
    assert Settled.loads(b"\x93not a state") is None
    assert Settled.loads(b"") is None
