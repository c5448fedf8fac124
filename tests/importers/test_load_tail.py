"""``load_tail``: a first look at a big Claude Code transcript or Codex rollout from its last
bytes, the same messages as the whole read wherever the tail holds them, ``None`` wherever it
cannot."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from ctxtui.importers import claude_code, codex, load_session, load_tail
from ctxtui.importers._jsonl import TAIL_PART
from tests.importers.test_views import _generated

BUDGET = 16_384


@pytest.fixture
def transcript(tmp_path: Path) -> Path:
    path = tmp_path / "session.jsonl"
    path.write_bytes(_generated("claude-code"))
    return path


@pytest.fixture(autouse=True)
def _small_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(claude_code.load_tail, "__defaults__", (BUDGET,))
    # the generated rollout's last compaction and the turn_context before it are within
    # 192 KB of its end: the third tail of 12 KB × 4²
    monkeypatch.setattr(codex.load_tail, "__defaults__", (12_288,))


def test_the_tail_holds_the_session_as_read_whole(transcript: Path) -> None:
    whole = load_session(transcript)
    assert transcript.stat().st_size >= TAIL_PART * BUDGET
    first = load_tail(transcript)
    assert first is not None
    assert first.messages == whole.messages  # every field, source lines included
    assert first.system_prompt == whole.system_prompt and first.meta.model == whole.meta.model
    assert first.meta.recorded_compactions == whole.meta.recorded_compactions
    (note,) = first.meta.events
    line = whole.meta.recorded_compactions[-1].source_line
    assert note.startswith(f"compact boundary at line {line:,}")
    assert note.endswith("the earlier part is still being read")
    assert "earlier messages hidden" in whole.meta.events[0]


def test_the_tail_is_read_from_the_end(transcript: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Only the last bytes are parsed (the earlier ones are counted for line numbers)."""
    seen: list[int] = []
    real = claude_code._tail_session

    def tail_session(source: object, offset: int) -> object:
        seen.append(offset)
        return real(source, offset)  # type: ignore[arg-type]

    monkeypatch.setattr(claude_code, "_tail_session", tail_session)
    assert load_tail(transcript) is not None
    size = transcript.stat().st_size
    assert seen and all(size - offset <= 16 * BUDGET for offset in seen)


