"""The bundled sample sessions: each parses in its own format, pairs its tool calls exactly,
and (once the importers exist) loads through ``load_session`` with the same counts.

The expected counts are written out by hand so that a regenerated sample that silently lost
a message or a tool result fails here, not in a demo.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ctxtui import samples
from ctxtui.core.session.models import Session
from ctxtui.samples import demo_session_path, samples_dir

SAMPLES = samples_dir()

# file -> (raw messages, tool calls, tool results)
EXPECTED: dict[str, tuple[int, int, int]] = {
    "coding_agent_overflow.json": (28, 13, 13),  # incl. the system message
    "picoclaw_long_chat.jsonl": (106, 11, 11),
    "claude_code_compacted.jsonl": (28, 10, 10),  # user lines + distinct assistant message.ids
    "codex_rollout.jsonl": (5, 7, 7),  # response_item messages, function_call(_output)s
    "cjk_conversation.json": (10, 2, 2),
    "markup_and_ansi.json": (13, 3, 3),  # incl. the system message
    "demo.json": (33, 13, 13),
}


def _jsonl(name: str) -> list[dict[str, Any]]:
    text = (SAMPLES / name).read_text(encoding="utf-8")
    assert text.endswith("\n"), "JSONL writers end every line with a newline"
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _json(name: str) -> Any:
    return json.loads((SAMPLES / name).read_text(encoding="utf-8"))


def _pairs(call_ids: list[str], result_ids: list[str]) -> tuple[int, int]:
    """Counts, after checking that every result answers exactly one earlier-unique call."""
    assert len(set(call_ids)) == len(call_ids), "tool-call ids must be unique"
    assert sorted(call_ids) == sorted(result_ids), "calls and results must pair up exactly"
    return len(call_ids), len(result_ids)


def count_openai(name: str) -> tuple[int, int, int]:
    doc = _json(name)
    assert {"model", "messages", "tools"} <= doc.keys()
    msgs = doc["messages"]
    assert msgs[0]["role"] == "system"
    calls: list[str] = []
    results: list[str] = []
    for m in msgs:
        assert m["role"] in ("system", "user", "assistant", "tool")
        for tc in m.get("tool_calls") or []:
            assert isinstance(tc["function"]["arguments"], str)
            json.loads(tc["function"]["arguments"])
            calls.append(tc["id"])
        if m["role"] == "tool":
            assert m["tool_call_id"] in calls, "a result must follow its call"
            results.append(m["tool_call_id"])
    return (len(msgs), *_pairs(calls, results))


def count_picoclaw(name: str) -> tuple[int, int, int]:
    lines = _jsonl(name)
    meta = json.loads((SAMPLES / name.replace(".jsonl", ".meta.json")).read_text("utf-8"))
    assert meta["skip"] == 0
    assert meta["summary"] == ""
    assert meta["count"] == len(lines)
    calls: list[str] = []
    results: list[str] = []
    for line in lines:
        assert "uuid" not in line
        assert isinstance(line["content"], str)
        assert line["created_at"].endswith("Z")
        if line["role"] == "assistant":
            assert line["model_name"]
        calls += [tc["id"] for tc in line.get("tool_calls", [])]
        if line["role"] == "tool":
            assert line["tool_call_id"] == calls[-1], "PicoClaw results follow their call"
            results.append(line["tool_call_id"])
    return (len(lines), *_pairs(calls, results))


def _cc_blocks(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for line in lines:
        content = line.get("message", {}).get("content")
        if isinstance(content, list):
            out.extend(content)
    return out


def count_claude_code(name: str) -> tuple[int, int, int]:
    lines = _jsonl(name)
    chained = [x for x in lines if x["type"] in ("user", "assistant", "system")]
    uuids = {x["uuid"] for x in chained}
    for x in chained:
        assert x["parentUuid"] is None or x["parentUuid"] in uuids
    boundary = [x for x in chained if x.get("subtype") == "compact_boundary"]
    assert len(boundary) == 1 and boundary[0]["parentUuid"] is None
    assert boundary[0]["logicalParentUuid"] in uuids
    (summary,) = [x for x in chained if x.get("isCompactSummary")]
    assert summary["parentUuid"] == boundary[0]["uuid"]
    assert any(x.get("isMeta") for x in chained)
    assert {x["type"] for x in lines} >= {"file-history-snapshot", "summary"}
    # Per-block split: lines sharing message.id carry identical usage.
    usage_by_id: dict[str, Any] = {}
    for x in chained:
        if x["type"] == "assistant":
            usage_by_id.setdefault(x["message"]["id"], x["message"]["usage"])
            assert usage_by_id[x["message"]["id"]] == x["message"]["usage"]
            assert len(x["message"]["content"]) == 1
    assert len(usage_by_id) < sum(x["type"] == "assistant" for x in chained)
    blocks = _cc_blocks(chained)
    calls = [b["id"] for b in blocks if b["type"] == "tool_use"]
    results = [b["tool_use_id"] for b in blocks if b["type"] == "tool_result"]
    assert all("toolUseResult" in x for x in chained if x["type"] == "user" and
               any(b.get("type") == "tool_result" for b in _cc_blocks([x])))  # fmt: skip
    users = sum(1 for x in chained if x["type"] == "user")
    return (users + len(usage_by_id), *_pairs(calls, results))


def count_codex(name: str) -> tuple[int, int, int]:
    lines = _jsonl(name)
    assert lines[0]["type"] == "session_meta"
    assert lines[0]["payload"]["base_instructions"]["text"]
    items = [x["payload"] for x in lines if x["type"] == "response_item"]
    assert items[0]["content"][0]["text"].startswith("<environment_context>")
    assert any(p["type"] == "reasoning" and p["encrypted_content"] for p in items)
    counts = [x["payload"] for x in lines if x["payload"].get("type") == "token_count"]
    assert counts and all(c["info"]["model_context_window"] == 272000 for c in counts)
    assert any(x["type"] == "turn_context" for x in lines)
    calls = [p["call_id"] for p in items if p["type"] == "function_call"]
    results = [p["call_id"] for p in items if p["type"] == "function_call_output"]
    messages = sum(1 for p in items if p["type"] == "message")
    return (messages, *_pairs(calls, results))


def count_anthropic(name: str) -> tuple[int, int, int]:
    doc = _json(name)
    assert isinstance(doc["system"], str)
    msgs = doc["messages"]
    assert {m["role"] for m in msgs} == {"user", "assistant"}
    blocks = [b for m in msgs if isinstance(m["content"], list) for b in m["content"]]
    calls = [b["id"] for b in blocks if b["type"] == "tool_use"]
    results = [b["tool_use_id"] for b in blocks if b["type"] == "tool_result"]
    return (len(msgs), *_pairs(calls, results))


def count_native(name: str) -> tuple[int, int, int]:
    doc = _json(name)
    assert doc["schema"] == "ctxtui.session/1"
    session = Session.model_validate(doc["session"])
    calls = [tc.id for m in session.messages for tc in m.tool_calls]
    results = [m.tool_call_id or "" for m in session.messages if m.role == "tool"]
    assert session.orphan_results == ()
    return (len(session.messages), *_pairs(calls, results))


COUNTERS: dict[str, Callable[[str], tuple[int, int, int]]] = {
    "coding_agent_overflow.json": count_openai,
    "picoclaw_long_chat.jsonl": count_picoclaw,
    "claude_code_compacted.jsonl": count_claude_code,
    "codex_rollout.jsonl": count_codex,
    "cjk_conversation.json": count_anthropic,
    "markup_and_ansi.json": count_openai,
    "demo.json": count_native,
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_sample_parses_with_expected_counts(name: str) -> None:
    assert (SAMPLES / name).stat().st_size < 1_000_000
    assert COUNTERS[name](name) == EXPECTED[name]


def test_readme_lists_every_sample() -> None:
    readme = (SAMPLES / "README.md").read_text(encoding="utf-8")
    for name in EXPECTED:
        assert name in readme


def test_coding_sample_overflows_a_32k_window() -> None:
    doc = _json("coding_agent_overflow.json")
    chars = sum(len(m.get("content") or "") for m in doc["messages"])
    assert 45_000 * 4 <= chars <= 60_000 * 4
    assert any(len(m.get("tool_calls") or []) > 1 for m in doc["messages"])
    assert sum(m["role"] == "user" for m in doc["messages"]) >= 3


def test_demo_is_over_its_window_and_has_a_truncatable_output() -> None:
    session = Session.model_validate(_json("demo.json")["session"])
    assert session.meta.context_window == 32_768
    assert session.meta.model and session.meta.title
    assert sum(len(m.content) for m in session.messages) // 4 > 32_768
    assert max(len(m.content.encode()) for m in session.messages if m.role == "tool") > 51_200
    assert len(session.turn_starts) >= 5


def test_picoclaw_chat_is_long_with_mixed_lengths() -> None:
    lines = _jsonl("picoclaw_long_chat.jsonl")
    assert sum(x["role"] == "user" for x in lines) >= 40
    sizes = [len(x["content"]) for x in lines]
    assert min(sizes) < 20 and max(sizes) > 2_000


def test_markup_sample_carries_the_hostile_bytes() -> None:
    raw = (SAMPLES / "markup_and_ansi.json").read_text(encoding="utf-8")
    assert "\\u0000" in raw and "\\u001b[31m" in raw and "\\u0007" in raw
    text = "".join(m["content"] or "" for m in _json("markup_and_ansi.json")["messages"])
    for needle in ("[bold]", "[/]", "[red]oops[/red]", "\x08", "\r", "\x00", "<|endoftext|>"):
        assert needle in text
    assert max(len(line) for line in text.split("\n")) > 200_000


def test_demo_session_path_exists() -> None:
    path = demo_session_path()
    assert path.is_file() and path.name == "demo.json"


def test_missing_samples_raise_a_clear_error(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(samples, "_candidates", lambda: (tmp_path / "nowhere",))
    with pytest.raises(FileNotFoundError, match="sample sessions are missing"):
        samples_dir()


# ---- through the importers (skipped until ctxtui.importers.load_session exists) -----------

# file -> (messages other than system/developer, tool calls, tool results)
LOADED: dict[str, tuple[int | None, int, int]] = {
    "coding_agent_overflow.json": (27, 13, 13),
    "picoclaw_long_chat.jsonl": (106, 11, 11),
    "codex_rollout.jsonl": (None, 7, 7),
    "cjk_conversation.json": (None, 2, 2),
    "markup_and_ansi.json": (12, 3, 3),
    "demo.json": (33, 13, 13),
}


def _tool_counts(session: Session) -> tuple[int, int]:
    return sum(len(m.tool_calls) for m in session.messages), len(session.index.tool_results)


def _load_session() -> Callable[..., Session]:
    try:
        module = importlib.import_module("ctxtui.importers")
    except ImportError:  # pragma: no cover - only while the importers are being written
        pytest.skip("ctxtui.importers is not importable yet")
    fn = getattr(module, "load_session", None)
    if fn is None:
        pytest.skip("ctxtui.importers.load_session is not written yet")
    return fn  # type: ignore[no-any-return]


def _spoken(session: Session) -> int:
    return sum(1 for m in session.messages if m.role not in ("system", "developer"))


@pytest.mark.parametrize("name", sorted(LOADED))
def test_sample_loads_through_importers(name: str) -> None:
    session = _load_session()(SAMPLES / name)
    messages, calls, results = LOADED[name]
    assert _tool_counts(session) == (calls, results)
    assert session.orphan_results == ()
    if messages is not None:
        assert _spoken(session) == messages


def test_claude_code_sample_loads_with_its_compaction() -> None:
    session = _load_session()(SAMPLES / "claude_code_compacted.jsonl")
    # Full history (10 pairs) or only what the model sees after the boundary (2 pairs).
    assert _tool_counts(session) in {(10, 10), (2, 2)}
    assert session.orphan_results == ()
    assert any(m.is_summary for m in session.messages)


def test_loaded_markup_keeps_raw_text() -> None:
    session = _load_session()(SAMPLES / "markup_and_ansi.json")
    text = "".join(m.content for m in session.messages)
    assert "[red]oops[/red]" in text and "<|endoftext|>" in text
