"""The fleet reads a transcript that grew from its settled messages on (``importers.appended``,
``core.fleet.Tally``): the row is the one a whole read gives, and the part read before is
not read again."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ctxtui.core.fleet import empty_row
from ctxtui.fleet.index import FleetIndex
from ctxtui.fleet.job import Outcome, Spec, Target, _extend, session_row
from ctxtui.fleet.run import run_fleet
from ctxtui.importers.appended import read_settled
from tests.generated import growing_transcripts, line_end

USAGE_ONLY = Spec(simulate=False)
SOURCES = growing_transcripts()


def _row(path: Path, grown: bytes | None = None) -> Outcome:
    return session_row(Target(str(path)), USAGE_ONLY, grown=grown)


@pytest.mark.parametrize("name", sorted(SOURCES))
@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_a_grown_file_read_on_gives_the_whole_reads_row(
    tmp_path: Path, name: str, data: st.DataObject
) -> None:
    raw = SOURCES[name]
    path = tmp_path / f"{name}.jsonl"
    cuts = sorted(
        line_end(raw, data.draw(st.integers(0, len(raw) - 1), label="append"))
        for _ in range(data.draw(st.integers(1, 3), label="appends"))
    )
    start = line_end(raw, data.draw(st.integers(0, cuts[0] - 1), label="first read"))
    path.write_bytes(raw[:start])
    kept = _row(path).grown
    for cut in cuts:
        path.write_bytes(raw[:cut])
        whole = _row(path)
        extended = _extend(Target(str(path)), empty_row(str(path)), kept) if kept else None
        if extended is not None:
            assert json.dumps(extended.base) == json.dumps(whole.base)
            kept = extended.grown
        else:
            kept = whole.grown


@pytest.mark.parametrize("name", ["generated", "codex-generated"])
def test_most_appends_to_a_generated_transcript_are_read_on(tmp_path: Path, name: str) -> None:
    """The rule is not so strict that nothing is ever read on: each turn's start settles
    (an append that holds a compaction is read whole)."""
    raw = SOURCES[name]
    ends = [m.end() for m in re.finditer(rb"\n", raw)]
    path = tmp_path / "s.jsonl"
    read_on = tried = 0
    for k in range(10, len(ends) - 5, len(ends) // 12):
        path.write_bytes(raw[: ends[k]])
        kept = _row(path).grown
        path.write_bytes(raw[: ends[k + 5]])
        tried += 1
        if kept and _extend(Target(str(path)), empty_row(str(path)), kept) is not None:
            read_on += 1
    assert tried >= 10 and read_on >= tried * 2 // 3


def _usage_digits(raw: bytes) -> re.Match[bytes]:
    found = re.search(rb'"output_tokens":(\d{3})', raw[len(raw) // 4 :])
    assert found is not None
    return found


def test_the_fleet_reads_only_what_was_appended(tmp_path: Path) -> None:
    """After the append, the file's earlier bytes are changed in place (same length, both
    ends kept): a run that read them again would see the change; the index's run does not,
    and gives the row of the unchanged file grown."""
    raw = SOURCES["generated"]
    cut = line_end(raw, len(raw) * 2 // 3)
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    path = sessions / "s.jsonl"
    path.write_bytes(raw[:cut])
    index = FleetIndex(tmp_path / "cache" / "fleet.sqlite3", lambda _: None)
    target = Target(str(path))
    run_fleet([target], USAGE_ONLY, index=index)
    assert index.grown(str(path), USAGE_ONLY.base_fingerprint()) is not None

    path.write_bytes(raw)
    honest = _row(path).base
    found = _usage_digits(raw)
    at = len(raw) // 4 + found.start(1)
    changed = raw[:at] + b"999" + raw[at + 3 :]
    path.write_bytes(changed)
    assert _row(path).base["cost_usd"] != honest["cost_usd"]  # a whole read sees the change

    run = run_fleet([target], USAGE_ONLY, index=index)
    (done,) = run.finished.values()
    assert not done.cached
    assert json.dumps(done.row(None)) == json.dumps(honest)


def test_a_file_rewritten_is_read_whole(tmp_path: Path) -> None:
    raw = SOURCES["generated"]
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    path = sessions / "s.jsonl"
    half = line_end(raw, len(raw) // 2)
    path.write_bytes(raw[:half])
    index = FleetIndex(tmp_path / "cache" / "fleet.sqlite3", lambda _: None)
    run_fleet([Target(str(path))], USAGE_ONLY, index=index)
    shorter = raw[: line_end(raw, len(raw) // 3)]  # blank lines where the rest of it was
    path.write_bytes(shorter + b"\n" * (half - len(shorter)) + raw[half:])
    run = run_fleet([Target(str(path))], USAGE_ONLY, index=index)
    (done,) = run.finished.values()
    assert json.dumps(done.row(None)) == json.dumps(_row(path).base)


def test_an_appended_copy_of_earlier_records_is_read_whole(tmp_path: Path) -> None:
    """A fork that copies the prefix into the same file repeats its uuids: the whole read
    keeps the first copy, which a read of the append alone cannot know."""
    raw = SOURCES["generated"]
    path, kept = _read_half(tmp_path, "generated", raw[: line_end(raw, len(raw) // 4)])
    assert _extend(Target(str(path)), empty_row(str(path)), kept) is None


def test_a_format_without_a_settle_rule_keeps_no_state(tmp_path: Path) -> None:
    path = tmp_path / "chat.jsonl"
    lines = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    assert read_settled(path, "openai-chat") is None
    assert session_row(Target(str(path)), Spec(simulate=False, format="openai-chat")).grown is None


def test_a_run_without_an_index_finds_no_state(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--no-cache`` keeps nothing, so it spends nothing on what it would keep."""
    import ctxtui.importers.appended as appended

    def refused(*_: object) -> None:
        raise AssertionError("a settled state was looked for")

    path = tmp_path / "s.jsonl"
    path.write_bytes(SOURCES["generated"])
    expected = _row(path).base
    monkeypatch.setattr(appended, "read_settled", refused)
    run = run_fleet([Target(str(path))], USAGE_ONLY, index=None)
    (done,) = run.finished.values()
    assert json.dumps(done.row(None)) == json.dumps(expected)


