"""Following a transcript that is still being written (an agent running now).

Agents append to their transcripts record by record, so a file being watched is usually a
valid prefix plus, at times, half a line. ``SessionWatcher.poll()`` notices that the file
changed (size, mtime or identity) and reads what changed. For the formats whose importer
reads a growing file (``Live``: Claude Code, Codex, OpenAI Chat and PicoClaw JSONL), only
the complete lines appended since the last read are read and added to the session
(``_jsonl.Cursor``), so an append costs its own bytes, not the file's; a half-written last
line waits for its newline. Any other change (a file that shrank, was replaced or rewritten
in place: a PicoClaw compaction rewrites its JSONL), a compressed file and the other formats
are read again from the start. The poll itself is one ``stat``. A file replaced by a FIFO or
a socket is said to be so and never opened (every open is non-blocking and judged by
``fstat``, should the swap land mid-read).
"""

from __future__ import annotations

import stat
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ctxtui.core.errors import ReadStoppedError, SessionLoadError, StopCheck
from ctxtui.core.session.models import Session
from ctxtui.importers._stream import Source, file_kind, open_file, open_regular
from ctxtui.importers.resume import END_BYTES, Resumable


@dataclass(frozen=True, slots=True)
class _Stamp:
    size: int
    mtime_ns: int
    inode: int
    mode: int

    @classmethod
    def of(cls, path: Path) -> _Stamp | None:
        try:
            st = path.stat()
        except OSError:
            return None
        return cls(st.st_size, st.st_mtime_ns, st.st_ino, stat.S_IFMT(st.st_mode))


