"""Reading a SQLite source without creating or changing anything beside it.

A plain read-only connection (``mode=ro``) is not enough: on a WAL database SQLite creates the
``-wal`` and ``-shm`` files when they are missing and writes to an existing ``-shm`` (the
shared WAL index), so merely looking at a live agent's database changed its directory.
``immutable=1`` touches nothing, but it ignores the ``-wal`` file, which on a live database
holds committed transactions not yet checkpointed into the main file, and a hot ``-journal``.

So: a database with no pending side file (no ``-wal``/``-journal``, or empty ones) is read in
place with ``immutable=1``; one with pending data is copied, with its ``-wal`` or ``-journal``,
into a private temporary directory and read there, where SQLite may replay and index as it
likes. A copy larger than ``MAX_COPY_BYTES`` is not made (a sparse 5 GiB ``-wal`` would fill
the disk): the database is read in place with ``immutable=1``, without the side file's
transactions, and a note says so. Either way the files' size, mtime and inode are compared
before and after, and a database that changed meanwhile is read again from a fresh copy (a
writer was active), up to ``ATTEMPTS`` times.

Every file is opened without blocking and judged by ``fstat`` first (``_stream.open_regular``):
a FIFO named like a database is refused. SQLite is given the checked descriptor's
``/proc/self/fd`` link rather than the name, and it resolves that link to a name again, so a
swap in the instant after the check could still make its open wait for a writer: a watchdog
ends that wait (``_connect``).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import tempfile
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import BinaryIO, TypeVar

from ctxtui.core.errors import SessionLoadError
from ctxtui.core.session.models import Session
from ctxtui.importers._stream import NotRegularFileError, open_regular

T = TypeVar("T")

PENDING_SUFFIXES = ("-wal", "-journal")
"""Side files that can hold data the main file does not have yet."""

ATTEMPTS = 3
"""Reads of a database that keeps changing before giving up with one line."""

MAX_COPY_BYTES = 512 * 1024 * 1024
"""The most a database and its pending side files may hold to be copied and read with them;
past it the database is read in place without them (``read_database``)."""

_Signature = tuple[tuple[int, int, int, int] | None, ...]


def _stat(path: Path) -> tuple[int, int, int, int] | None:
    try:
        info = path.stat()
    except OSError:
        return None
    return info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns


def _signature(path: Path) -> _Signature:
    """What changes when anyone writes the database: the main file and its pending side files."""
    return tuple(_stat(p) for p in (path, *_sides(path)))


def _sides(path: Path) -> tuple[Path, ...]:
    return tuple(path.with_name(path.name + suffix) for suffix in PENDING_SUFFIXES)


def _pending(signature: _Signature) -> bool:
    return any(side is not None and side[1] > 0 for side in signature[1:])


def _too_big(signature: _Signature) -> bool:
    return sum(entry[1] for entry in signature if entry is not None) > MAX_COPY_BYTES


@contextlib.contextmanager
def _connection(path: Path, copy_sides: bool) -> Iterator[sqlite3.Connection]:
    if not copy_sides:
        with open_regular(path) as held:  # refuses a FIFO before SQLite could block on it
            con = _connect(f"{_by_descriptor(path, held).as_uri()}?mode=ro&immutable=1", path)
            try:
                yield con
            finally:
                con.close()
        return
    with tempfile.TemporaryDirectory(prefix="ctxtui-sqlite-") as private:
        copy = Path(private) / "source.db"
        for side in _sides(path):  # side files first: a checkpoint moves data out of them
            with contextlib.suppress(FileNotFoundError):
                _copy(side, copy.with_name(copy.name + side.name[len(path.name) :]))
        _copy(path, copy)
        con = sqlite3.connect(f"{copy.as_uri()}?mode=rw", uri=True)
        try:
            yield con
        finally:
            con.close()


def _connect(uri: str, path: Path) -> sqlite3.Connection:
    """``sqlite3.connect(uri)``, never left waiting on a FIFO.

    SQLite opens by name, and a blocking open of a FIFO waits for a writer: should ``path``
    become a FIFO in the instant after it was checked, a watchdog opens the FIFO's writing end
    and closes it at once, so SQLite's open returns and reads an empty file (an error the
    caller reports) instead of hanging.
    """
    opened = threading.Event()

    def watchdog() -> None:
        while not opened.wait(FIFO_WAIT):
            try:
                if path.is_fifo():
                    os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))
            except OSError:
                continue  # no FIFO, or nobody reading it: nothing is waiting

    guard = threading.Thread(target=watchdog, name="ctxtui-sqlite-open", daemon=True)
    guard.start()
    try:
        return sqlite3.connect(uri, uri=True)
    finally:
        opened.set()


FIFO_WAIT = 0.2
"""Seconds an open may take before the watchdog looks for a FIFO in the file's place."""