def _read_half(tmp_path: Path, name: str, extra: bytes) -> tuple[Path, bytes]:
    """The first half of a transcript read (a state kept), then ``extra`` appended."""
    raw = SOURCES[name]
    path = tmp_path / f"{name}.jsonl"
    half = line_end(raw, len(raw) // 2)
    path.write_bytes(raw[:half])
    kept = _row(path).grown
    assert kept is not None
    path.write_bytes(raw[:half] + extra)
    return path, kept


def _codex_read_once(tmp_path: Path, extra: list[dict[str, object]]) -> tuple[Path, bytes]:
    """The Codex sample's first half read (a state kept), then ``extra`` records appended."""
    lines = b"".join(json.dumps(r).encode() + b"\n" for r in extra)
    return _read_half(tmp_path, "codex-replay", lines)


def test_a_codex_compaction_that_rebuilds_from_earlier_messages_is_read_whole(
    tmp_path: Path,
) -> None:
    """Without a replacement history Codex rebuilds one from every user message so far,
    which a read of the append alone does not hold."""
    compacted = {"timestamp": "2026-03-02T11:00:00Z", "type": "compacted"}
    compacted["payload"] = {"message": "Summary: the work so far."}
    path, kept = _codex_read_once(tmp_path, [compacted])
    assert _extend(Target(str(path)), empty_row(str(path)), kept) is None


def test_a_codex_usage_report_for_the_reply_before_the_prompt_is_read_whole(
    tmp_path: Path,
) -> None:
    """A usage report describes the last reply, which may lie before the settled prompt."""
    raw = SOURCES["codex-replay"]
    usage = {"input_tokens": 1, "cached_input_tokens": 0, "output_tokens": 1, "total_tokens": 2}
    report = {
        "timestamp": "2026-03-02T11:00:00Z",
        "type": "event_msg",
        "payload": {"type": "token_count", "info": {"last_token_usage": usage}},
    }
    prompt = {
        "timestamp": "2026-03-02T11:00:00Z",
        "type": "response_item",
        "payload": {
            "type": "message",
            "role": "user",
            "content": [{"type": "input_text", "text": "and now?"}],
        },
    }
    path = tmp_path / "rollout.jsonl"
    path.write_bytes(raw + json.dumps(prompt).encode() + b"\n")
    kept = _row(path).grown
    assert kept is not None
    path.write_bytes(path.read_bytes() + json.dumps(report).encode() + b"\n")
    assert _extend(Target(str(path)), empty_row(str(path)), kept) is None
