"""Reading a SQLite source without creating or changing anything beside it.

A plain read-only connection (``mode=ro``) is not enough: on a WAL database SQLite creates the
``-wal`` and ``-shm`` files when they are missing and writes to an existing ``-shm`` (the
shared WAL index), so merely looking at a live agent's database changed its directory.
``immutable=1`` touches nothing, but it ignores the ``-wal`` file, which on a live database
holds committed transactions not yet checkpointed into the main file, and a hot ``-journal``.

So: a database with no pending side file (no ``-wal``/``-journal``, or empty ones) is read in
place with ``immutable=1``; one with pending data is copied, with its ``-wal`` or ``-journal``,
into a private temporary directory and read there, where SQLite may replay and index as it
likes. Either way the files' size, mtime and inode are compared before and after, and a
database that changed meanwhile is read again from a fresh copy (a writer was active), up to
``ATTEMPTS`` times.
"""

from __future__ import annotations

import contextlib
import shutil
import sqlite3
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

from ctxtui.core.errors import SessionLoadError

T = TypeVar("T")

PENDING_SUFFIXES = ("-wal", "-journal")
"""Side files that can hold data the main file does not have yet."""

ATTEMPTS = 3
"""Reads of a database that keeps changing before giving up with one line."""

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


@contextlib.contextmanager
def _connection(path: Path, pending: bool) -> Iterator[sqlite3.Connection]:
    if not pending:
        con = sqlite3.connect(f"{path.as_uri()}?mode=ro&immutable=1", uri=True)
        try:
            yield con
        finally:
            con.close()
        return
    with tempfile.TemporaryDirectory(prefix="ctxtui-sqlite-") as private:
        copy = Path(private) / "source.db"
        for side in _sides(path):  # side files first: a checkpoint moves data out of them
            with contextlib.suppress(FileNotFoundError):
                shutil.copyfile(side, copy.with_name(copy.name + side.name[len(path.name) :]))
        shutil.copyfile(path, copy)
        con = sqlite3.connect(f"{copy.as_uri()}?mode=rw", uri=True)
        try:
            yield con
        finally:
            con.close()


def read_database(path: Path, read: Callable[[sqlite3.Connection], T]) -> T:
    """``read(connection)`` on a consistent, private view of the database at ``path``.

    ``sqlite3.Error`` from ``read`` propagates (the caller words it for its format); a file
    that cannot be copied, or that keeps changing, is a ``SessionLoadError``.
    """
    real = path.resolve()
    for _ in range(ATTEMPTS):
        before = _signature(real)
        try:
            with _connection(real, _pending(before)) as con:
                result = read(con)
        except OSError as exc:
            raise SessionLoadError(
                str(path), f"cannot copy the SQLite database to read it ({exc.strerror or exc})"
            ) from None
        except sqlite3.Error:
            if _signature(real) == before:
                raise
            continue  # a torn read of a database being written: try a fresh view
        if _signature(real) == before:
            return result
    raise SessionLoadError(
        str(path), "the SQLite database kept changing while it was read; try again"
    )
