"""Claude Code sub-agents written inline (``isSidechain``): left out of the main session,
each opened as a session of its own with ``FILE#agent-<id>`` (or ``FILE#<first uuid>``)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from ctxtui.cli.main import main
from ctxtui.core.errors import SessionLoadError
from ctxtui.importers import load_session
from ctxtui.importers._claude_sidechains import sidechain_ids
from ctxtui.importers.watch import SessionWatcher


def _entry(uuid: str, parent: str | None, kind: str, message: Any, **extra: Any) -> Any:
    return {
        "type": kind,
        "uuid": uuid,
        "parentUuid": parent,
        "sessionId": "s",
        "isSidechain": False,
        "timestamp": f"2026-11-01T09:00:{len(uuid):02d}Z",
        "message": message,
        **extra,
    }


def _user(uuid: str, parent: str | None, content: Any, **extra: Any) -> Any:
    return _entry(uuid, parent, "user", {"role": "user", "content": content}, **extra)


def _assistant(uuid: str, parent: str, blocks: list[Any], **extra: Any) -> Any:
    message = {"id": f"msg_{uuid}", "role": "assistant", "model": "claude-x", "content": blocks}
    return _entry(uuid, parent, "assistant", message, **extra)


def _call(call_id: str, name: str) -> dict[str, Any]:
    return {"type": "tool_use", "id": call_id, "name": name, "input": {"q": call_id}}


def _result(call_id: str, text: str) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": call_id, "content": text}


AGENT = {"isSidechain": True, "agentId": "ag1"}
OLD = {"isSidechain": True}  # an older CLI: no agentId, the chain hangs off the main one

LINES = [
    _user("u1", None, "fix the bug"),
    _assistant("a1", "u1", [_call("t1", "Task")]),
    _user("s1", None, "find the bug", **AGENT),
    _assistant("s2", "s1", [_call("r1", "Read")], **AGENT),
    _user("x1", "a1", "list the tests", **OLD),
    _user("s3", "s2", [_result("r1", "def f(): ...")], **AGENT),
    _assistant("x2", "x1", [{"type": "text", "text": "three tests"}], **OLD),
    _assistant("s4", "s3", [{"type": "text", "text": "line 3 is wrong"}], **AGENT),
    _user("u2", "a1", [_result("t1", "line 3 is wrong")]),
    _assistant("a2", "u2", [{"type": "text", "text": "fixed"}]),
]


@pytest.fixture
def parent(tmp_path: Path) -> Path:
    path = tmp_path / "session.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in LINES), encoding="utf-8")
    return path


def test_the_main_session_leaves_them_out_and_says_how_to_open_them(parent: Path) -> None:
    session = load_session(parent)
    assert [m.content for m in session.messages] == ["fix the bug", "", "line 3 is wrong", "fixed"]
    assert (
        f"6 sub-agent records (2 sub-agents) left out; open them as {parent}#agent-ag1, {parent}#x1"
    ) in session.meta.warnings


def test_one_sub_agent_opens_as_its_own_session_in_order_with_its_tool_pairs(
    parent: Path,
) -> None:
    session = load_session(f"{parent}#agent-ag1")
    assert [(m.role, m.content) for m in session.messages] == [
        ("user", "find the bug"),
        ("assistant", ""),
        ("tool", "def f(): ..."),
        ("assistant", "line 3 is wrong"),
    ]
    call, result = session.messages[1], session.messages[2]
    assert [c.id for c in call.tool_calls] == ["r1"]
    assert result.tool_call_id == "r1" and result.tool_name == "Read"
    assert session.meta.source_path == str(parent) and session.meta.format == "claude-code"
    assert session.meta.model == "claude-x"
    assert session.meta.title == "sub-agent agent-ag1"
    assert session.meta.warnings == ()


def test_a_bare_agent_id_names_the_same_chain(parent: Path) -> None:
    assert load_session(f"{parent}#ag1").messages == load_session(f"{parent}#agent-ag1").messages


def test_a_chain_without_agent_id_is_named_by_its_first_uuid_and_stops_at_its_spawner(
    parent: Path,
) -> None:
    session = load_session(f"{parent}#x1")
    assert [m.content for m in session.messages] == ["list the tests", "three tests"]
    assert not any("not found" in w for w in session.meta.warnings)  # a1 is the main chain's


def test_full_history_of_a_sub_agent_is_its_chain_too(parent: Path) -> None:
    session = load_session(f"{parent}#agent-ag1", full_history=True)
    assert len(session.messages) == 4 and session.meta.full_history


def test_an_unknown_sub_agent_is_one_line_naming_those_held(parent: Path) -> None:
    with pytest.raises(SessionLoadError) as err:
        load_session(f"{parent}#agent-nope")
    assert str(err.value) == (
        f"{parent}#agent-nope: no such sub-agent in this transcript (it holds: agent-ag1, x1)"
    )


def test_sidechain_ids_follow_parents_and_survive_a_cycle() -> None:
    entries = {
        "r": {"parentUuid": "main"},
        "c": {"parentUuid": "r"},
        "d": {"parentUuid": "c", "agentId": "z"},  # an agent id names its own entry
        "y1": {"parentUuid": "y2"},
        "y2": {"parentUuid": "y1"},
    }
    ids = sidechain_ids(entries)
    assert ids["r"] == ids["c"] == "r"
    assert ids["d"] == "agent-z"
    assert ids["y1"] == ids["y2"]


def test_report_json_reads_one_sub_agent(parent: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", f"{parent}#agent-ag1", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["session"]["message_count"] == 4
    assert report["session"]["warnings"] == []
    rows = [(m["role"], m["tool_call_ids"], m["tool_call_id"]) for m in report["messages"]]
    assert rows == [
        ("user", [], None),
        ("assistant", ["r1"], None),
        ("tool", [], "r1"),
        ("assistant", [], None),
    ]


def test_report_of_an_unknown_sub_agent_is_one_line_and_exit_2(
    parent: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["report", f"{parent}#agent-nope", "--json"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.strip().count("\n") == 0 and "no such sub-agent" in captured.err


def test_a_watched_sub_agent_grows_as_its_lines_are_appended(parent: Path) -> None:
    watcher = SessionWatcher(f"{parent}#agent-ag1", clock=lambda: 0.0)  # no read is paced
    first = watcher.poll()
    assert first is not None and len(first.messages) == 4 and watcher.error is None
    more = _user("s5", "s4", "now fix it", **AGENT)
    with parent.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(more) + "\n")
    st = parent.stat()  # a write in the same clock tick must still look like a change
    os.utime(parent, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
    second = watcher.poll()
    assert second is not None and second.messages[-1].content == "now fix it"
