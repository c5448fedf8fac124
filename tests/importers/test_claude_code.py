"""Claude Code transcripts: threading, split responses, compaction, sidechains, bad lines."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ctxtui.core.session.models import PartKind, Session
from ctxtui.importers import claude_code, load_session
from ctxtui.importers._jsonl import iter_records
from ctxtui.importers._stream import open_file, open_source
from ctxtui.samples import samples_dir

EXAMPLE = Path("/work/shared/reference/examples/claude_code_session.jsonl")


def _entry(uuid: str, parent: str | None, kind: str, **extra: Any) -> dict[str, Any]:
    return {"type": kind, "uuid": uuid, "parentUuid": parent, "sessionId": "s", **extra}


def _assistant(uuid: str, parent: str, msg_id: str, blocks: list[Any], out: int = 5) -> Any:
    usage = {"input_tokens": 2, "cache_creation_input_tokens": 10, "cache_read_input_tokens": 100}
    message = {"id": msg_id, "role": "assistant", "model": "claude-x", "content": blocks}
    return _entry(
        uuid, parent, "assistant", message=message | {"usage": usage | {"output_tokens": out}}
    )


def _user(uuid: str, parent: str | None, content: Any, **extra: Any) -> Any:
    return _entry(uuid, parent, "user", message={"role": "user", "content": content}, **extra)


def _write(tmp_path: Path, lines: list[Any], tail: str = "") -> Path:
    path = tmp_path / "session.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines) + tail, encoding="utf-8")
    return path


def test_example_default_is_what_the_model_sees_after_compaction() -> None:
    session = _read(claude_code, EXAMPLE)
    assert [m.role for m in session.messages] == ["user"]
    summary = session.messages[0]
    assert summary.is_summary and summary.content.startswith("This session is being continued")
    assert session.meta.title == "Checking size of notes.txt"  # the summary line is a title
    assert session.meta.model == "claude-sonnet-4-5"
    assert any(
        "compact boundary at line 6: 4 earlier messages hidden, preTokens 16,307" in w
        for w in session.meta.events
    )
    assert not any("compact boundary" in w for w in session.meta.warnings)  # an event


def test_example_full_history_merges_split_response_and_pairs_tool() -> None:
    with open_file(EXAMPLE) as source:
        records = list(iter_records(source, [], typed=claude_code.Live.RECORD))
    live = claude_code.Live(full_history=True)
    live.add(records)
    session = live.session(str(EXAMPLE))
    assert [m.role for m in session.messages] == ["user", "assistant", "tool", "assistant", "user"]
    call = session.messages[1]
    assert [c.name for c in call.tool_calls] == ["Bash"]
    assert call.reasoning == "Stat the file."
    assert [p.kind for p in call.parts] == [PartKind.OPAQUE]  # the signature, never text
    assert call.usage is not None and call.usage.prompt_total == 3 + 1200 + 15000
    assert call.usage.output == 40  # counted once for the two lines of msg_01AA
    result = session.messages[2]
    assert result.content == "2048 notes.txt" and result.tool_name == "Bash"
    assert "stdout" not in result.content and session.call_of_result == {2: 1}
    assert session.orphan_results == ()
    assert session.messages[3].usage is not None
    assert session.messages[3].usage.prompt_total == 5 + 90 + 16200


def test_split_lines_with_duplicated_usage_merge_into_one_message(tmp_path: Path) -> None:
    lines = [
        _user("u1", None, "hi"),
        _assistant("a1", "u1", "m1", [{"type": "text", "text": "part one"}], out=1),
        _assistant(
            "a2", "a1", "m1", [{"type": "tool_use", "id": "t1", "name": "Read", "input": {}}], out=9
        ),
        _user("u2", "a2", [{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}]),
        _assistant(
            "a3", "u2", "m1", [{"type": "tool_use", "id": "t2", "name": "Grep", "input": {}}], out=9
        ),
    ]
    session = _read(claude_code, _write(tmp_path, lines))
    assert [m.role for m in session.messages] == ["user", "assistant", "tool"]
    merged = session.messages[1]
    assert merged.content == "part one"
    assert [c.id for c in merged.tool_calls] == ["t1", "t2"]
    assert merged.usage is not None and merged.usage.output == 9  # last line's usage, once
    assert sum(1 for m in session.messages if m.usage) == 1


def test_compact_boundary_hides_earlier_chain(tmp_path: Path) -> None:
    boundary = _entry(
        "b", None, "system", subtype="compact_boundary", logicalParentUuid="a1",
        compactMetadata={"preTokens": 12345},
    )  # fmt: skip
    lines = [
        _user("u1", None, "old question"),
        _assistant("a1", "u1", "m1", [{"type": "text", "text": "old answer"}]),
        boundary,
        _user("s", "b", "This session is being continued...", isCompactSummary=True),
        _user("u2", "s", "new question"),
    ]
    session = _read(claude_code, _write(tmp_path, lines))
    assert [m.content for m in session.messages] == [
        "This session is being continued...",
        "new question",
    ]
    assert session.messages[0].is_summary and not session.messages[1].is_summary
    assert any("2 earlier messages hidden, preTokens 12,345" in w for w in session.meta.events)


def test_sidechains_and_bookkeeping_are_not_messages(tmp_path: Path) -> None:
    lines = [
        {"type": "file-history-snapshot", "messageId": "x", "snapshot": {}},
        _user("u1", None, "main"),
        _user("side", "u1", "subagent prompt", isSidechain=True),
        _entry("p1", "u1", "progress", data={}),
        _user("u2", "p1", "caveat text", isMeta=True),
        {"type": "queue-operation", "operation": "enqueue", "content": "later"},
    ]
    path = _write(tmp_path, lines)
    session = _read(claude_code, path)
    assert [m.content for m in session.messages] == ["main", "caveat text"]
    assert session.messages[1].injected and not session.messages[0].injected
    assert f"1 sub-agent record (1 sub-agent) left out; open it as {path}#side" in (
        session.meta.warnings
    )


def test_newest_leaf_wins_over_a_rewound_sibling(tmp_path: Path) -> None:
    lines = [
        _user("u1", None, "q", timestamp="2026-01-01T00:00:00Z"),
        _user("new", "u1", "edited", timestamp="2026-01-01T00:00:09Z"),
        _user("old", "u1", "original", timestamp="2026-01-01T00:00:05Z"),  # written later
    ]
    session = _read(claude_code, _write(tmp_path, lines))
    assert [m.content for m in session.messages] == ["q", "edited"]


def test_images_synthetic_and_tool_result_arrays(tmp_path: Path) -> None:
    image = {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": "QUJD"},
    }
    synthetic = _assistant("a2", "u2", "m2", [{"type": "text", "text": "API Error"}])
    synthetic["message"]["model"] = "<synthetic>"
    result = {"type": "tool_result", "tool_use_id": "t", "is_error": True}
    result["content"] = [{"type": "text", "text": "shot"}, image]
    call = {"type": "tool_use", "id": "t", "name": "Shot", "input": {}}
    lines = [
        _user("u1", None, [{"type": "text", "text": "look"}, image]),
        _assistant("a1", "u1", "m1", [call]),
        _user("u2", "a1", [result]),
        synthetic,
    ]
    session = _read(claude_code, _write(tmp_path, lines))
    user, _, tool, error = session.messages
    assert user.content == "look" and user.media_parts[0].byte_size == 3
    assert "QUJD" not in user.content
    assert tool.is_error and tool.content == "shot" and len(tool.media_parts) == 1
    assert error.injected and error.usage is None


def test_corrupt_middle_and_cut_off_last_line_are_warned(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    good = [json.dumps(_user("u1", None, "a")), "{not json", json.dumps(_user("u2", "u1", "b"))]
    path.write_text("\n".join(good) + "\n" + '{"type": "user", "uu', encoding="utf-8")
    session = _read(claude_code, path)
    assert [m.content for m in session.messages] == ["a", "b"]
    assert any(w.startswith("line 2:") for w in session.meta.warnings)
    assert any(w.startswith("line 4:") and "incomplete" in w for w in session.meta.warnings)


def test_sniff() -> None:
    head = json.loads(EXAMPLE.read_text().splitlines()[0])
    assert claude_code.sniff(EXAMPLE, head) >= 90
    assert claude_code.sniff(EXAMPLE, {"role": "user", "content": "x"}) == 0


def test_blocks_read_as_the_anthropic_importer_reads_them(tmp_path: Path) -> None:
    """Claude Code holds Anthropic blocks: a text-source document is sized, a null text is
    empty (it used to read "None"), and a document keeps its title."""
    document = {
        "type": "document",
        "title": "notes.txt",
        "source": {"type": "text", "media_type": "text/plain", "data": "2 KiB of notes"},
    }
    result = {"type": "tool_result", "tool_use_id": "t1", "content": [document]}
    path = _write(
        tmp_path,
        [
            _user("u1", None, [{"type": "text", "text": None}, {"type": "text", "text": "hi"}]),
            _user("u2", "u1", [result]),
        ],
    )
    user, tool = _read(claude_code, path).messages
    assert user.content == "\nhi"
    (part,) = tool.parts
    assert (part.kind, part.label, part.byte_size) == (PartKind.OTHER, "notes.txt", 14)


def test_null_fields_read_as_empty_not_none(tmp_path: Path) -> None:
    """A null ``text``, ``thinking`` or ``tool_use_id`` is empty, never the string "None"."""
    blocks = [{"type": "thinking", "thinking": None}, {"type": "text", "text": None}]
    result = {"type": "tool_result", "tool_use_id": None, "content": "ok"}
    path = _write(
        tmp_path,
        [
            _user("u1", None, "hi"),
            _assistant("a1", "u1", "m1", blocks),
            _user("u2", "a1", [result]),
        ],
    )
    _, reply, tool = _read(claude_code, path).messages
    assert (reply.content, reply.reasoning, tool.tool_call_id) == ("", "", "")


def test_a_subagent_transcript_opens_as_its_own_session(tmp_path: Path) -> None:
    """``subagents/agent-*.jsonl`` holds only sidechain lines: its own context window."""
    import json

    from ctxtui.importers import load_session

    base = {"isSidechain": True, "agentId": "a1", "sessionId": "s1", "cwd": "/p"}
    records = [
        {**base, "type": "user", "uuid": "u1", "parentUuid": None,
         "timestamp": "2026-11-01T09:00:00Z",
         "message": {"role": "user", "content": "find the bug"}},
        {**base, "type": "assistant", "uuid": "a1", "parentUuid": "u1",
         "timestamp": "2026-11-01T09:00:01Z",
         "message": {"id": "msg_1", "role": "assistant", "model": "claude-sonnet-4-5",
                     "content": [{"type": "text", "text": "found it"}]}},
    ]  # fmt: skip
    path = tmp_path / "subagents" / "agent-a1.jsonl"
    path.parent.mkdir()
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")

    session = load_session(path)

    assert [(m.role, m.content) for m in session.messages] == [
        ("user", "find the bug"),
        ("assistant", "found it"),
    ]
    assert session.meta.model == "claude-sonnet-4-5"
    assert not any("sidechain" in w for w in session.meta.warnings)


def _read(module: Any, path: Path) -> Session:
    """What ``module``'s importer reads from ``path`` opened as a source."""
    with open_source(path) as source:
        session: Session = module.load(source)
        return session


