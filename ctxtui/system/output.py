"""Safe output files: never onto what a session was read from, never half-written, never left over.

Every file ctxtui writes for the user goes through here, under the README's promises:

* **Protected paths.** A write is refused when its target is, or lies inside, any path of a
  *protected set* — every file the importer read or would read, plus the directory of a
  directory source. Paths are compared after resolving symlinks, and by ``(st_dev, st_ino)``
  too, so a hard link, a bind mount or ``..`` tricks cannot reach the source by another name.
* **Only regular files are replaced.** A symlink or a special file as the target is refused:
  renaming over it would swap the link (or ``/dev/null``) for a regular file. Writing to
  standard output is a deliberate choice the caller makes (``-o -``), not a path.
* **New files get ordinary permissions** — ``0o666`` less the umask, applied by the kernel,
  never copied from the source. An overwritten file keeps its own mode.
* **Atomic, and no leftovers.** Data goes to ``.<name>.ctxtui-tmp-XXXXXXXX`` beside the
  target, is flushed, then renamed over it. The temporary file is removed on every exit Python
  can catch: an exception, Ctrl-C and, on the main thread, every catchable terminating signal
  (re-delivered once the file is gone). Only SIGKILL or a power cut can leave one.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import secrets
import signal
import stat
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from types import FrameType
from typing import IO, Any

TEMP_MARKER = ".ctxtui-tmp-"
"""Part of every temporary file's name: ``.<target name>.ctxtui-tmp-<8 hex digits>``."""

CHUNK = 1 << 20
"""Bytes per ``write`` call, so a signal is acted on between chunks of a large file."""

_NAME_ROOM = 200
"""Bytes of the target's name kept in the temporary name (a file name is at most 255)."""

_TERMINATING = (
    "SIGTERM", "SIGHUP", "SIGQUIT", "SIGUSR1", "SIGUSR2", "SIGALRM", "SIGVTALRM", "SIGPROF",
    "SIGXCPU", "SIGXFSZ", "SIGIO", "SIGPWR", "SIGSYS", "SIGSTKFLT", "SIGTRAP",
)  # fmt: skip
"""Every signal that ends a process by default and can be caught, but the faults a program
raises itself (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT) and SIGINT (``KeyboardInterrupt``)."""

_CAUGHT_SIGNALS = tuple(
    {getattr(signal, name) for name in _TERMINATING if hasattr(signal, name)}
    | set(range(getattr(signal, "SIGRTMIN", 0), getattr(signal, "SIGRTMAX", -1) + 1))
)

_LIVE: set[Path] = set()
_LIVE_LOCK = threading.Lock()


class OutputError(Exception):
    """The output cannot be written; ``str()`` is the one line shown to the user."""


# --- protected paths ------------------------------------------------------------------------


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        info = path.stat()
    except (OSError, ValueError):
        return None
    return info.st_dev, info.st_ino


def _real(path: Path) -> Path:
    try:
        return path.resolve()
    except (OSError, ValueError, RuntimeError):  # a symlink loop, a NUL byte
        return path.absolute()


def protected_clash(target: Path, protected: Iterable[Path]) -> Path | None:
    """The protected path that writing ``target`` would touch, or ``None``: the same resolved
    path (existing or not: a missing ``-wal`` is still the source's) or ``(st_dev, st_ino)``,
    or anywhere below a protected directory, by path or by an ancestor's identity."""
    real = _real(target)
    own = _identity(real)
    ancestors: set[tuple[int, int]] | None = None
    for path in protected:
        resolved = _real(path)
        if resolved == real:
            return path
        ident = _identity(resolved)
        if ident is None:
            continue
        if own is not None and own == ident:
            return path
        if not resolved.is_dir():
            continue
        if real.is_relative_to(resolved):
            return path
        if ancestors is None:
            ancestors = {i for a in real.parents if (i := _identity(a)) is not None}
        if ident in ancestors:
            return path
    return None


# --- a confined writer (the app served to a browser) ----------------------------------------

