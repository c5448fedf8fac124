"""ctxtui's own format: the core ``Session`` as JSON inside a versioned envelope.

The envelope is ``{"schema": "ctxtui.session/1", "session": <Session.model_dump(mode="json")>}``;
the schema tag lets a later model version refuse or migrate old files instead of misreading them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ctxtui.core.errors import SessionLoadError
from ctxtui.core.session.formats import format_info
from ctxtui.core.session.models import Session
from ctxtui.importers._parts import SCHEMA_MAX_DEPTH, quoted, schema_too_deep, short_text
from ctxtui.importers._reader import json_kind, read_json
from ctxtui.importers._stream import Source
from ctxtui.system.export import NATIVE_SCHEMA

FORMAT = format_info("native")
SCHEMA = NATIVE_SCHEMA
"""Defined beside the writer (``ctxtui.system.export``) so the two can never disagree."""


def sniff(path: Path, head: Any) -> int:
    """Certain when the envelope's schema tag is ours; nothing else looks like it."""
    if isinstance(head, dict) and head.get("schema") == SCHEMA:
        return 100
    return 0


def _first_problem(exc: ValidationError) -> str:
    error = exc.errors()[0]
    where = ".".join(short_text(str(p)) for p in error["loc"]) or "session"
    more = exc.error_count() - 1
    tail = f" (and {more} more problems)" if more else ""
    return f"{where}: {error['msg']}{tail}"


def load(source: Source) -> Session:
    path = source.path
    doc = read_json(source)
    if not isinstance(doc, dict) or "schema" not in doc:
        raise SessionLoadError(
            str(path), f"expected a ctxtui native document ({SCHEMA}), found {json_kind(doc)}"
        )
    if doc["schema"] != SCHEMA:
        raise SessionLoadError(
            str(path),
            f"expected schema {SCHEMA!r}, found {quoted(doc['schema'])} (unsupported version)",
        )
    try:
        session = Session.model_validate(doc.get("session"))
    except ValidationError as exc:
        raise SessionLoadError(
            str(path), f"invalid native session at {_first_problem(exc)}"
        ) from None
    for i, tool in enumerate(session.tools):
        if schema_too_deep(tool.parameters):
            raise SessionLoadError(
                str(path),
                f"invalid native session at tools.{i}.parameters: "
                f"nesting deeper than {SCHEMA_MAX_DEPTH} levels",
            )
    return session
