"""Writing a session as ctxtui's native JSON, atomically, never over what it was read from.

The file is the versioned envelope ``{"schema": "ctxtui.session/1", "session": {...}}`` that
the ``native`` importer reads back; a bare session dump would be detected as OpenAI Chat and
lose its system prompt, tools and metadata on the way back in.

The rules of the write itself (protected paths, no symlink or special file replaced, umask
permissions, temporary file renamed into place and never left over) live in
``ctxtui.system.output``. What is protected is the importers' knowledge: every file a load of the
session's source reads (a PicoClaw transcript *and* its ``.meta.json``, a SQLite database and
its ``-wal``/``-shm``/``-journal``, a whole OpenCode storage tree). ``check_target`` runs the
same checks up front, so a command can refuse a bad ``-o`` before it spends time compacting.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ctxtui.core.session.models import Session
from ctxtui.system.output import OutputError, atomic_write, check_output

NATIVE_SCHEMA = "ctxtui.session/1"
"""The schema tag of the native envelope; the ``native`` importer refuses any other."""

_SURROGATE = re.compile("[\ud800-\udfff]")

ExportError = OutputError
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


def check_target(
    session: Session,
    path: str | os.PathLike[str],
    *,
    protected: Iterable[Path],
    force: bool = False,
) -> Path:
    """The path to write, or ``ExportError`` saying why it cannot be written.

    ``protected`` is every path the session's source is read from
    (``ctxtui.importers.source_protection``); the core does not know the importers, so the
    caller asks them, and cannot forget to (no default). It is refused always, ``force`` or
    not, through symlinks and hard links. See ``output.check_output`` for the rest.
    """
    source = session.meta.source_path
    return check_output(
        path, protected=protected, force=force, source=Path(source) if source else None
    )


def write_session(
    session: Session,
    path: str | os.PathLike[str],
    *,
    protected: Iterable[Path],
    force: bool = False,
) -> Path:
    """Write ``session`` to ``path`` as native JSON and return the path written.

    The checks of ``check_target`` apply; the write itself is atomic (temporary file, fsync,
    rename), and a failure or interruption leaves the target as it was and no temporary file.
    """
    target = check_target(session, path, force=force, protected=protected)
    return atomic_write(target, (native_bytes(session),))
