"""Timestamps as agents write them (ISO-8601 with ``Z``, nanoseconds, SQLite, epoch ms)."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

_FRACTION = re.compile(r"\.(\d+)")
EARLIEST = datetime(1900, 1, 1, tzinfo=UTC)
LATEST = datetime(9000, 1, 1, tzinfo=UTC)
"""The times a stamp may say. Past them (``9999-12-31T23:00:00-12:00`` is year 10000 in UTC)
the hours, days and billing blocks counted from a stamp overflow ``datetime``: such a stamp is
read as none, as an unparsable one is."""


def in_range(when: datetime | None) -> datetime | None:
    """``when`` if it lies between ``EARLIEST`` and ``LATEST``, else ``None``."""
    if when is None:
        return None
    try:
        return when if EARLIEST <= when <= LATEST else None
    except OverflowError:  # its offset takes it past datetime's own range
        return None


def parse_timestamp(value: Any) -> datetime | None:
    """A timezone-aware datetime, or ``None`` for anything unparsable.

    A stamp ``fromisoformat`` takes as written (most are) is read as it is; any other is
    normalised first (spaces, ``z``, PicoClaw's nanoseconds cut to microseconds), which
    gives the same datetime for the stamps both take. A wrong timestamp is never worth
    refusing a session over.
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return from_epoch_ms(value)
    if not isinstance(value, str):
        return None
    try:  # most stamps are already what ``fromisoformat`` takes, and read the same as below
        parsed = datetime.fromisoformat(value)
    except ValueError:
        return in_range(_normalised(value))
    return in_range(parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC))


def _normalised(value: str) -> datetime | None:
    """``parse_timestamp`` of a stamp ``fromisoformat`` refuses as written."""
    if not value.strip():
        return None
    text = value.strip().replace(" ", "T", 1)
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    text = _FRACTION.sub(lambda m: "." + m.group(1)[:6].ljust(6, "0"), text, count=1)
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def from_epoch_ms(value: Any) -> datetime | None:
    """Epoch milliseconds (OpenCode) as UTC; ``None`` for non-numbers or absurd values."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        return None
    try:
        return in_range(datetime.fromtimestamp(value / 1000, tz=UTC))
    except (OverflowError, OSError, ValueError):
        return None
