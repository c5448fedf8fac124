"""Truncation of huge tool outputs: the plan's ``TruncateToolOutput`` with defects X30–X39 fixed.

The planner only needs the preview (``preview_of``), so planning never writes a file; the
write path (``truncate_tool_output``) is what an agent would run at ingest time, kept here so
the saved file and the preview the model sees are produced by one rule.
"""

from __future__ import annotations

import os
import re
import tempfile
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import platformdirs

_ENCODING = "utf-8"
_ERRORS = "surrogatepass"  # never fail on a lone surrogate decoded from JSON
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]+")
_NAME_LIMIT = 64


@dataclass(frozen=True, slots=True)
class TruncatedResult:
    """What the model would see, and where the whole output went."""

    preview: str
    full_path: str | None
    was_truncated: bool
    hint: str


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
    """UTF-8 size of ``output``, the unit of ``max_bytes``."""
    return len(output.encode(_ENCODING, _ERRORS))


def needs_truncation(output: str, max_lines: int, max_bytes: int) -> bool:
    """True when the output is over either limit."""
    check_limits(max_lines, max_bytes)
    return count_lines(output) > max_lines or byte_size(output) > max_bytes


def preview_of(output: str, max_lines: int, max_bytes: int) -> str:
    """The first ``max_lines`` lines cut to ``max_bytes`` bytes, never inside a character (X35).

    Lines are joined by ``"\\n"`` as in the plan, so the preview is always a prefix of the
    output: preview plus saved file lose no byte. An output within both limits is returned as is.
    """
    if not needs_truncation(output, max_lines, max_bytes):
        return output
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


@lru_cache(maxsize=1)
def default_directory() -> Path:
    """Where full outputs go: a private folder in the user's cache dir, not shared /tmp (X32)."""
    return Path(platformdirs.user_cache_dir("ctxtui")) / "tool-output"


def planned_path(tool_name: str, directory: Path | None = None) -> str:
    """A representative saved-file path, so the planner can count the hint without writing."""
    folder = directory if directory is not None else default_directory()
    return str(folder / f"tool_{sanitize_tool_name(tool_name)}_xxxxxxxx.txt")


def _private_directory(directory: Path) -> Path:
    if not directory.exists():
        directory.mkdir(mode=0o700, parents=True)
    return directory


def truncate_tool_output(
    output: str,
    max_lines: int,
    max_bytes: int,
    tool_name: str,
    directory: Path | None = None,
) -> TruncatedResult:
    """Truncate an output over the limits, saving the whole of it to a new private file.

    Each call creates its own file exclusively (mode 0600, never overwriting one, X30/X32); a
    failed write still returns the preview, with a hint saying the output was not saved (X37).
    """
    if not needs_truncation(output, max_lines, max_bytes):
        return TruncatedResult(preview=output, full_path=None, was_truncated=False, hint="")
    preview = preview_of(output, max_lines, max_bytes)
    folder = directory if directory is not None else default_directory()
    try:
        fd, path = tempfile.mkstemp(
            prefix=f"tool_{sanitize_tool_name(tool_name)}_",
            suffix=".txt",
            dir=_private_directory(folder),
        )
        with os.fdopen(fd, "wb") as fh:
            fh.write(output.encode(_ENCODING, _ERRORS))
    except OSError as err:
        return TruncatedResult(
            preview=preview,
            full_path=None,
            was_truncated=True,
            hint=unsaved_hint(err.strerror or type(err).__name__),
        )
    return TruncatedResult(preview=preview, full_path=path, was_truncated=True, hint=hint_for(path))
