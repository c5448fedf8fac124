"""OpenCode: JSON storage and SQLite, steps, tool parts, compaction and usage."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ctxtui.core.session.models import PartKind, Session
from ctxtui.importers import opencode
from ctxtui.importers._opencode_messages import StoredMessage, build_session
from ctxtui.importers._stream import Dropped, open_source

EXAMPLES = Path("/work/shared/reference/examples")
STORAGE = EXAMPLES / "opencode_storage"


def _check_example(session: Session) -> None:
    assert [m.role for m in session.messages] == ["user", "assistant", "tool", "assistant"]
    step = session.messages[1]
    assert step.reasoning == "Stat the file."
    assert step.tool_calls[0].id == "toolu_01Z" and step.tool_calls[0].name == "bash"
    assert step.usage is not None and step.usage.prompt_total == 6 + 7400 + 300
    assert step.usage.cached_read == 7400 and step.usage.output == 40
    assert session.messages[2].content == "2048 notes.txt"
    assert session.call_of_result == {2: 1} and session.orphan_results == ()
    assert session.messages[3].content == "notes.txt is 2 KiB."
    assert session.meta.model == "claude-sonnet-4-5" and session.meta.title == "File size"


@pytest.mark.parametrize(
    "path",
    [
        STORAGE,
        STORAGE / "session" / "prj_demo" / "ses_01DEMO.json",
        STORAGE / "message" / "ses_01DEMO",
        EXAMPLES / "opencode_demo.db",
    ],
    ids=["root", "session-file", "message-dir", "sqlite"],
)
def test_examples(path: Path) -> None:
    _check_example(_read(opencode, path))


def _msg(mid: str, role: str, parts: list[dict[str, Any]], **info: Any) -> StoredMessage:
    return StoredMessage(mid, {"id": mid, "role": role, **info}, parts)


def test_compaction_steps_and_tool_states() -> None:
    finish = {"type": "step-finish", "tokens": {"input": 1, "output": 2, "cache": {"read": 3}}}
    stored = [
        _msg("msg_1", "user", [{"type": "text", "text": "old"}]),
        _msg("msg_2", "user", [{"type": "compaction", "auto": True}]),
        _msg("msg_3", "assistant", [{"type": "text", "text": "summary"}], summary=True,
             parentID="msg_2"),
        _msg("msg_4", "user", [
            {"type": "text", "text": "go"},
            {"type": "file", "mime": "image/png", "url": "data:image/png;base64,QUJD"},
            {"type": "text", "text": "<file>", "synthetic": True},
        ]),
        _msg("msg_5", "assistant", [
            {"type": "step-start"},
            {"type": "tool", "callID": "a", "tool": "read", "state": {"status": "error",
                                                                     "error": "nope"}},
            {"type": "tool", "callID": "b", "tool": "bash", "state": {"status": "running"}},
            finish,
            {"type": "step-start"},
            {"type": "tool", "callID": "c", "tool": "bash", "state": {
                "status": "completed", "output": "big", "time": {"compacted": 1}}},
            finish,
        ]),
        _msg("msg_6", "assistant", [{"type": "text", "text": "x"}], error={"name": "APIError"}),
    ]  # fmt: skip
    warnings: list[str] = []
    session = build_session(stored, warnings, Dropped())
    roles = [m.role for m in session.messages]
    assert roles == ["user", "assistant", "user", "user", "assistant", "tool", "assistant", "tool"]
    ask, summary, typed, injected = session.messages[:4]
    assert ask.content == "What did we do so far?" and ask.injected
    assert summary.is_summary and summary.content == "summary"
    assert not typed.injected and typed.media_parts[0].kind is PartKind.IMAGE
    assert typed.media_parts[0].byte_size == 3 and "QUJD" not in typed.content
    assert injected.injected and injected.content == "<file>"
    first_step = session.messages[4]
    assert [c.id for c in first_step.tool_calls] == ["a", "b"]
    assert first_step.usage is not None and first_step.usage.prompt_total == 4
    assert session.messages[5].is_error and session.messages[5].content == "nope"
    assert session.messages[7].content == "[Old tool result content cleared]"
    assert any("1 earlier message hidden" in w for w in session.meta.events)
    assert any("1 tool call pending or running" in w for w in warnings)
    assert any("1 failed assistant messages skipped" in w for w in warnings)


def test_temp_files_are_skipped(tmp_path: Path) -> None:
    root = tmp_path / "storage"
    (root / "message" / "ses_A").mkdir(parents=True)
    (root / "part" / "msg_1").mkdir(parents=True)
    info = {"id": "msg_1", "sessionID": "ses_A", "role": "user", "time": {"created": 1}}
    (root / "message" / "ses_A" / "msg_1.json").write_text(json.dumps(info))
    (root / "message" / "ses_A" / ".oc-msg_2.json.1.2.tmp").write_text("{broken")
    part = {"id": "prt_1", "type": "text", "text": "hello"}
    (root / "part" / "msg_1" / "prt_1.json").write_text(json.dumps(part))
    session = _read(opencode, root)
    assert [m.content for m in session.messages] == ["hello"]
    assert session.meta.warnings == ()


def _two_sessions(tmp_path: Path) -> Path:
    """A JSON storage of two one-message sessions, as OpenCode <= 1.1 writes it."""
    root = tmp_path / "storage"
    for ses, text in (("ses_A", "first"), ("ses_B", "second")):
        msg = f"msg_{ses}"
        (root / "message" / ses).mkdir(parents=True)
        (root / "part" / msg).mkdir(parents=True)
        (root / "session" / "prj").mkdir(parents=True, exist_ok=True)
        info = {"id": msg, "sessionID": ses, "role": "user", "time": {"created": 1}}
        (root / "message" / ses / f"{msg}.json").write_text(json.dumps(info))
        part = {"id": "prt_1", "type": "text", "text": text}
        (root / "part" / msg / "prt_1.json").write_text(json.dumps(part))
        (root / "session" / "prj" / f"{ses}.json").write_text(json.dumps({"id": ses}))
    return root


def test_a_sessions_message_directory_opens_that_session(tmp_path: Path) -> None:
    """``ctxtui sessions`` lists a storage session as its ``message/ses_*`` directory: that
    path opens, and it is that session, not the storage's latest."""
    from ctxtui.importers import load_session

    root = _two_sessions(tmp_path)
    assert [m.content for m in load_session(root / "message" / "ses_A").messages] == ["first"]
    assert [m.content for m in load_session(root / "message" / "ses_B").messages] == ["second"]


