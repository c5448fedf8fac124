"""An importer's state after a read, kept so that a file that grew is read from where it ended.

The JSONL formats whose importer has a ``Live`` (Claude Code, Codex, OpenAI Chat and PicoClaw
JSONL) read
their records one at a time onto a state. ``Resumable`` is that state together with the
``_jsonl.Cursor`` of the read (the end of the last complete line) and the file's first bytes
and those before the cursor, which an append leaves as they are. ``more`` reads only the
complete lines appended since; anything but an append (a file that shrank or was rewritten)
is for the caller to read whole. The state is plain Python data, so it can be stored
(``dumps``/``loads``: pickled, compressed) and a read resumed from stored bytes (``resume``):
``--watch`` keeps one in memory (``importers/watch.py``). Stored on disk, a state is not
worth it yet: pickling and loading a 64 MB session's state costs twice what reading the file
does (docs/PERFORMANCE.md, "Reading only what is read").
"""

from __future__ import annotations

import pickle
import zlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ctxtui.core.session.images import priced_images
from ctxtui.core.session.models import Message, Session
from ctxtui.importers._jsonl import Cursor, iter_records
from ctxtui.importers._reader import gc_paused
from ctxtui.importers._stream import Source, open_source

END_BYTES = 64
"""The bytes kept from each end of what was read: an append leaves both as they are."""
STATE_VERSION = 1
"""Bumped when what a state holds changes: a state of another version is not resumed."""


class Resumable:
    """A JSONL session read up to its last complete line, to go on from there.

    ``live`` is the importer's ``Live`` (records in, session out); ``cursor`` where the read
    stopped; ``head`` and ``end`` the file's first bytes and those before the cursor (a
    rewrite in place that keeps both is not noticed, as with ``tail -f``).
    """

    def __init__(self, name: str, live: Any, *, full_history: bool = False) -> None:
        self.name = name
        self.full_history = full_history
        self.live = live
        self.cursor = Cursor()
        self.head = b""
        self.end = b""
        self._priced: list[Message] | None = None
        """The priced messages, once one was priced differently from the importer's."""
        self._model: str | None = None

    @classmethod
    def start(
        cls,
        source: Source,
        format: str | None,
        *,
        full_history: bool = False,
        options: Mapping[str, Any] | None = None,
    ) -> tuple[Resumable, Session] | None:
        """The whole session, read so it can be resumed; ``None`` for what cannot be (a
        format without ``Live``, a compressed or empty file): the caller reads it whole.
        ``options`` go to the importer's ``Live`` (what a settled read needs kept)."""
        from ctxtui.core.session.formats import normalize_format
        from ctxtui.importers import detect_format, importer, other_format

        if source.size == 0 or source.is_dir:
            return None
        name = normalize_format(format) if format is not None else detect_format(source)
        live = getattr(importer(name), "Live", None)
        # ``follows`` first: it tells a format's database from its records, which
        # ``compression`` would refuse as binary data
        if live is None or not getattr(live, "follows", lambda _source: True)(source):
            return None
        if source.compression():
            return None
        made = live(full_history=full_history, **(options or {}))
        state = cls(name, made, full_history=full_history)
        session = state.more(source, always=True)
        assert session is not None
        empty = not session.messages and not session.system_prompt
        if format is None and empty and other_format(source, name):
            return None  # named like one agent's file, holding another's: read it whole
        return state, session

    def appended_to(self, source: Source) -> bool:
        """True when ``source`` holds what was read, with bytes appended (or none)."""
        return appended_to(source, self.cursor.offset, self.head, self.end)

    def more(self, source: Source, *, always: bool = False) -> Session | None:
        """The session with the complete lines appended since the last read, ``None`` when
        there were none (unless ``always``). Read with the collector paused, as
        ``load_session`` reads (``gc_paused``)."""
        before = self.cursor.offset
        live = self.live
        typed = getattr(live, "RECORD", None)
        # A Live that works on after the lines (Claude Code's chain) asks this read's stop
        # check, and keeps none after it: a state kept, or pickled, holds no caller's check.
        stops = hasattr(live, "should_stop")
        if stops:
            live.should_stop = source.should_stop
        try:
            with gc_paused():
                records = iter_records(source, live.warnings, cursor=self.cursor, typed=typed)
                live.add(records)
                return self._read_to(source, before, always=always)
        finally:
            if stops:
                live.should_stop = None

    def _read_to(self, source: Source, before: int, *, always: bool) -> Session | None:
        """The ends kept for ``appended_to``, and the session unless nothing was read."""
        offset = self.cursor.offset
        self.head = source.read_at(min(offset, END_BYTES), 0)
        self.end = source.read_at(min(offset, END_BYTES), max(0, offset - END_BYTES))
        if offset == before and not always:
            return None
        session = self.live.session(source.name, self.cursor.end_warnings())
        return self._finish(session, source.path)

    def _finish(self, session: Session, path: Path) -> Session:
        """``importers.finish``, pricing only the messages added or changed since the last
        read (all of them when the session's model changed, which prices the others)."""
        from ctxtui.importers import finished_meta, hoist_system_prompt

        low = self.live.changed_from()
        if session.meta.model != self._model:
            low = 0
        self._model = session.meta.model
        tail = session.model_copy(update={"messages": session.messages[low:]})
        priced = priced_images(tail)
        if self._priced is None and priced is tail:
            messages = session.messages  # no image priced differently, now or before
        else:
            if self._priced is None:
                self._priced = list(session.messages[:low])
            self._priced[low:] = priced.messages
            messages = tuple(self._priced)
        meta = finished_meta(session, path, self.name, self.live.dropped)
        return hoist_system_prompt(session.model_copy(update={"messages": messages, "meta": meta}))

    def dumps(self) -> bytes:
        """This state as bytes to store (pickled, then compressed: a state holds the
        session's text, which compresses well)."""
        data = pickle.dumps((STATE_VERSION, self), protocol=pickle.HIGHEST_PROTOCOL)
        return zlib.compress(data, 1)

    @staticmethod
    def loads(data: bytes) -> Resumable | None:
        """A state stored by ``dumps``; ``None`` for bytes that are not one of this version.

        Only what ctxtui itself stored in the user's own cache is ever loaded (unpickling
        runs code named by the bytes, so a state must never come from anywhere else).
        """
        try:
            version, state = pickle.loads(zlib.decompress(data))
        except Exception:  # a truncated or foreign blob is only a state that is not there
            return None
        if version != STATE_VERSION or not isinstance(state, Resumable):
            return None
        return state


