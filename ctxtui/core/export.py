"""Writing a session as ctxtui's native JSON, atomically, never over the file it came from.

The file is the versioned envelope ``{"schema": "ctxtui.session/1", "session": {...}}`` that
the ``native`` importer reads back; a bare session dump would be detected as OpenAI Chat and
lose its system prompt, tools and metadata on the way back in.

A compacted session is written next to its target as a temporary file, flushed to disk, then
renamed over the target in one step, so a crash leaves either the old file or the new one and
never half of either. The source transcript is read-only to ctxtui: writing onto it is refused,
and so is anything that is not a regular file (renaming over ``/dev/null`` would replace the
device). ``check_target`` runs the same checks up front, so a command can refuse a bad ``-o``
before it spends time compacting.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import stat
import tempfile
from pathlib import Path
from typing import Any

from ctxtui.core.models import Session

NATIVE_SCHEMA = "ctxtui.session/1"
"""The schema tag of the native envelope; the ``native`` importer refuses any other."""

DEFAULT_MODE = 0o644
"""Permissions of a new file when the source's are unknown (what ``open()`` gives by default)."""

_SURROGATE = re.compile("[\ud800-\udfff]")


class ExportError(Exception):
    """The session could not be written; ``str()`` is the one line shown to the user."""


def native_document(session: Session) -> dict[str, Any]:
    """The native JSON document of a session (what the ``native`` importer reads back)."""
    return {"schema": NATIVE_SCHEMA, "session": session.model_dump(mode="json")}


def native_bytes(session: Session) -> bytes:
    """The document as UTF-8 JSON text.

    A lone surrogate (a file name that is not UTF-8, say) cannot be encoded; it becomes U+FFFD
    rather than failing the write or producing a file no JSON reader accepts.
    """
    text = json.dumps(native_document(session), ensure_ascii=False, indent=1)
    return _SURROGATE.sub("\ufffd", text).encode("utf-8") + b"\n"


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve() or (b.exists() and a.samefile(b))
    except OSError:
        return False


def check_target(session: Session, path: str | os.PathLike[str], *, force: bool = False) -> Path:
    """The path to write, or ``ExportError`` saying why it cannot be written.

    Refuses an empty path, the session's own source file (always, through links too), a
    directory or special file, an existing file unless ``force``, and a directory that is
    missing or not writable.
    """
    if not os.fspath(path):
        raise ExportError("-o: expected a file path, found an empty string")
    target = Path(path)
    source = session.meta.source_path
    if source and _same_file(Path(source), target):
        raise ExportError(f"{target}: refusing to overwrite the source session")
    if target.is_dir():
        raise ExportError(f"{target}: expected a file path, found a directory")
    if target.exists() or target.is_symlink():
        if target.exists() and not target.is_file():
            raise ExportError(f"{target}: expected a regular file path, found a special file")
        if not force:
            raise ExportError(f"{target}: file exists (use --force to overwrite it)")
    directory = target.parent
    if not directory.is_dir():
        raise ExportError(f"{target}: expected an existing directory {directory}, found none")
    if not os.access(directory, os.W_OK | os.X_OK):
        raise ExportError(f"{target}: cannot write in {directory}: permission denied")
    return target


def _mode_for(target: Path, source: str | None) -> int:
    """Keep an overwritten file's permissions; a new file gets the source's (a private
    transcript stays private), or ``DEFAULT_MODE``."""
    for candidate in (target, Path(source) if source else None):
        if candidate is None:
            continue
        with contextlib.suppress(OSError):
            return stat.S_IMODE(candidate.stat().st_mode) & 0o666
    return DEFAULT_MODE


def write_session(session: Session, path: str | os.PathLike[str], *, force: bool = False) -> Path:
    """Write ``session`` to ``path`` as native JSON and return the path written.

    The checks of ``check_target`` apply; the write itself is atomic (temporary file, fsync,
    rename), and a failure leaves the target as it was and no temporary file behind.
    """
    target = check_target(session, path, force=force)
    data = native_bytes(session)
    mode = _mode_for(target, session.meta.source_path)
    try:
        fd, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as err:
        raise ExportError(f"{target}: cannot write here ({err.strerror})") from None
    tmp = Path(name)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        tmp.chmod(mode)
        tmp.replace(target)
    except OSError as err:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise ExportError(f"{target}: write failed ({err.strerror})") from None
    return target
