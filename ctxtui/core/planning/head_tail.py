"""Codex's truncation: a text keeps its head and its tail, the middle becomes a marker.

``truncate_text`` (``codex-rs/utils/string/src/truncate.rs``): a text over the byte budget
keeps the characters that end within half of it from the start and those that begin within
the other half from the end, with ``…N chars truncated…`` (``…N tokens truncated…`` for a
token budget) between. A tool output is recorded in the history with the model's policy times
1.2 (``ContextManager::process_item``, ``policy * 1.2``): ``Bytes(10_000)`` keeps 12,000
bytes, gpt-5-codex's ``Tokens(10_000)`` 48,000. Codex has no line limit; a line limit set by
the user splits the lines the same way, with ctxtui's marker.
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


APPROX_BYTES_PER_TOKEN = 4


def serialization_allowance(max_bytes: int) -> int:
    """``TruncationPolicy * 1.2``: the budget Codex keeps of an output in its history."""
    return (max_bytes * 6 + 4) // 5


def _split(text: str, raw: bytes, left: int, right: int) -> tuple[str, str, int]:
    """The characters ending within ``left`` bytes, those starting at or after
    ``len − right`` bytes, and how many characters lie between (``split_string``)."""
    head = utf8_head(text, left)
    start = max(len(raw) - right, len(head.encode(ENCODING, ERRORS)))
    while start < len(raw) and (raw[start] & 0xC0) == 0x80:
        start += 1
    tail = raw[start:].decode(ENCODING, ERRORS)
    return head, tail, len(text) - len(head) - len(tail)


def truncate_middle(text: str, max_bytes: int, *, tokens: bool = False) -> str:
    """Codex's ``truncate_with_byte_estimate``: ``text`` itself within ``max_bytes``, else its
    head and tail on character boundaries around ``…N chars truncated…`` (or, for a token
    budget, ``…N tokens truncated…``, N the bytes removed / 4 rounded up)."""
    raw = text.encode(ENCODING, ERRORS)
    if len(raw) <= max_bytes:
        return text
    if tokens:
        removed = (len(raw) - max_bytes + APPROX_BYTES_PER_TOKEN - 1) // APPROX_BYTES_PER_TOKEN
        unit = "tokens"
    else:
        unit = "chars"
    if max_bytes == 0:
        count = removed if tokens else len(text)
        return f"…{count} {unit} truncated…"
    left = max_bytes // 2
    head, tail, between = _split(text, raw, left, max_bytes - left)
    return f"{head}…{removed if tokens else between} {unit} truncated…{tail}"


def head_tail(output: str, max_lines: int, max_bytes: int) -> str | None:
    """What the model sees of ``output``, or ``None`` when it is within both limits: Codex's
    ``truncate_text`` at the history's budget (``max_bytes`` × 1.2); over a line limit only,
    half the lines from each end."""
    lines, size = count_lines(output), byte_size(output)
    budget = serialization_allowance(max_bytes)
    if lines <= max_lines and size <= budget:
        return None
    if size > budget:
        return truncate_middle(output, budget)
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