def resume(
    path: Path | str,
    state: bytes | None,
    format: str | None = None,
    *,
    full_history: bool = False,
) -> tuple[Session, bytes | None]:
    """The session of ``path`` read on from ``state`` (what a read of it kept) when the file
    only grew since, else read whole; with the state to keep now (``None`` when the file is
    not one to resume).

    The session is the one ``load_session`` gives, reading only the bytes appended since the
    state was kept. Anything ``Resumable`` does not take (``PATH#ID``, a compressed file, a
    format without ``Live``, a forced format that read nothing) is ``load_session``'s.
    """
    from ctxtui.importers import importer, load_session, split_session_id

    if format is not None:
        importer(format)  # an unknown --format is said before the file is looked at
    file, session_id = split_session_id(path)
    kept = Resumable.loads(state) if state is not None else None
    if kept is not None and (kept.full_history != full_history or format not in (None, kept.name)):
        kept = None
    session: Session | None = None
    if session_id is None:
        with open_source(file) as source, gc_paused():
            if kept is not None and kept.appended_to(source):
                session = kept.more(source, always=True)
            else:
                started = Resumable.start(source, format, full_history=full_history)
                kept, session = started if started is not None else (None, None)
    if session is None or kept is None or forced_and_empty(session, format):
        return load_session(path, format, full_history=full_history), None
    return session, kept.dumps()


def appended_to(source: Source, offset: int, head: bytes, end: bytes) -> bool:
    """True when ``source`` holds the ``offset`` bytes a read took, with bytes appended (or
    none): ``head``, its first bytes, and ``end``, those before ``offset``, are still there."""
    if source.is_dir or source.size < offset or source.compression():
        return False
    if source.read_at(len(head), 0) != head:
        return False
    return source.read_at(len(end), offset - len(end)) == end


def forced_and_empty(session: Session, format: str | None) -> bool:
    """A forced format that read nothing: the whole read says why (``load_session``)."""
    return format is not None and not session.messages and not session.system_prompt
