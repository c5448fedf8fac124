"""Writing a session as ctxtui's native JSON, atomically, never over what it was read from.

The versioned envelope ``{"schema": "ctxtui.session/1", "session": {...}}`` that the
``native`` importer reads back (a bare dump would read as OpenAI Chat and lose its system
prompt, tools and metadata). The write's rules live in ``ctxtui.system.output``; what is
protected is every file the importers read for the source. ``check_target`` runs the checks up
front, so a bad ``-o`` is refused before any compacting.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ctxtui.core.literal import json_literal
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
    """The document as UTF-8 JSON text, a lone surrogate as U+FFFD rather than a failed write
    or a file no JSON reader accepts. DEL, C1, U+2028/9 and the bidi controls are ``\\uXXXX``
    escapes (``json_literal``, as every JSON output): a ``cat`` of the file cannot act on them."""
    text = json.dumps(native_document(session), ensure_ascii=False, indent=1)
    return json_literal(_SURROGATE.sub("\ufffd", text).encode("utf-8") + b"\n")


def check_target(
    session: Session,
    path: str | os.PathLike[str],
    *,
    protected: Iterable[Path],
    force: bool = False,
) -> Path:
    """The path to write, or ``ExportError`` saying why not (``output.check_output``);
    ``protected`` (``importers.source_protection``) has no default, so no caller forgets it."""
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
    """Write ``session`` to ``path`` as native JSON, checked as ``check_target`` and atomically
    (``output.atomic_write``); returns the path written."""
    target = check_target(session, path, force=force, protected=protected)
    return atomic_write(target, (native_bytes(session),))
