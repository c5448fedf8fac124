"""Truncation of huge tool outputs: the plan's ``TruncateToolOutput`` with defects X30–X39 fixed.

The planner only needs what the model would see (``render``), so planning never writes a
file; the write path (``truncate_tool_output``) is what an agent would run at ingest time, kept
here so the saved file and the text the model sees are produced by one rule.
"""

from __future__ import annotations

import os
import re
import stat
import tempfile
import threading
import time
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import platformdirs

from ctxtui.core.wording import plural

_ENCODING = "utf-8"
_ERRORS = "surrogatepass"  # never fail on a lone surrogate decoded from JSON
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]+")
_NAME_LIMIT = 64
_PREFIX = "tool_"
_SUFFIX = ".txt"
SEPARATOR = "\n\n"
"""Between the preview and the notice, in the one text the model is sent."""

KEEP_SECONDS = 7 * 24 * 3600
"""Saved outputs older than this are swept (OpenCode keeps its truncation files 7 days)."""
SWEEP_EVERY_SECONDS = 3600
"""A directory is swept at most this often per process (OpenCode sweeps hourly)."""
_SWEPT: dict[Path, float] = {}
_SWEPT_LOCK = threading.Lock()


@dataclass(frozen=True, slots=True)
class TruncatedResult:
    """What the model would see, and where the whole output went. ``hint`` says how much is
    shown and where the rest is (X38); ``text`` joins them, so no caller drops the notice."""

    preview: str
    full_path: str | None
    was_truncated: bool
    hint: str

    @property
    def text(self) -> str:
        """Preview and notice as sent to the model; the output itself when not truncated."""
        if not self.was_truncated:
            return self.preview
        return f"{self.preview}{SEPARATOR}{self.hint}" if self.preview else self.hint


def check_limits(max_lines: int, max_bytes: int) -> None:
    """Reject limits ≤ 0, which would "truncate" every output to nothing (X39)."""
    if max_lines <= 0:
        raise ValueError(f"max_lines must be at least 1, got {max_lines:,}")
    if max_bytes <= 0:
        raise ValueError(f"max_bytes must be at least 1, got {max_bytes:,}")


def count_lines(output: str) -> int:
    """Lines of ``output``; a trailing newline ends a line rather than starting one (X36)."""
    if not output:
        return 0
    return output.count("\n") + (0 if output.endswith("\n") else 1)


def byte_size(output: str) -> int:
    """UTF-8 size of ``output``, the unit of ``max_bytes`` (its length when ASCII, an O(1) test)."""
    if output.isascii():
        return len(output)
    return len(output.encode(_ENCODING, _ERRORS))


def needs_truncation(output: str, max_lines: int, max_bytes: int) -> bool:
    """True when the output is over either limit."""
    check_limits(max_lines, max_bytes)
    return count_lines(output) > max_lines or byte_size(output) > max_bytes


def preview_of(output: str, max_lines: int, max_bytes: int) -> str:
    """The first ``max_lines`` lines cut to ``max_bytes`` bytes, never inside a character (X35):
    always a prefix of the output, so preview plus saved file lose no byte."""
    if not needs_truncation(output, max_lines, max_bytes):
        return output
    return _cut(output, max_lines, max_bytes)


def _cut(output: str, max_lines: int, max_bytes: int) -> str:
    """``preview_of`` for an output already known to be over a limit."""
    cut = 0
    for _ in range(max_lines):
        nl = output.find("\n", cut)
        if nl < 0:
            cut = len(output)
            break
        cut = nl + 1
    head = output[:cut].removesuffix("\n") if cut < len(output) else output
    raw = head.encode(_ENCODING, _ERRORS)
    if len(raw) <= max_bytes:
        return head
    end = max_bytes
    while end > 0 and (raw[end] & 0xC0) == 0x80:  # a continuation byte: back to the lead byte
        end -= 1
    return raw[:end].decode(_ENCODING, _ERRORS)


def sanitize_tool_name(tool_name: str) -> str:
    """A file-name-safe form of a tool name that cannot leave the directory (X31)."""
    safe = _UNSAFE.sub("_", tool_name).strip("_")[:_NAME_LIMIT]
    return safe or "tool"


def hint_for(path: str) -> str:
    """The plan's hint, with the path it forgot to format in (X34)."""
    return f"Tool output truncated. Full output saved to {path}. Use read_file or grep to access."


