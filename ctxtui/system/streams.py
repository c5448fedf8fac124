"""Standard output and error as the environment's state: closed, full, or gone, never a bug.

``>&-`` or ``> /dev/full`` is the user's environment, not a crash: one line on stderr and exit
2; a reader that went away (``| head``) is a quiet exit, by convention. Standard error never
raises: a line it cannot deliver is dropped, the command goes on, and the exit is 2.
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import select
import sys


class StdoutError(OSError):
    """Standard output refused bytes (full, an I/O error): ``strerror`` says why."""


class _GuardedRaw(io.FileIO):
    """File descriptor 1 whose write errors say they came from standard output. A
    non-blocking descriptor that is full (``O_NONBLOCK`` set by whoever opened the pipe) is
    waited on, as a blocking one would be: the output is written whole, never cut."""

    def write(self, data: object) -> int:
        try:
            while (written := super().write(data)) is None:  # type: ignore[arg-type]
                select.select([], [self.fileno()], [])
            return written
        except (BrokenPipeError, StdoutError):
            raise
        except OSError as err:
            raise StdoutError(err.errno or errno.EIO, err.strerror or str(err)) from None


class _GuardedStderr(io.FileIO):
    """File descriptor 2, which never raises: a line it cannot deliver is dropped and the loss
    kept (``lost``). Raising would end the command before its standard output is written
    (``compact -o - 2>&1 >out.json | true`` left ``out.json`` empty), and its exit say 0."""

    def __init__(self, *, closed: bool) -> None:
        super().__init__(2, "w", closefd=False)
        self.lost = False
        self._dead = closed  # closed at start: /dev/null is parked there, nothing is read
        self._quiet = False  # dropped lines are no loss (the reader of stdout is gone too)
        self._shares_stdout = _same_file(1, 2)

    def write(self, data: object) -> int:
        size = memoryview(data).nbytes  # type: ignore[arg-type]
        if not self._dead:
            try:
                written = super().write(data)  # type: ignore[arg-type]
                if written is not None:
                    return written
                # a full non-blocking pipe: this line is dropped rather than waited for
            except BrokenPipeError:
                # ``2>&1 | head``: one reader had enough of both, stdout's quiet exit stands
                self._quiet = self._shares_stdout
                self._dead = True
            except OSError:
                self._dead = True  # a full disk, an I/O error: later lines would fail alike
        self.lost = self.lost or (size > 0 and not self._quiet)
        return size


def _same_file(one: int, other: int) -> bool:
    """Whether two descriptors reach the same file or pipe (``2>&1``)."""
    try:
        a, b = os.fstat(one), os.fstat(other)
    except OSError:
        return False
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


_stderr: list[_GuardedStderr] = []
"""The guarded standard error, once ``guard_stderr`` installed it."""


def closed_descriptors() -> frozenset[int]:
    """Which of file descriptors 0, 1 and 2 were closed at start (``>&-``). Each gets
    ``/dev/null`` parked on it, so no file ctxtui opens takes its number."""
    closed = set()
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            closed.add(fd)
            null = os.open(os.devnull, os.O_RDONLY if fd == 0 else os.O_WRONLY)
            if null != fd:
                os.dup2(null, fd)
                os.close(null)
    return frozenset(closed)


def guard_stderr(*, closed: bool) -> None:
    """Route ``sys.stderr`` through ``_GuardedStderr`` (``closed``: descriptor 2 was closed at
    start, so whatever is written to it is lost)."""
    old = sys.stderr  # None when descriptor 2 was closed at start
    if old is not None:
        try:
            if not isinstance(old, io.TextIOWrapper) or old.fileno() != 2:
                return  # a stream put there by someone else (a test's capture) stays
            old.flush()
        except (OSError, ValueError):
            return
    raw = _GuardedStderr(closed=closed)
    _stderr[:] = [raw]
    sys.stderr = io.TextIOWrapper(
        io.BufferedWriter(raw),
        encoding=old.encoding if old is not None else "utf-8",
        errors="backslashreplace",  # as Python's own: an unencodable character is no error
        line_buffering=True,  # a line is out before ``os._exit``, as Python's own stderr
    )


def stderr_lost() -> bool:
    """Whether anything written to standard error could not be delivered (``guard_stderr``)."""
    return any(raw.lost for raw in _stderr)


def guard_stdout() -> None:
    """Route ``sys.stdout`` through ``_GuardedRaw`` (text and ``.buffer`` alike)."""
    old = sys.stdout
    if old is None or not isinstance(old, io.TextIOWrapper):
        return
    try:
        if old.fileno() != 1:
            return
        old.flush()
    except (OSError, ValueError):
        return
    buffer = io.BufferedWriter(_GuardedRaw(1, "w", closefd=False))
    sys.stdout = io.TextIOWrapper(
        buffer,
        encoding=old.encoding,
        errors=old.errors,
        line_buffering=old.line_buffering,
    )


def flush_stdout() -> None:
    """Flush what is still buffered, so a failure is reported while it can still be."""
    if sys.stdout is not None:
        sys.stdout.flush()


def quiet_stdout() -> None:
    """After a failure: drop what is still buffered, so the exit's flush cannot fail again."""
    with contextlib.suppress(OSError, ValueError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
