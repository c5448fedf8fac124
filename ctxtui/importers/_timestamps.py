"""Timestamps as agents write them (ISO-8601 with ``Z``, nanoseconds, SQLite, epoch ms)."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

_FRACTION = re.compile(r"\.(\d+)")


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
        return _normalised(value)
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


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
        return datetime.fromtimestamp(value / 1000, tz=UTC)
    except (OverflowError, OSError, ValueError):
        return None