def unsaved_hint(problem: str) -> str:
    """The hint when the output could not be saved: the preview still reaches the model (X37)."""
    return f"Tool output truncated. The full output could not be saved ({problem})."


def shown_marker(shown_lines: int, lines: int, shown_bytes: int, size: int) -> str:
    """How much of the output the preview holds, so it is never mistaken for the whole (X38)."""
    of_lines, of_bytes = plural(lines, "line"), plural(size, "byte")
    return f"...{shown_lines:,} of {of_lines} ({shown_bytes:,} of {of_bytes}) shown..."


def notice_for(
    shown_lines: int, lines: int, shown_bytes: int, size: int, path: str | None, problem: str = ""
) -> str:
    """The marker and the hint that follow a preview: counts, then where the rest went."""
    hint = hint_for(path) if path is not None else unsaved_hint(problem)
    return f"{shown_marker(shown_lines, lines, shown_bytes, size)}\n{hint}"


def render(
    output: str, max_lines: int, max_bytes: int, path: str | None, problem: str = ""
) -> TruncatedResult:
    """What the model sees for ``output``, without writing anything: preview, separator and
    notice within ``max_bytes`` (X38), or the notice alone when it does not fit. The room is
    reckoned with the whole output's counts, never shorter than those shown."""
    return render_measured(
        output, count_lines(output), byte_size(output), max_lines, max_bytes, path, problem
    )


def render_measured(
    output: str,
    lines: int,
    size: int,
    max_lines: int,
    max_bytes: int,
    path: str | None,
    problem: str = "",
) -> TruncatedResult:
    """``render`` of an output whose ``count_lines`` and ``byte_size`` are already known."""
    check_limits(max_lines, max_bytes)
    if lines <= max_lines and size <= max_bytes:
        return TruncatedResult(preview=output, full_path=None, was_truncated=False, hint="")
    widest = notice_for(lines, lines, size, size, path, problem)
    room = max_bytes - byte_size(widest) - byte_size(SEPARATOR)
    # room < max_bytes and the output is over a limit, so it is over (max_lines, room) too
    preview = _cut(output, max_lines, room) if room > 0 else ""
    hint = notice_for(count_lines(preview), lines, byte_size(preview), size, path, problem)
    return TruncatedResult(preview=preview, full_path=path, was_truncated=True, hint=hint)


@lru_cache(maxsize=1)
def default_directory() -> Path:
    """Where full outputs go: a private folder in the user's cache dir, not shared /tmp (X32)."""
    return Path(platformdirs.user_cache_dir("ctxtui")) / "tool-output"


PLANNED_DIRECTORY = Path("~/.cache/ctxtui/tool-output")
"""The directory a plan's hints name: the Linux default in ``~`` form, the same on every
machine, so a plan (and a snapshot of it) does not depend on who runs it or where."""


def planned_path(tool_name: str, directory: Path | None = None) -> str:
    """A saved-file path as long as ``mkstemp``'s, so the planner counts the hint unwritten."""
    folder = directory if directory is not None else PLANNED_DIRECTORY
    return str(folder / f"{_PREFIX}{sanitize_tool_name(tool_name)}_xxxxxxxx{_SUFFIX}")


MARKER_NAME = ".ctxtui-tool-output"
"""Written into a directory this module creates; only a directory holding it is ever swept."""
MARKER_TEXT = (
    b"ctxtui saves truncated tool outputs here as tool_<tool>_<8 characters>.txt;\n"
    b"those older than 7 days are deleted. Remove this file to stop that.\n"
)
_SAVED_NAME = re.compile(rf"{_PREFIX}[A-Za-z0-9_-]{{1,{_NAME_LIMIT}}}_[a-z0-9_]{{8}}{_SUFFIX}")
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
            prefix=f"{_PREFIX}{sanitize_tool_name(tool_name)}_",
            suffix=_SUFFIX,
            dir=_private_directory(folder),
        )
        with os.fdopen(fd, "wb") as fh:
            fh.write(output.encode(_ENCODING, _ERRORS))
    except OSError as err:
        problem = err.strerror or str(err) or type(err).__name__
        return render(output, max_lines, max_bytes, None, problem)
    _sweep_now_and_then(folder)
    return render(output, max_lines, max_bytes, path)
