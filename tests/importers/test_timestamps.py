"""Timestamps as agents write them read the same whichever way they are parsed."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from ctxtui.importers._timestamps import parse_timestamp

AT = datetime(2025, 1, 2, 3, 4, 5, tzinfo=UTC)


@pytest.mark.parametrize(
    ("stamp", "expected"),
    [
        ("2025-01-02T03:04:05Z", AT),
        ("2025-01-02T03:04:05z", AT),
        ("2025-01-02 03:04:05", AT),
        (" 2025-01-02T03:04:05Z\n", AT),
        ("2025-01-02T03:04:05.5Z", AT.replace(microsecond=500_000)),
        ("2025-01-02T03:04:05.123456789Z", AT.replace(microsecond=123_456)),
        ("2025-01-02T03:04:05.1234567", AT.replace(microsecond=123_456)),
        (
            "2025-01-02T03:04:05+05:30",
            AT.replace(tzinfo=timezone(timedelta(hours=5, minutes=30))),
        ),
        (1_735_787_045_000, AT),
        ("", None),
        ("   ", None),
        ("yesterday", None),
        ("2025-13-02T03:04:05Z", None),
        (True, None),
        (None, None),
        (["2025-01-02"], None),
    ],
)
def test_a_stamp_reads_as_one_aware_datetime(stamp: object, expected: datetime | None) -> None:
    parsed = parse_timestamp(stamp)
    assert parsed == expected
    if parsed is not None and expected is not None:
        assert parsed.utcoffset() == expected.utcoffset()


@pytest.mark.parametrize(
    "stamp",
    [
        "9999-12-31T23:00:00-12:00",  # year 10000 in UTC
        "0001-01-01T00:00:00+14:00",  # year 0 in UTC
        "9999-12-31T23:59:59Z",  # the hours and 5-hour blocks after it overflow
        "0001-01-01T00:00:00Z",
        253402300799000,  # epoch ms of 9999-12-31
    ],
)
def test_a_stamp_past_the_times_anything_is_counted_in_reads_as_none(stamp: object) -> None:
    assert parse_timestamp(stamp) is None


@pytest.mark.parametrize("stamp", ["9999-12-31T23:00:00-12:00", "0001-01-01T00:00:00+14:00"])
def test_a_session_with_such_stamps_is_reported_and_fleeted(
    tmp_path: Path, stamp: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """They overflowed the pricing's date lookup, the fleet's hours and blocks (exit 3)."""
    from ctxtui.cli.main import main

    monkeypatch.setenv("CTXTUI_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))

    sample = Path(__file__).resolve().parents[2] / "sample_sessions" / "claude_code_replay.jsonl"
    lines = []
    for line in sample.read_text().splitlines():
        record = json.loads(line)
        if "timestamp" in record:
            record["timestamp"] = stamp
        lines.append(json.dumps(record))
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join(lines) + "\n")
    for argv in (["report", "--json"], ["replay", "--json"], ["fleet", "--by", "block"]):
        assert main([*argv, str(path)]) == 0, argv
    capsys.readouterr()