WRITE_ROOT_ENV = "CTXTUI_WRITE_ROOT"
"""Set (by ``ctxtui serve``) to the one directory the app may write in; empty: nowhere."""


def write_root_refusal(target: Path, env: Mapping[str, str] = os.environ) -> str | None:
    """Why ``target`` may not be written under ``CTXTUI_WRITE_ROOT``, or ``None``: a served
    app's writes stay inside the directory ``serve`` was given, resolved, or there are none."""
    root = env.get(WRITE_ROOT_ENV)
    if root is None:
        return None
    if not root:
        return (
            "this app is served to a browser without --export-dir, so it writes no file "
            "(restart 'ctxtui serve' with --export-dir DIR)"
        )
    if not _real(target.parent).is_relative_to(_real(Path(root))):
        return f"{target}: this served app writes only inside {root}"
    return None


# --- the target -----------------------------------------------------------------------------


def check_output(
    path: str | os.PathLike[str],
    *,
    protected: Iterable[Path] = (),
    force: bool = False,
    source: Path | None = None,
) -> Path:
    """The path to write, or ``OutputError`` saying why it cannot be written.

    Refuses an empty path, anything ``protected`` (``force`` or not), a symlink, a directory or
    special file, an existing file unless ``force``, and a missing or unwritable directory;
    ``source`` is named "the source session" in the refusal.
    """
    if not os.fspath(path):
        raise OutputError("-o: expected a file path, found an empty string")
    if "\0" in os.fspath(path):
        raise OutputError("-o: expected a file path, found a NUL character in it")
    target = Path(path)
    clash = protected_clash(target, protected)
    if clash is not None:
        raise OutputError(_clash_reason(target, clash, source))
    try:
        info: os.stat_result | None = os.lstat(target)
    except FileNotFoundError:
        info = None
    except OSError as err:
        raise OutputError(f"{target}: cannot check the path ({err.strerror})") from None
    if info is not None:
        _check_existing(target, info, force=force)
    directory = target.parent
    if not directory.is_dir():
        raise OutputError(f"{target}: expected an existing directory {directory}, found none")
    if not os.access(directory, os.W_OK | os.X_OK):
        raise OutputError(f"{target}: cannot write in {directory}: permission denied")
    return target


def _check_existing(target: Path, info: os.stat_result, *, force: bool) -> None:
    """An existing target may only be a regular file, and is replaced only with ``force``."""
    if stat.S_ISLNK(info.st_mode):
        raise OutputError(
            f"{target}: expected a regular file path, found a symbolic link "
            "(give the file it points to, or -o - for standard output)"
        )
    if stat.S_ISDIR(info.st_mode):
        raise OutputError(f"{target}: expected a file path, found a directory")
    if not stat.S_ISREG(info.st_mode):
        raise OutputError(f"{target}: expected a regular file path, found a special file")
    if not force:
        raise OutputError(f"{target}: file exists (use --force to overwrite it)")


def _clash_reason(target: Path, clash: Path, source: Path | None) -> str:
    if source is not None and _real(clash) == _real(source) and not _real(source).is_dir():
        return f"{target}: refusing to overwrite the source session"
    if _real(clash).is_dir():
        return f"{target}: refusing to write inside the source directory {clash}"
    return f"{target}: refusing to overwrite {clash}, which the source session is read from"


def check_stream(stream: IO[Any], protected: Iterable[Path]) -> None:
    """Refuse a standard output redirected onto a protected file (``>> source.jsonl``): with
    ``-o -`` the shell opens the target, so this is the only check left."""
    try:
        info = os.fstat(stream.fileno())
    except (OSError, ValueError):
        return
    if not stat.S_ISREG(info.st_mode):
        return
    own = (info.st_dev, info.st_ino)
    for path in protected:
        if _identity(_real(path)) == own:
            raise OutputError(
                f"standard output is {path}, which the source session is read from; "
                "refusing to write onto it"
            )


# --- the write ------------------------------------------------------------------------------


