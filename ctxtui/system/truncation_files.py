"""Saving a truncated tool output whole, as an agent would at ingest time (X30–X39): the file
and its private directory, and the sweep of old ones. What the model sees of the output is
``ctxtui.core.planning.truncation``'s rule; this module only adds where the rest went.
"""

from __future__ import annotations

import os
import re
import stat
import tempfile
import threading
import time
from functools import lru_cache
from pathlib import Path

import platformdirs

from ctxtui.core.planning.truncation import (
    ENCODING,
    ERRORS,
    NAME_LIMIT,
    SAVED_PREFIX,
    SAVED_SUFFIX,
    Saved,
    TruncatedResult,
    needs_truncation,
    render,
    sanitize_tool_name,
)

KEEP_SECONDS = 7 * 24 * 3600
"""Saved outputs older than this are swept (OpenCode keeps its truncation files 7 days)."""
SWEEP_EVERY_SECONDS = 3600
"""A directory is swept at most this often per process (OpenCode sweeps hourly)."""
_SWEPT: dict[Path, float] = {}
_SWEPT_LOCK = threading.Lock()


@lru_cache(maxsize=1)
def default_directory() -> Path:
    """Where full outputs go: a private folder in the user's cache dir, not shared /tmp (X32)."""
    return Path(platformdirs.user_cache_dir("ctxtui")) / "tool-output"


MARKER_NAME = ".ctxtui-tool-output"
"""Written into a directory this module creates; only a directory holding it is ever swept."""
MARKER_TEXT = (
    b"ctxtui saves truncated tool outputs here as tool_<tool>_<8 characters>.txt;\n"
    b"those older than 7 days are deleted. Remove this file to stop that.\n"
)
_SAVED_NAME = re.compile(
    rf"{SAVED_PREFIX}[A-Za-z0-9_-]{{1,{NAME_LIMIT}}}_[a-z0-9_]{{8}}{SAVED_SUFFIX}"
)
"""Exactly the names ``truncate_tool_output`` gives (``mkstemp``'s 8 characters included)."""


def _owned(info: os.stat_result) -> bool:
    getuid = getattr(os, "getuid", None)
    return getuid is None or info.st_uid == getuid()


def _private_directory(directory: Path) -> Path:
    """The directory to save into, created 0700 with the sweep marker when missing (X32).

    An existing directory (an agent's workspace, say) is used as it is: never chmodded, never
    marked, so never swept. A symlink or someone else's directory is refused.
    """
    directory.parent.mkdir(parents=True, exist_ok=True)
    try:
        directory.mkdir(mode=0o700)
        created = True
    except FileExistsError:
        created = False
    info = os.lstat(directory)
    if not stat.S_ISDIR(info.st_mode):
        raise NotADirectoryError(f"{directory} is not a directory")
    if not _owned(info):
        raise PermissionError(f"{directory} belongs to another user")
    if created:
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
        fd = os.open(directory / MARKER_NAME, flags, 0o600)
        with os.fdopen(fd, "wb") as fh:
            fh.write(MARKER_TEXT)
    return directory


def _is_marked(folder: Path) -> bool:
    """True when ``folder`` is a directory this module created (its marker is intact)."""
    try:
        info = os.lstat(folder)
        marker = os.lstat(folder / MARKER_NAME)
        if not (stat.S_ISDIR(info.st_mode) and stat.S_ISREG(marker.st_mode)):
            return False
        if not (_owned(info) and _owned(marker)) or marker.st_size != len(MARKER_TEXT):
            return False
        return (folder / MARKER_NAME).read_bytes() == MARKER_TEXT
    except OSError:
        return False


def sweep_saved_outputs(
    directory: Path | None = None, keep_seconds: float = KEEP_SECONDS, now: float | None = None
) -> int:
    """Delete saved outputs older than ``keep_seconds``; returns how many went (X39).

    Only in a directory this module created (it holds the marker), and only regular files of
    this user named exactly as ``truncate_tool_output`` names them, never through a symlink.
    Anything else, such as an old ``tool_notes.txt`` in a workspace, is never touched; a file
    that vanishes or cannot be removed is left to the next sweep.
    """
    folder = directory if directory is not None else default_directory()
    if not _is_marked(folder):
        return 0
    cutoff = (time.time() if now is None else now) - keep_seconds
    removed = 0
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return 0
    for entry in entries:
        if not _SAVED_NAME.fullmatch(entry.name):
            continue
        try:
            info = entry.stat(follow_symlinks=False)
            if stat.S_ISREG(info.st_mode) and _owned(info) and info.st_mtime < cutoff:
                Path(entry.path).unlink()
                removed += 1
        except OSError:
            continue
    return removed


def _sweep_now_and_then(folder: Path) -> None:
    """Sweep ``folder`` at most once per ``SWEEP_EVERY_SECONDS`` in this process."""
    now = time.monotonic()
    with _SWEPT_LOCK:
        last = _SWEPT.get(folder)
        if last is not None and now - last < SWEEP_EVERY_SECONDS:
            return
        _SWEPT[folder] = now
    sweep_saved_outputs(folder)


def truncate_tool_output(
    output: str,
    max_lines: int,
    max_bytes: int,
    tool_name: str,
    directory: Path | None = None,
) -> TruncatedResult:
    """Truncate an output over the limits, saving the whole of it to a new private file.

    Each call creates its own file exclusively (mode 0600, never overwriting one, X30/X32) in
    ``directory`` — the agent's workspace, if its file tools are confined there (X33); a failed
    write still returns the preview, with a hint saying the output was not saved (X37). When
    ctxtui created the directory, saved files older than a week are swept, at most hourly (X39).
    """
    if not needs_truncation(output, max_lines, max_bytes):
        return TruncatedResult(preview=output, full_path=None, was_truncated=False, hint="")
    folder = directory if directory is not None else default_directory()
    try:
        fd, path = tempfile.mkstemp(
            prefix=f"{SAVED_PREFIX}{sanitize_tool_name(tool_name)}_",
            suffix=SAVED_SUFFIX,
            dir=_private_directory(folder),
        )
        with os.fdopen(fd, "wb") as fh:
            fh.write(output.encode(ENCODING, ERRORS))
    except OSError as err:
        problem = err.strerror or str(err) or type(err).__name__
        return render(output, max_lines, max_bytes, Saved(None, problem))
    _sweep_now_and_then(folder)
    return render(output, max_lines, max_bytes, Saved(path))
