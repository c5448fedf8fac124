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
from dataclasses import dataclass
from pathlib import Path

from ctxtui.core.errors import SessionLoadError
from ctxtui.core.models import Session
from ctxtui.importers._stream import file_kind


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
    """Reads ``path`` again whenever it changes; safe to call ``poll`` from a worker thread."""

    def __init__(self, path: Path | str, format: str | None = None) -> None:
        self.path = Path(path)
        self.format = format
        self._stamp: _Stamp | None = None
        self.error: str | None = None

    def poll(self) -> Session | None:
        """The session read again if the file changed since the last poll, else ``None``.

        A read that fails (the agent is mid-rewrite, or the file vanished) leaves the last good
        session in place: ``error`` says why, and the next change is tried again.
        """
        from ctxtui.importers import load_session, split_session_id

        stamp = _Stamp.of(split_session_id(self.path)[0])  # db#ses_X, session.jsonl#agent-X
        if stamp is None or stamp == self._stamp:
            if stamp is None:
                self.error = f"{self.path}: the file is gone"
            return None
        if stamp.mode not in (stat.S_IFREG, stat.S_IFDIR):  # an OpenCode storage is a directory
            self.error = f"{self.path}: no longer a regular file: it is now {file_kind(stamp.mode)}"
            return None
        try:
            session = load_session(self.path, self.format)
        except SessionLoadError as err:
            self.error = str(err)
            return None
        # A write may have landed while reading; the stamp from before the read makes the
        # next poll read again rather than miss it.
        self._stamp, self.error = stamp, None
        return session
