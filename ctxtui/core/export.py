"""Writing a session as ctxtui's native JSON, atomically, never over the file it came from.

A compacted session is written next to its target as a temporary file, flushed to disk, then
renamed over the target in one step, so a crash leaves either the old file or the new one and
never half of either. The source transcript is read-only to ctxtui: writing onto it is refused.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

from ctxtui.core.models import Session


class ExportError(Exception):
    """The session could not be written; ``str()`` is the one line shown to the user."""


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve() or (b.exists() and a.samefile(b))
    except OSError:
        return False


def write_session(session: Session, path: str | os.PathLike[str], *, force: bool = False) -> Path:
    """Write ``session`` to ``path`` as native JSON and return the path written.

    Refuses the session's own source file (always) and an existing file (unless ``force``).
    """
    target = Path(path)
    source = session.meta.source_path
    if source and _same_file(Path(source), target):
        raise ExportError(f"{target}: refusing to overwrite the source session")
    if target.is_dir():
        raise ExportError(f"{target}: is a directory, expected a file path")
    if target.exists() and not force:
        raise ExportError(f"{target}: file exists (use --force to overwrite it)")
    directory = target.parent
    data = session.model_dump_json(indent=1).encode("utf-8") + b"\n"
    try:
        fd, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
    except OSError as err:
        raise ExportError(f"{target}: cannot write here ({err.strerror})") from None
    tmp = Path(name)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        tmp.chmod(0o644)
        tmp.replace(target)
    except OSError as err:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise ExportError(f"{target}: write failed ({err.strerror})") from None
    return target
