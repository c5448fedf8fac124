"""Reading only what was appended to a transcript read before, from a small stored state.

``--watch`` keeps its importer's whole state in memory (``importers.resume``); stored on disk
that state costs more to load than the file does to read. A history can instead be read on
from a *settled* place: a message no append can change as long as the records appended
hang from its chain (``_claude_settled`` says when for Claude Code). ``Settled`` is what a
later read needs: where the read ended, the file's first bytes and those before that end
(an append leaves both as they are), how many messages were settled, and the format's own
marks. ``read_appended`` gives the history from the settled message on, the messages
before it being the ones read before; the fleet index adds the two (``core.fleet.Tally``).
Formats without a settle rule, and anything but an append, are read whole by the caller.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec

from ctxtui.core.session.models import Session
from ctxtui.importers import _claude_settled, _codex_settled
from ctxtui.importers._jsonl import Cursor
from ctxtui.importers._reader import gc_paused
from ctxtui.importers._stream import Source, open_source
from ctxtui.importers.resume import END_BYTES, Resumable, appended_to, forced_and_empty

VERSION = 2
"""Bumped when what a state holds changes: a state of another version is not used."""


class Settled(msgspec.Struct, frozen=True, array_like=True):
    """A full-history read, settled at message ``messages`` (see the module)."""

    version: int
    format: str
    offset: int
    """Bytes read: up to the end of the last complete line."""
    lines: int
    head: bytes
    end: bytes
    messages: int
    """The messages read that no append changes: the history's first ``messages``."""
    left: int
    """JSON values the reader may still read (``_jsonl.MAX_RECORDS`` for the whole file)."""
    marks: bytes
    """The format's own (``_claude_settled.Marks``), encoded."""

    def dumps(self) -> bytes:
        return msgspec.msgpack.encode(self)

    @staticmethod
    def loads(data: bytes) -> Settled | None:
        """A state ``dumps`` wrote, ``None`` for other bytes or another version."""
        try:
            state = msgspec.msgpack.decode(data, type=Settled)
        except (msgspec.DecodeError, msgspec.ValidationError):
            return None
        return state if state.version == VERSION else None


_Settle = Callable[[Any, Session, Any], "tuple[int, Any] | None"]
_ReadOn = Callable[[Source, Cursor, Any], "tuple[Session, Any] | None"]
_RULES: dict[str, tuple[type[Any], _Settle, _ReadOn]] = {
    "claude-code": (_claude_settled.Marks, _claude_settled.settle, _claude_settled.read_on),
    "codex": (_codex_settled.Marks, _codex_settled.settle, _codex_settled.read_on),
}
"""Per format: its marks' type, how a read is settled, how it is read on."""
_KEEP: dict[str, dict[str, Any]] = {"codex": {"turns": True}}
"""What a format's ``Live`` is asked to keep for its read to be settled."""


def settled(state: Resumable, session: Session) -> Settled | None:
    """The settled state of a full-history read ``state`` just made (``Resumable.start``,
    which gave ``session``), ``None`` for a format without a settle rule or a history
    settled nowhere near its end."""
    rule = _RULES.get(state.name)
    if rule is None or not state.full_history or state.cursor.tail is not None:
        return None  # a last line without its newline: a whole read takes it, a cursor not
    found = rule[1](state.live, session, None)
    if found is None:
        return None
    k, marks = found
    return Settled(
        VERSION,
        state.name,
        state.cursor.offset,
        state.cursor.line,
        state.head,
        state.end,
        k,
        state.cursor.left,
        msgspec.msgpack.encode(marks),
    )


def read_settled(path: Path | str, format: str | None) -> tuple[Session, Settled | None] | None:
    """The full history of the file ``path`` as ``load_session`` reads it, with where it is
    settled; ``None`` for a format without a settle rule (or a file ``Resumable`` does not
    take, or one whose last line has no newline): the caller reads it as usual."""
    from ctxtui.core.session.formats import normalize_format
    from ctxtui.importers import detect_format, importer

    if format is not None:
        importer(format)  # an unknown --format is said before the file is looked at
    with open_source(Path(path)) as source:
        if source.is_dir or source.size == 0:
            return None
        name = normalize_format(format) if format is not None else detect_format(source)
        # the rule first: ``compression`` refuses a database (binary data) that only a
        # format without a rule reads
        if name not in _RULES or source.compression():
            return None
        started = Resumable.start(source, name, full_history=True, options=_KEEP.get(name))
        if started is None or started[0].cursor.tail is not None:
            return None
        state, session = started
    if forced_and_empty(session, format):
        return None
    return session, settled(state, session)


def read_appended(path: Path, kept: Settled) -> tuple[Session, Settled | None] | None:
    """The history of ``path`` from ``kept``'s settled message on, read from the stored
    seed and the lines appended since, and the state to keep now (``None`` when it is
    settled nowhere near its end); ``None`` when the file is not ``kept``'s with lines
    appended, or what was appended cannot be read on its own."""
    from ctxtui.importers import finish

    rule = _RULES.get(kept.format)
    if rule is None:
        return None
    kind, settle, read_on = rule
    try:
        marks = msgspec.msgpack.decode(kept.marks, type=kind)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None
    with open_source(path) as source, gc_paused():
        if not appended_to(source, kept.offset, kept.head, kept.end):
            return None
        cursor = Cursor(offset=kept.offset, line=kept.lines, left=kept.left)
        found = read_on(source, cursor, marks)
        if found is None or cursor.tail is not None:
            return None
        session, live = found
        offset = cursor.offset
        end = source.read_at(min(offset, END_BYTES), max(0, offset - END_BYTES))
    session = finish(session, path, kept.format, live.dropped)
    again = settle(live, session, marks) if session.messages else (0, marks)
    if again is None:
        return session, None
    k, marks = again
    state = Settled(
        VERSION,
        kept.format,
        offset,
        cursor.line,
        kept.head,
        end,
        k,
        cursor.left,
        msgspec.msgpack.encode(marks),
    )
    return session, state