@pytest.mark.parametrize("lines", [2, 3])
@pytest.mark.parametrize("compressed", [False, True])
def test_a_first_line_over_a_mebibyte_is_still_a_record(
    tmp_path: Path, lines: int, compressed: bool
) -> None:
    """An image pasted in a Claude Code session's first prompt makes its first line longer
    than detection's head (``HEAD_LINE_BYTES``): the file is still JSONL, given as a path."""
    import gzip

    from ctxtui.importers._jsonl import HEAD_LINE_BYTES

    source = (samples_dir() / "claude_code_replay.jsonl").read_text().splitlines()
    records = [json.loads(line) for line in source if line.strip()]
    first = next(r for r in records if r.get("type") == "user")
    image = {"type": "base64", "media_type": "image/png", "data": "A" * HEAD_LINE_BYTES}
    first["message"]["content"] = [
        {"type": "text", "text": "what is in this picture?"},
        {"type": "image", "source": image},
    ]
    rest = [r for r in records if r is not first][: lines - 1]
    text = "\n".join(json.dumps(r) for r in [first, *rest]) + "\n"
    assert len(text.splitlines()[0]) > HEAD_LINE_BYTES
    path = tmp_path / ("pasted.jsonl.gz" if compressed else "pasted.jsonl")
    data = text.encode()
    path.write_bytes(gzip.compress(data) if compressed else data)
    session = load_session(path)
    assert session.meta.format == "claude-code"
    assert any(p.kind.value == "image" for m in session.messages for p in m.parts)
