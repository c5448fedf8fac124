"""The native format reads back exactly what the core model dumps inside its envelope."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from ctxtui.core.errors import SessionLoadError
from ctxtui.core.session.models import (
    ContentPart,
    Message,
    PartKind,
    Session,
    SessionMeta,
    ToolCall,
    ToolDefinition,
    Usage,
)
from ctxtui.importers import load_session
from ctxtui.importers.native import SCHEMA
from ctxtui.system.export import native_document


def _session() -> Session:
    return Session(
        system_prompt="sys",
        tools=(ToolDefinition(name="read", description="d", parameters={"type": "object"}),),
        messages=(
            Message(
                role="user",
                content="look",
                parts=(
                    ContentPart(kind=PartKind.TEXT, text="look"),
                    ContentPart(kind=PartKind.IMAGE, media_type="image/png", byte_size=10),
                ),
                created_at=datetime(2026, 1, 5, 10, tzinfo=UTC),
            ),
            Message(
                role="assistant",
                tool_calls=(ToolCall(id="c1", name="read", arguments="{}"),),
                parts=(ContentPart(kind=PartKind.OPAQUE, byte_size=12, label="sig"),),
                usage=Usage(prompt_total=100, cached_read=50, output=3, source="x"),
            ),
            Message(role="tool", content="data", tool_call_id="c1", tool_name="read"),
        ),
        meta=SessionMeta(format="claude-code", model="m", context_window=32000, title="t"),
    )


def test_round_trip_of_the_envelope(tmp_path: Path) -> None:
    original = _session()
    path = tmp_path / "s.json"
    path.write_text(json.dumps(native_document(original)))
    loaded = load_session(path)
    assert loaded.meta.format == "native"
    assert loaded.meta.source_path == str(path)
    keep = {"source_path", "format"}
    assert loaded.model_copy(update={"meta": original.meta}) == original
    assert loaded.meta.model_dump(exclude=keep) == original.meta.model_dump(exclude=keep)


def test_model_dump_json_wrapped_by_hand_is_read(tmp_path: Path) -> None:
    original = _session()
    path = tmp_path / "s.json"
    path.write_text(f'{{"schema": "{SCHEMA}", "session": {original.model_dump_json()}}}')
    assert load_session(path, "native").messages == original.messages


def test_unknown_schema_version_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    path.write_text('{"schema": "ctxtui.session/9", "session": {}}')
    with pytest.raises(SessionLoadError, match="unsupported version"):
        load_session(path, "native")


def test_invalid_session_names_the_field(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    path.write_text(json.dumps({"schema": SCHEMA, "session": {"messages": [{"role": "robot"}]}}))
    with pytest.raises(SessionLoadError) as info:
        load_session(path)
    assert "messages.0.role" in str(info.value)
    assert "\n" not in str(info.value)