def test_the_tail_does_not_count_what_the_compaction_hid(
    transcript: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its note says the earlier part is still being read: counting the hidden entries in
    the tail (most of what it parses) was a third of the first look, for a number not shown."""

    def refused(*args: object, **kwargs: object) -> int:
        raise AssertionError("the first look counted the hidden messages")

    monkeypatch.setattr(claude_code, "_hidden", refused)
    assert load_tail(transcript) is not None


def test_no_first_look_where_the_tail_cannot_stand_for_the_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    raw = _generated("claude-code")
    lines = raw.decode().splitlines()
    never = [line for line in lines if '"compact_boundary"' not in line]
    uncompacted = tmp_path / "uncompacted.jsonl"
    uncompacted.write_text("\n".join(never) + "\n")
    assert load_session(uncompacted).messages  # a good file, only without a boundary
    parsed: list[int] = []
    real = claude_code._tail_session
    monkeypatch.setattr(
        claude_code, "_tail_session", lambda src, at: parsed.append(at) or real(src, at)
    )
    assert load_tail(uncompacted) is None
    assert parsed == []  # no boundary in its bytes: no tail was parsed
    small = tmp_path / "small.jsonl"
    small.write_bytes(raw[-(BUDGET * 2) :].split(b"\n", 1)[1])
    assert load_tail(small) is None  # short: read whole
    packed = tmp_path / "packed.jsonl.gz"
    packed.write_bytes(gzip.compress(raw))
    assert load_tail(packed) is None
    assert load_tail(f"{tmp_path / 'uncompacted.jsonl'}#agent-x") is None
    chat = tmp_path / "chat.jsonl"
    turn = [{"role": "user", "content": "q" * 900}, {"role": "assistant", "content": "a" * 900}]
    chat.write_text("".join(json.dumps(m) + "\n" for m in turn * 60))
    assert load_session(chat).messages and load_tail(chat) is None  # no tail read: OpenAI Chat


def test_a_chain_that_leaves_the_tail_gives_none(tmp_path: Path) -> None:
    """The view since the last boundary is longer than every tail tried: its walk from the
    newest leaf leaves the tail before it meets the boundary."""
    raw = _generated("claude-code")
    lines = [json.loads(line) for line in raw.decode().splitlines()]
    last = next(v for v in reversed(lines) if v.get("type") in ("user", "assistant"))
    parent, more = last["uuid"], []
    for k in range(100):
        entry = {
            **{key: last[key] for key in ("sessionId", "cwd", "version") if key in last},
            "type": "user",
            "uuid": f"appended-{k}",
            "parentUuid": parent,
            "timestamp": "2030-01-01T00:00:00.000Z",
            "message": {"role": "user", "content": f"note {k} " + "z" * 4000},
        }
        more.append(entry)
        parent = entry["uuid"]
    path = tmp_path / "long.jsonl"
    path.write_text("".join(json.dumps(v) + "\n" for v in [*lines, *more]))
    assert len(load_session(path).messages) > 100
    assert load_tail(path) is None


def test_a_codex_rollout_from_its_last_compaction(tmp_path: Path) -> None:
    path = tmp_path / "rollout.jsonl"
    path.write_bytes(_generated("codex"))
    whole = load_session(path)
    first = load_tail(path)
    assert first is not None
    assert first.messages == whole.messages
    assert first.system_prompt == whole.system_prompt and first.meta.model == whole.meta.model
    assert first.meta.context_window == whole.meta.context_window
    line = whole.meta.recorded_compactions[-1].source_line
    assert first.meta.events == (
        f"compacted at line {line:,}: the earlier part is still being read",
    )
    assert len(whole.meta.events) > 1  # every compaction, said by the whole read


def test_a_codex_compaction_without_its_replacement_is_left_to_the_whole_read(
    tmp_path: Path,
) -> None:
    lines = _generated("codex").decode().splitlines()
    last = max(i for i, line in enumerate(lines) if '"type":"compacted"' in line)
    record = json.loads(lines[last])
    del record["payload"]["replacement_history"]
    lines[last] = json.dumps(record)
    path = tmp_path / "rollout.jsonl"
    path.write_text("\n".join(lines) + "\n")
    assert load_tail(path) is None
    assert load_session(path).messages


def test_a_hostile_opening_line_costs_the_first_look_nothing(tmp_path: Path) -> None:
    """A nesting bomb and a cut line before the rollout's records: the opening is read past
    them, as the whole read reads past them."""
    bomb = b'{"type":' + b"[" * 100_000 + b"]" * 100_000 + b"}\n"
    path = tmp_path / "rollout.jsonl"
    path.write_bytes(bomb + b'{"type": "session_meta", "payload": \n' + _generated("codex"))
    whole = load_session(path)
    first = load_tail(path)
    assert first is not None and first.messages == whole.messages


def test_a_codex_model_changed_in_the_part_not_read_is_found(tmp_path: Path) -> None:
    """No turn_context in the tail before its compaction, one with another model between the
    opening and the tail: the model the replacement was made under is that one's, found by
    searching the part not read for its name."""
    records = [json.loads(line) for line in _generated("codex").decode().splitlines()]
    contexts = [i for i, v in enumerate(records) if v.get("type") == "turn_context"]
    records[contexts[1]]["payload"]["model"] = "gpt-5.1-codex-max"
    del records[contexts[2]]  # the turn after the last compaction wrote no turn_context
    path = tmp_path / "rollout.jsonl"
    path.write_text("".join(json.dumps(v) + "\n" for v in records))
    whole = load_session(path)
    first = load_tail(path)
    assert first is not None and first.messages == whole.messages
    models = {m.model for m in whole.messages if m.role == "assistant"}
    assert "gpt-5.1-codex-max" in models  # the replacement's, made under the changed model


def test_a_codex_turn_context_too_long_to_read_back_gives_none(tmp_path: Path) -> None:
    records = [json.loads(line) for line in _generated("codex").decode().splitlines()]
    contexts = [i for i, v in enumerate(records) if v.get("type") == "turn_context"]
    records[contexts[1]]["payload"]["cwd"] = "/" + "d" * (1 << 21)  # a 2 MB line
    path = tmp_path / "rollout.jsonl"
    path.write_text("".join(json.dumps(v) + "\n" for v in records))
    assert load_tail(path) is None
    assert load_session(path).messages