def test_sniff() -> None:
    head = json.loads((STORAGE / "message" / "ses_01DEMO" / "msg_01USER.json").read_text())
    assert opencode.sniff(STORAGE, head) >= 80
    assert opencode.sniff(STORAGE, {"role": "user", "content": "x"}) == 0


def test_one_session_of_a_database_opens_by_its_id(tmp_path: Path) -> None:
    """``ctxtui sessions`` lists database sessions as ``opencode.db#ses_…``; each opens."""
    import shutil

    from ctxtui.core.errors import SessionLoadError
    from ctxtui.importers import load_session, split_session_id

    db = tmp_path / "opencode.db"
    shutil.copy(EXAMPLES / "opencode_demo.db", db)
    whole = load_session(db)
    named = load_session(f"{db}#ses_01DEMO")
    assert named.messages == whole.messages
    assert named.meta.source_path == str(db)
    with pytest.raises(SessionLoadError, match="no session 'ses_NOPE' in the database"):
        load_session(f"{db}#ses_NOPE")
    odd = tmp_path / "notes#1.json"
    assert split_session_id(odd) == (odd, None)  # no file on the left of the '#'


def _read(module: Any, path: Path) -> Session:
    """What ``module``'s importer reads from ``path`` opened as a source."""
    with open_source(path) as source:
        session: Session = module.load(source)
        return session
