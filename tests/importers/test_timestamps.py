"""Timestamps as agents write them read the same whichever way they are parsed."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

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