def temp_name(target: Path) -> Path:
    """A fresh temporary path beside ``target`` whose name says it is ctxtui's leftover."""
    name = target.name.encode("utf-8", "surrogateescape")[:_NAME_ROOM]
    stem = name.decode("utf-8", "surrogateescape")
    return target.with_name(f".{stem}{TEMP_MARKER}{secrets.token_hex(4)}")


class _Terminated(BaseException):
    """A terminating signal arrived during a write: unwind, remove the temp file, then die."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _raise_terminated(signum: int, frame: FrameType | None) -> None:
    raise _Terminated(signum)


@contextlib.contextmanager
def _signals_unwind() -> Iterator[None]:
    """While the body runs (on the main thread), terminating signals raise instead of killing
    the process; afterwards the previous handler is restored and the signal re-sent, so the
    process still ends by it. An ignored signal stays ignored."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous: dict[int, Callable[[int, FrameType | None], object] | int] = {}
    for signum in _CAUGHT_SIGNALS:
        old = signal.getsignal(signum)
        if old is None or old == signal.SIG_IGN:
            continue
        previous[signum] = old
        signal.signal(signum, _raise_terminated)
    try:
        yield
    except _Terminated as stop:
        _restore(previous)
        signal.raise_signal(stop.signum)
        raise KeyboardInterrupt from None  # the old handler returned: stop like Ctrl-C
    finally:
        _restore(previous)


def _restore(previous: dict[int, Callable[[int, FrameType | None], object] | int]) -> None:
    for signum, handler in previous.items():
        signal.signal(signum, handler)


def _remove_live() -> None:
    """At interpreter exit, remove temp files whose writer (a worker thread) never finished."""
    with _LIVE_LOCK:
        for path in list(_LIVE):
            with contextlib.suppress(OSError):
                path.unlink()
        _LIVE.clear()


atexit.register(_remove_live)


def _write_all(fd: int, chunks: Iterable[bytes]) -> None:
    for chunk in chunks:
        view = memoryview(chunk)
        for start in range(0, len(view), CHUNK):
            piece = view[start : start + CHUNK]
            while piece:
                piece = piece[os.write(fd, piece) :]


def _existing_mode(target: Path) -> int | None:
    """The permission bits of a regular file being overwritten (it keeps them)."""
    try:
        info = os.lstat(target)
    except OSError:
        return None
    return stat.S_IMODE(info.st_mode) & 0o666 if stat.S_ISREG(info.st_mode) else None


def atomic_write(target: Path, chunks: Iterable[bytes]) -> Path:
    """Write ``chunks`` to ``target`` (checked by ``check_output``) through a temporary file
    renamed into place; a failure or interruption leaves the target as it was."""
    tmp = temp_name(target)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    flags |= getattr(os, "O_NOFOLLOW", 0)
    with _signals_unwind():
        try:
            fd = os.open(tmp, flags, 0o666)  # the kernel applies the umask to a new file
        except OSError as err:
            raise OutputError(f"{target}: cannot write here ({err.strerror})") from None
        with _LIVE_LOCK:
            _LIVE.add(tmp)
        try:
            try:
                _write_all(fd, chunks)
                mode = _existing_mode(target)
                if mode is not None:
                    os.fchmod(fd, mode)
                os.fsync(fd)
            finally:
                os.close(fd)
            _replace(tmp, target)
        except BaseException as err:
            with contextlib.suppress(OSError):
                tmp.unlink()
            if isinstance(err, OSError):
                raise OutputError(f"{target}: write failed ({err.strerror or err})") from None
            raise
        finally:
            with _LIVE_LOCK:
                _LIVE.discard(tmp)
    return target


def _replace(tmp: Path, target: Path) -> None:
    """Rename into place, unless the target became a link or special file meanwhile."""
    with contextlib.suppress(FileNotFoundError):
        mode = os.lstat(target).st_mode
        if not stat.S_ISREG(mode):
            raise OutputError(f"{target}: expected a regular file path, found a special file")
    tmp.replace(target)
