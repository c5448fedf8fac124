"""Appends that a read of the appended part alone would get wrong: each is either read on to
the whole read's row or read whole (found by a hostile review of ``importers.appended``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ctxtui.core.fleet import Row, empty_row
from ctxtui.fleet.job import Spec, Target, _extend, session_row
from ctxtui.importers._jsonl import MAX_RECORDS
from ctxtui.importers.appended import read_appended, read_settled

USAGE_ONLY = Spec(simulate=False)
T = "2026-03-02T09:00:%02dZ"


def _lines(records: list[Any]) -> bytes:
    return b"".join(json.dumps(r).encode() + b"\n" for r in records)


def _claude(i: int, parent: str | None, kind: str, content: str, **more: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "type": kind,
        "uuid": f"u{i}",
        "parentUuid": parent,
        "sessionId": "s",
        "timestamp": T % i,
        "message": {"role": kind, "content": content},
    }
    if kind == "assistant":
        usage = {"input_tokens": 10, "output_tokens": 3, "cache_read_input_tokens": 100}
        entry["message"].update({"id": f"m{i}", "model": "claude-sonnet-4-5", "usage": usage})
    entry.update(more)
    return entry


def _conversation(n: int) -> list[dict[str, Any]]:
    """``u0`` user, ``u1`` assistant, ``u2`` user, ..., each hanging from the one before."""
    kinds = ("user", "assistant")
    return [_claude(i, f"u{i - 1}" if i else None, kinds[i % 2], f"t{i}") for i in range(n)]


def _boundary(parent: str, i: int) -> dict[str, Any]:
    return {
        "type": "system",
        "subtype": "compact_boundary",
        "uuid": "cb",
        "parentUuid": None,
        "logicalParentUuid": parent,
        "timestamp": T % i,
        "compactMetadata": {"trigger": "auto", "preTokens": 1234},
    }


def _grown(tmp_path: Path, prefix: bytes, appended: bytes, name: str = "s.jsonl") -> None:
    """Read ``prefix``, append, and hold the row read on (if it is) to the whole read's."""
    path = tmp_path / name
    path.write_bytes(prefix)
    kept = session_row(Target(str(path)), USAGE_ONLY).grown
    path.write_bytes(prefix + appended)
    whole: Row = session_row(Target(str(path)), USAGE_ONLY).base
    extended = _extend(Target(str(path)), empty_row(str(path)), kept) if kept else None
    if extended is not None:
        assert json.dumps(extended.base) == json.dumps(whole)


def test_a_late_first_session_meta_in_a_rollout(tmp_path: Path) -> None:
    """Its instructions are the session's prompt, which the whole read counts as a message."""

    def item(role: str, text: str, i: int) -> dict[str, Any]:
        kind = "output_text" if role == "assistant" else "input_text"
        content = [{"type": kind, "text": text}]
        return {
            "timestamp": T % i,
            "type": "response_item",
            "payload": {"type": "message", "role": role, "content": content},
        }

    def usage(i: int) -> dict[str, Any]:
        last = {"input_tokens": 100, "cached_input_tokens": 0, "output_tokens": 5}
        info = {"type": "token_count", "info": {"last_token_usage": last}}
        return {"timestamp": T % i, "type": "event_msg", "payload": info}

    prefix = [
        {"timestamp": T % 0, "type": "session_meta", "payload": {"cwd": "/x"}},  # no id
        {"timestamp": T % 0, "type": "turn_context", "payload": {"model": "gpt-5-codex"}},
        item("user", "hi", 1),
        item("assistant", "hello", 2),
        usage(3),
        item("user", "again", 4),
    ]
    meta = {"id": "abc", "base_instructions": {"text": "SYSTEM"}}
    later = [
        {"timestamp": T % 5, "type": "session_meta", "payload": meta},
        item("assistant", "fine", 6),
        usage(7),
    ]
    _grown(tmp_path, _lines(prefix), _lines(later), "rollout-x.jsonl")


def test_a_number_json_cannot_write_in_the_seed(tmp_path: Path) -> None:
    """An infinite timestamp would come back as null from the stored seed and change which
    reply is the newest."""
    prefix = _conversation(6)
    prefix[5]["timestamp"] = "INF"
    raw = _lines(prefix).replace(b'"INF"', b"1e400")
    retry = _claude(6, "u4", "assistant", "retry")
    retry["message"]["usage"]["input_tokens"] = 999
    _grown(tmp_path, raw, _lines([retry]))


def test_a_seed_reply_that_repeats_an_earlier_response(tmp_path: Path) -> None:
    """The whole read counts a response's usage once."""
    prefix = _conversation(6)
    prefix[5]["message"]["id"] = "m1"
    later = [_claude(6, "u5", "user", "next"), _claude(7, "u6", "assistant", "ok")]
    _grown(tmp_path, _lines(prefix), _lines(later))


def test_a_compaction_appended_before_any_request(tmp_path: Path) -> None:
    """A whole read counts it at the last request, which lies before the append."""
    summary = _claude(6, "cb", "user", "Continued. Summary.", isCompactSummary=True)
    _grown(tmp_path, _lines(_conversation(5)), _lines([_boundary("u4", 5), summary]))


def test_a_compaction_whose_summary_is_not_written_yet(tmp_path: Path) -> None:
    """The whole read cannot open the session from it and reads it as the app opens it."""
    reply = _claude(5, "u4", "assistant", "reply")
    _grown(tmp_path, _lines(_conversation(5)), _lines([reply, _boundary("u5", 6)]))


def test_a_compaction_at_the_very_end_is_counted(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(_lines([*_conversation(6), _boundary("u5", 6)]))
    row = session_row(Target(str(path)), USAGE_ONLY).base
    assert (row["compactions_recorded"], row["observed_low"]) == (1, 1234)
    (hour,) = row["activity"]["hours"]
    assert hour[-1] == 1  # at the last request


def test_the_record_cap_counts_what_was_read_before(tmp_path: Path) -> None:
    """A file past the reader's cap is refused whole, however it grew to it."""
    path = tmp_path / "s.jsonl"
    path.write_bytes(_lines(_conversation(6)))
    found = read_settled(path, None)
    assert found is not None and found[1] is not None
    kept = found[1]
    assert kept.left == MAX_RECORDS - 6
    path.write_bytes(path.read_bytes() + b"{}\n" * 3 + _lines([_claude(6, "u5", "user", "x")]))
    read_on = read_appended(path, kept)
    assert read_on is not None
    assert read_on[1] is None or read_on[1].left == MAX_RECORDS - 10


def test_a_database_is_read_as_its_format_reads_it(tmp_path: Path) -> None:
    """A SQLite store (OpenCode, PicoClaw's seahorse) has no settle rule: it is read as usual,
    not refused as binary data where a JSONL would be settled."""
    from tests.importers.test_picoclaw import _seahorse

    path = tmp_path / "seahorse.db"
    _seahorse(path)
    assert read_settled(path, None) is None
    row = session_row(Target(str(path)), USAGE_ONLY).base
    assert row["error"] is None and row["agent"] == "picoclaw" and row["messages"]
