"""Codex's ingest truncation: a tool output reaches the model as its head and its tail.

Within the model's truncation policy (``Bytes(10_000)``, or ``Tokens(10_000)`` = 40,000 bytes
for gpt-5-codex), each half gets half the budget, cut on a character boundary, a marker
between (its wording ctxtui's); a line limit splits the lines the same way.
"""

from __future__ import annotations

from ctxtui.core.planning.truncation import ENCODING, ERRORS, byte_size, count_lines, utf8_head


def _tail_bytes(text: str, limit: int) -> str:
    raw = text.encode(ENCODING, ERRORS)
    if len(raw) <= limit:
        return text
    start = len(raw) - limit
    while start < len(raw) and (raw[start] & 0xC0) == 0x80:
        start += 1
    return raw[start:].decode(ENCODING, ERRORS)


def head_tail(output: str, max_lines: int, max_bytes: int) -> str | None:
    """What the model sees of ``output``, or ``None`` when it is within both limits."""
    lines, size = count_lines(output), byte_size(output)
    if lines <= max_lines and size <= max_bytes:
        return None
    rows = output.splitlines()
    half = max(1, max_lines // 2)
    if len(rows) > 2 * half:
        head_rows, tail_rows = rows[:half], rows[-half:]
    else:
        mid = (len(rows) + 1) // 2
        head_rows, tail_rows = rows[:mid], rows[mid:]
    omitted = max(0, len(rows) - len(head_rows) - len(tail_rows))
    head = utf8_head("\n".join(head_rows), max_bytes // 2)
    tail = _tail_bytes("\n".join(tail_rows), max_bytes // 2)
    marker = f"[... omitted {omitted:,} of {lines:,} lines ({size:,} bytes) ...]"
    return f"{head}\n\n{marker}\n\n{tail}" if tail else f"{head}\n\n{marker}"
