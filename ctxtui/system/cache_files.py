"""ctxtui's own files in the user's cache directory, read as untrusted: anything may stand there
under their names (a symlink to ``/dev/zero``, a FIFO, another program's file).

Each is opened the way a transcript is (``importers._stream.open_regular``): without blocking,
judged by ``fstat`` on the descriptor, and read only up to a bound, so a FIFO cannot hang a
command and a device cannot feed it gigabytes. ``ours`` is how ``cache clear`` tells a file
ctxtui wrote (its header) from one that only shares the name.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

_FLAGS = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0)
_CHUNK = 1 << 20


@contextmanager
def _regular(path: Path) -> Iterator[tuple[int, os.stat_result]]:
    """The descriptor of ``path`` and its ``fstat``, if it is a regular file; ``OSError``
    (``EINVAL`` for anything else) otherwise. The open never waits for a FIFO's writer."""
    fd = os.open(path, _FLAGS)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise OSError(errno.EINVAL, "not a regular file", str(path))
        yield fd, info
    finally:
        os.close(fd)


def read_bounded(path: Path, limit: int) -> bytes | None:
    """The whole regular file at ``path`` if it holds at most ``limit`` bytes; ``None`` when it
    is missing, unreadable, not a regular file or larger (then it was not written by ctxtui)."""
    try:
        with _regular(path) as (fd, info):
            if info.st_size > limit:
                return None
            chunks, left = [], limit + 1  # a file that grew meanwhile is still cut off
            while left > 0 and (chunk := os.read(fd, min(left, _CHUNK))):
                chunks.append(chunk)
                left -= len(chunk)
    except OSError:
        return None
    data = b"".join(chunks)
    return data if len(data) <= limit else None


def read_head(path: Path, size: int) -> bytes | None:
    """The first ``size`` bytes (or fewer) of the regular file at ``path``; ``None`` as for
    ``read_bounded``."""
    try:
        with _regular(path) as (fd, _):
            return os.pread(fd, size, 0)
    except OSError:
        return None


def check_regular_or_missing(path: Path) -> None:
    """Raise ``OSError`` unless ``path`` is missing or (through any symlink) a regular file:
    what SQLite may open there without hanging on a FIFO or reading a device."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return
    if not stat.S_ISREG(mode):
        raise OSError(errno.EINVAL, "not a regular file", str(path))


def ours(path: Path, header: bytes, offset: int = 0) -> bool:
    """Whether ``path`` is a regular file, not a symlink, holding ``header`` at ``offset``:
    the mark ctxtui writes into its own cache files."""
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return False
    except OSError:
        return False
    head = read_head(path, offset + len(header))
    return head is not None and head[offset:] == header


def write_cache_file(path: Path, payload: bytes, prefix: str) -> bool:
    """``payload`` written to a temporary file beside ``path`` (named ``prefix…``) and moved
    into place, so a reader never sees a torn write; ``False`` when it could not be (the
    temporary file removed): a cache only saves time, so failing to keep it is no error."""
    tmp: str | None = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=prefix, suffix=".tmp", dir=path.parent)
        with os.fdopen(fd, "wb") as f:
            f.write(payload)
        Path(tmp).replace(path)
    except OSError:
        if tmp is not None:
            with contextlib.suppress(OSError):
                Path(tmp).unlink()
        return False
    return True