class SessionWatcher:
    """Reads ``path`` again whenever it changes; safe to call ``poll`` from a worker thread.

    Two rules keep a fast-growing file from costing the CPU: in a file followed line by line,
    bytes appended since the last read are only searched for a newline, so a line still being
    written costs the bytes written, not a read of the whole file; and a read that took ``t``
    seconds is not followed by another for ``PACE × t`` seconds, so the watcher holds at most
    ``1 / (1 + PACE)`` of a core however fast the file grows. The last change is always read
    once writes pause.
    """

    def __init__(
        self,
        path: Path | str,
        format: str | None = None,
        clock: Callable[[], float] = time.monotonic,
        should_stop: StopCheck | None = None,
    ) -> None:
        self.path = Path(path)
        self.format = format
        self._clock = clock
        self.should_stop = should_stop
        """Asked as each read goes (``Source.should_stop``): a stopped read is no read."""
        self._stamp: _Stamp | None = None
        self._end_bytes = b""  # the last read's final bytes: an append leaves them alone
        self._scanned = 0  # how far past the last read the file is known to hold no newline
        self._not_before = 0.0
        self._follower: _Follower | None = None
        self._history: tuple[_Follower, Session] | None = None
        self.error: str | None = None

    def poll(self) -> Session | None:
        """The session read again if the file changed since the last poll, else ``None``.

        A read that fails (the agent is mid-rewrite, or the file vanished) leaves the last good
        session in place: ``error`` says why, and the next change is tried again.
        """
        from ctxtui.importers import split_session_id

        file, session_id = split_session_id(self.path)  # db#ses_X, session.jsonl#agent-X
        stamp = _Stamp.of(file)
        if stamp is None or stamp == self._stamp:
            if stamp is None:
                self.error = f"{self.path}: the file is gone"
            return None
        if stamp.mode not in (stat.S_IFREG, stat.S_IFDIR):  # an OpenCode storage is a directory
            self.error = f"{self.path}: no longer a regular file: it is now {file_kind(stamp.mode)}"
            return None
        if self._clock() < self._not_before:
            return None
        if self._follower is not None and self._no_new_line(file, stamp):
            return None
        started = self._clock()
        try:
            whole = session_id is not None or stamp.mode == stat.S_IFDIR
            session = self._read(file, whole=whole)
        except SessionLoadError as err:
            self.error = str(err)
            self._follower = None
            return None
        except ReadStoppedError:  # the caller stopped wanting it: half a read keeps no state
            self._follower = None
            return None
        except OSError as err:  # a read that failed mid-way (an I/O error, a file cut short)
            self.error = f"{self.path}: cannot read the file ({err.strerror or err})"
            self._follower = None
            return None
        finally:
            ended = self._clock()
            self._not_before = ended + PACE * (ended - started)
        # A write may have landed while reading; the stamp from before the read makes the
        # next poll read again rather than miss it.
        self._stamp, self.error = stamp, None
        self._end_bytes, self._scanned = _end_bytes(file, stamp), stamp.size
        return session

    def _read(self, file: Path, *, whole: bool) -> Session | None:
        """The session read again, or ``None`` when no complete line was appended: from where
        the last read stopped when the file was only appended to, else from the start."""
        from ctxtui.importers import load_session

        follower, self._follower = self._follower, None
        if whole:
            return load_session(self.path, self.format, should_stop=self.should_stop)
        self._follower, session = self._read_on(follower, file, full_history=False)
        return session

    def history(self) -> Session:
        """The file's full history, through the agent's compactions (``full_history``), read
        on from where the last call ended when the file was only appended to: a watched
        transcript's history then costs its appended bytes, as ``poll`` does, not a read of
        the whole file at each pause of the agent. Anything else (a rewrite, a format or
        file that cannot be followed) is read whole. Raises what ``load_session`` raises."""
        from ctxtui.importers import load_session, split_session_id

        file, session_id = split_session_id(self.path)
        kept, self._history = self._history, None
        if session_id is not None or not file.is_file():
            return load_session(
                self.path, self.format, full_history=True, should_stop=self.should_stop
            )
        follower, session = self._read_on(kept[0] if kept else None, file, full_history=True)
        if session is None:  # nothing appended since: the last read stands
            assert kept is not None
            session = kept[1]
        if follower is not None:
            self._history = follower, session
        return session

    def _read_on(
        self, kept: _Follower | None, file: Path, *, full_history: bool
    ) -> tuple[_Follower | None, Session | None]:
        """``kept`` read on when ``file`` was only appended to (the session ``None``: no
        complete line since), else ``file`` read whole, followed where it can be; with the
        follower to keep (``None``: a file read whole every time)."""
        from ctxtui.importers import load_session

        stop = self.should_stop
        if kept is not None:
            with open_file(file) as source:
                source.should_stop = stop
                if kept.appended_to(source):
                    return kept, kept.more(source)
        started = _Follower.begin(file, self.format, stop, full_history=full_history)
        if started is not None:
            return started
        return None, load_session(
            self.path, self.format, full_history=full_history, should_stop=stop
        )

    def _no_new_line(self, file: Path, stamp: _Stamp) -> bool:
        """True when the file only grew since the last read and what was added holds no
        newline yet: no record was completed, so there is nothing new to read. Reads only
        the bytes added (and the last read's final ``END_BYTES``, to tell an append from a
        rewrite). Asked only of a file followed line by line: a database or a JSON document
        can grow into a new state without a newline byte in what was added."""
        old = self._stamp
        if old is None or old.mode != stat.S_IFREG or stamp.mode != stat.S_IFREG:
            return False
        if stamp.inode != old.inode or stamp.size <= old.size:
            return False
        try:
            with open_regular(file) as fh:
                fh.seek(old.size - len(self._end_bytes))
                if fh.read(len(self._end_bytes)) != self._end_bytes:
                    return False  # rewritten in place, not appended to
                fh.seek(self._scanned)
                while self._scanned < stamp.size:
                    chunk = fh.read(min(SCAN_CHUNK, stamp.size - self._scanned))
                    if not chunk:
                        break
                    if b"\n" in chunk:
                        return False
                    self._scanned += len(chunk)
        except OSError:
            return False  # let the read say what is wrong
        return True


PACE = 3.0
"""After a read of ``t`` seconds the next waits ``PACE × t``: at most a quarter of a core."""
SCAN_CHUNK = 1024 * 1024


def _end_bytes(file: Path, stamp: _Stamp) -> bytes:
    if stamp.mode != stat.S_IFREG:
        return b""
    try:
        with open_regular(file) as fh:
            fh.seek(max(0, stamp.size - END_BYTES))
            return fh.read(min(stamp.size, END_BYTES))
    except OSError:
        return b""


class _Follower(Resumable):
    """A watched file's ``Resumable``, which also keeps the file's identity: a file replaced
    by another (a new inode) is read whole, however its bytes compare."""

    inode: int = -1

    @classmethod
    def begin(
        cls,
        file: Path,
        format: str | None,
        should_stop: StopCheck | None = None,
        *,
        full_history: bool = False,
    ) -> tuple[_Follower, Session] | None:
        """The whole session, read so it can be followed; ``None`` for what cannot be (a
        format without ``Live``, a compressed or empty file, a directory): read it whole."""
        with open_file(file) as source:
            source.should_stop = should_stop
            started = cls.start(source, format, full_history=full_history)
            if started is None:
                return None
            follower, session = started
            assert isinstance(follower, _Follower)
            follower.inode = source.inode
        if format is not None and not session.messages and not session.system_prompt:
            return None  # a forced format that read nothing: the whole read says why
        return follower, session

    def appended_to(self, source: Source) -> bool:
        return source.inode == self.inode and super().appended_to(source)