def _by_descriptor(path: Path, held: BinaryIO) -> Path:
    """What SQLite should open: the file already opened and checked (``/proc/self/fd/N``),
    where there is such a link. SQLite resolves the link to the file's current name, so a
    regular file swapped for a FIFO since the check is a name that no longer exists (an
    error), never a FIFO to wait on; without ``/proc`` it is ``path`` itself."""
    link = Path(f"/proc/self/fd/{held.fileno()}")
    return link if link.exists() else path


def _copy(source: Path, target: Path) -> None:
    """``source``'s bytes into ``target``, opened without blocking, at most ``MAX_COPY_BYTES``
    (a file that grew past it since it was measured is refused, not copied on)."""
    with open_regular(source) as src, target.open("wb") as dst:
        copied = 0
        while chunk := src.read(1024 * 1024):
            copied += len(chunk)
            if copied > MAX_COPY_BYTES:
                raise OSError(0, f"{source.name} grew past {MAX_COPY_BYTES // 2**20:,} MiB")
            dst.write(chunk)


def read_database(
    path: Path, read: Callable[[sqlite3.Connection], T], notes: list[str] | None = None
) -> T:
    """``read(connection)`` on a consistent, private view of the database at ``path``.

    ``sqlite3.Error`` from ``read`` propagates (the caller words it for its format); a file
    that cannot be copied, or that keeps changing, is a ``SessionLoadError``. When pending
    side files are too large to copy, the database is read without them and a sentence
    saying so is added to ``notes``.
    """
    try:
        real = path.resolve()
    except (OSError, RuntimeError) as exc:  # a symlink loop
        raise SessionLoadError(str(path), f"cannot read the file ({exc})") from None
    for _ in range(ATTEMPTS):
        before = _signature(real)
        copy_sides = _pending(before) and not _too_big(before)
        try:
            with _connection(real, copy_sides) as con:
                result = read(con)
        except NotRegularFileError as exc:
            raise SessionLoadError(str(path), exc.problem) from None
        except OSError as exc:
            raise SessionLoadError(
                str(path), f"cannot copy the SQLite database to read it ({exc.strerror or exc})"
            ) from None
        except sqlite3.Error:
            if _signature(real) == before:
                raise
            continue  # a torn read of a database being written: try a fresh view
        if _signature(real) == before:
            if _pending(before) and not copy_sides and notes is not None:
                notes.append(_skipped_sides(before))
            return result
    raise SessionLoadError(
        str(path), "the SQLite database kept changing while it was read; try again"
    )


def _skipped_sides(signature: _Signature) -> str:
    size = sum(entry[1] for entry in signature[1:] if entry is not None)
    return (
        f"read without the database's -wal/-journal ({size // 2**20:,} MiB): more than the "
        f"{MAX_COPY_BYTES // 2**20:,} MiB ctxtui copies to read one, so its latest "
        "transactions are not shown"
    )


def noted(session: Session, notes: list[str]) -> Session:
    """``session`` with ``notes`` first among its warnings."""
    if not notes:
        return session
    meta = session.meta.model_copy(update={"warnings": (*notes, *session.meta.warnings)})
    return session.model_copy(update={"meta": meta})
