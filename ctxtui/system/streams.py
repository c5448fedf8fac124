"""Standard output as the environment's state: closed, full, or gone, never a bug of ours.

``>&-`` or ``> /dev/full`` is the user's environment, not a crash: one line on stderr and exit
2; a reader that went away (``| head``) is a quiet exit, by convention.
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import sys
from pathlib import Path


class StdoutError(OSError):
    """Standard output refused bytes (full, an I/O error): ``strerror`` says why."""


class _GuardedRaw(io.FileIO):
    """File descriptor 1 whose write errors say they came from standard output."""

    def write(self, data: object) -> int:
        try:
            return super().write(data)  # type: ignore[arg-type]
        except (BrokenPipeError, StdoutError):
            raise
        except OSError as err:
            raise StdoutError(err.errno or errno.EIO, err.strerror or str(err)) from None


def stdout_closed() -> bool:
    """Whether file descriptor 1 was closed at start (``>&-``). A closed standard descriptor
    gets ``/dev/null`` parked on it, so no file ctxtui opens takes its number."""
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
    if 2 in closed or sys.stderr is None:
        sys.stderr = Path(os.devnull).open("w")  # noqa: SIM115 - lives as long as the process
    return 1 in closed


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
