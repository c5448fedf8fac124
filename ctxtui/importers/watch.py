"""Following a transcript that is still being written (an agent running now).

Agents append to their transcripts record by record, so a file being watched is usually a
valid prefix plus, at times, half a line. ``SessionWatcher.poll()`` notices that the file
changed (size, mtime or identity) and reads it again; the JSONL reader already sets a cut-off
last line aside with a warning, so a half-written record is simply read on the next poll. A
file that shrank or was replaced (a PicoClaw compaction rewrites its JSONL) is read from the
start like any other change. Reading again costs the open time of the file, which is small
for the sizes live sessions reach; the poll itself is one ``stat``. A file replaced by a FIFO
or a socket is said to be so and never opened (every open is ``_stream.open_regular``, which
cannot block, should the swap land mid-read).
"""

from __future__ import annotations

import stat
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ctxtui.core.errors import SessionLoadError
from ctxtui.core.session.models import Session
from ctxtui.importers._stream import file_kind, open_regular


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

    Two rules keep a fast-growing file from costing the CPU: bytes appended since the last
    read are only searched for a newline, so a line still being written costs the bytes
    written, not a read of the whole file; and a read that took ``t`` seconds is not followed
    by another for ``PACE × t`` seconds, so the watcher holds at most ``1 / (1 + PACE)`` of a
    core however fast the file grows. The last change is always read once writes pause.
    """

    def __init__(
        self,
        path: Path | str,
        format: str | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.path = Path(path)
        self.format = format
        self._clock = clock
        self._stamp: _Stamp | None = None
        self._end_bytes = b""  # the last read's final bytes: an append leaves them alone
        self._scanned = 0  # how far past the last read the file is known to hold no newline
        self._not_before = 0.0
        self.error: str | None = None

    def poll(self) -> Session | None:
        """The session read again if the file changed since the last poll, else ``None``.

        A read that fails (the agent is mid-rewrite, or the file vanished) leaves the last good
        session in place: ``error`` says why, and the next change is tried again.
        """
        from ctxtui.importers import load_session, split_session_id

        file = split_session_id(self.path)[0]  # db#ses_X, session.jsonl#agent-X
        stamp = _Stamp.of(file)
        if stamp is None or stamp == self._stamp:
            if stamp is None:
                self.error = f"{self.path}: the file is gone"
            return None
        if stamp.mode not in (stat.S_IFREG, stat.S_IFDIR):  # an OpenCode storage is a directory
            self.error = f"{self.path}: no longer a regular file: it is now {file_kind(stamp.mode)}"
            return None
        if self._clock() < self._not_before or self._no_new_line(file, stamp):
            return None
        started = self._clock()
        try:
            session = load_session(self.path, self.format)
        except SessionLoadError as err:
            self.error = str(err)
            return None
        finally:
            ended = self._clock()
            self._not_before = ended + PACE * (ended - started)
        # A write may have landed while reading; the stamp from before the read makes the
        # next poll read again rather than miss it.
        self._stamp, self.error = stamp, None
        self._end_bytes, self._scanned = _end_bytes(file, stamp), stamp.size
        return session

    def _no_new_line(self, file: Path, stamp: _Stamp) -> bool:
        """True when the file only grew since the last read and what was added holds no
        newline yet: no record was completed, so there is nothing new to read. Reads only
        the bytes added (and the last read's final ``END_BYTES``, to tell an append from a
        rewrite)."""
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
END_BYTES = 64
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
