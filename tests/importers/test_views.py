"""``load_views``: the session as normally read and its full history, from one read of the file
where the importer can cut the first from the second, always equal to the two reads."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ctxtui import importers
from ctxtui.core.errors import SessionLoadError
from ctxtui.importers import claude_code, codex, load_session, load_views
from ctxtui.samples import samples_dir
from tests.generated import agent_lines

EXAMPLES = Path("/work/shared/reference/examples")


def _readable(path: Path) -> bool:
    try:
        load_session(path)
    except SessionLoadError:
        return False
    return True


FILES = sorted(
    p
    for p in [*samples_dir().iterdir(), *(EXAMPLES.iterdir() if EXAMPLES.is_dir() else ())]
    if p.is_file() and not p.name.endswith((".meta.json", ".md")) and _readable(p)
)


def _generated(name: str) -> bytes:
    """A transcript of the benchmarks' generator with its agent's recorded compactions."""
    return agent_lines(name, 59, 11)


def _paths(tmp_path: Path) -> list[Path]:
    made = []
    for name in ("claude-code", "codex"):
        path = tmp_path / f"generated-{name}.jsonl"
        path.write_bytes(_generated(name))
        made.append(path)
    return [*FILES, *made]


def test_the_views_are_the_two_reads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    reads: list[bool] = []
    real = importers._load_whole

    def counted(source: Any, name: str, *, forced: bool, full: bool) -> Any:
        reads.append(full)
        return real(source, name, forced=forced, full=full)

    monkeypatch.setattr(importers, "_load_whole", counted)
    once = 0
    for path in _paths(tmp_path):
        reads.clear()
        shown, history = load_views(path)
        compacted = bool(history.meta.recorded_compactions)
        once += reads == [True] and compacted
        assert shown == load_session(path), path
        if compacted:
            assert history == load_session(path, full_history=True), path
        else:
            assert history is shown, path
    assert once >= 6  # the compacted samples and both generated files were cut, not read twice


def test_a_codex_compaction_without_replacement_history_is_read_again(tmp_path: Path) -> None:
    def line(kind: str, payload: dict[str, Any]) -> str:
        return json.dumps({"timestamp": "2026-01-01T00:00:00Z", "type": kind, "payload": payload})

    def msg(role: str, text: str) -> dict[str, Any]:
        kind = "output_text" if role == "assistant" else "input_text"
        return {"type": "message", "role": role, "content": [{"type": kind, "text": text}]}

    lines = [
        line("session_meta", {"id": "a", "instructions": "sys"}),
        line("response_item", msg("user", "first")),
        line("response_item", msg("assistant", "reply")),
        line("compacted", {"message": "the summary"}),
        line("response_item", msg("user", "second")),
    ]
    path = tmp_path / "rollout.jsonl"
    path.write_text("\n".join(lines) + "\n")
    history = load_session(path, full_history=True)
    assert codex.shown_from(history) is None  # the normal read rebuilds what Codex did not write
    shown, _ = load_views(path)
    assert shown == load_session(path)
    assert [m.content for m in shown.messages] == ["first", "the summary", "second"]


def test_a_history_with_warnings_is_not_cut(tmp_path: Path) -> None:
    sample = samples_dir() / "claude_code_compacted.jsonl"
    path = tmp_path / "s.jsonl"
    path.write_text(sample.read_text() + "{not json\n")
    history = load_session(path, full_history=True)
    assert history.meta.warnings and claude_code.shown_from(history) is None
    assert load_views(path)[0] == load_session(path)


def test_the_codex_event_counts_what_was_live(tmp_path: Path) -> None:
    """A later compaction replaced what was live since the one before, in both reads."""
    sample = samples_dir() / "codex_replay.jsonl"
    full = load_session(sample, full_history=True).meta.events
    assert full == load_session(sample).meta.events
    assert "compacted at line 819: 200 earlier messages replaced" in full[1]


def test_a_hoisted_system_message_is_cut_as_the_normal_read_hoists_it(tmp_path: Path) -> None:
    """A rollout that opens with a plain developer message: the full history hoists it into
    the system prompt, which moves the recorded compactions' places with the messages; the
    normal read, from a compaction that replaced it, has no such message to hoist."""
    lines = _generated("codex").decode().splitlines()
    developer = {
        "timestamp": "2026-03-02T09:00:15Z",
        "type": "response_item",
        "payload": {
            "type": "message",
            "role": "developer",
            "content": [{"type": "input_text", "text": "Project rule: answer briefly."}],
        },
    }
    path = tmp_path / "rollout.jsonl"
    path.write_text("\n".join([*lines[:2], json.dumps(developer), *lines[2:]]) + "\n")
    shown, history = load_views(path)
    assert shown == load_session(path)
    assert history == load_session(path, full_history=True)
    cut = history.meta.recorded_compactions[-1].message_index
    assert history.messages[cut:] == shown.messages  # the place moved with the hoisting
