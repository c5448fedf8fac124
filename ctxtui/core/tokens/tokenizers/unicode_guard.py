"""Finding the rare texts the fast backend would split differently from the reference.

``quicktok`` classifies characters with Unicode 17 tables, tiktoken's regex engine with
Unicode 16's; they differ only on code points Unicode 17 newly assigned as letters, numbers or
marks (``RANGES``, widened to whole blocks). A text holding one, or a lone surrogate, is
counted the reference way. Only non-ASCII text is checked, in vectorised numpy passes.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Sequence
from typing import Any

RANGES: tuple[tuple[int, int], ...] = (
    (0x088F, 0x088F),
    (0x0C5C, 0x0C5C),
    (0x0CDC, 0x0CDC),
    (0x1ACF, 0x1AEB),
    (0xA7CE, 0xA7F1),
    (0x10940, 0x10959),
    (0x10EC5, 0x10EFB),
    (0x11B60, 0x11B67),
    (0x11DB0, 0x11DE9),
    (0x16EA0, 0x16ED3),
    (0x16FF2, 0x16FF6),
    (0x187F8, 0x187FF),
    (0x18D09, 0x18DF2),
    (0x1E6C0, 0x1E6FF),
    (0x2B73A, 0x2B73F),
    (0x2CEA2, 0x2CEAD),
    (0x323B0, 0x33479),
)
"""Code points Unicode 17 assigned as letters, numbers or marks (inclusive ranges)."""

SURROGATES = (0xD800, 0xDFFF)

_table: Any = None
_table_lock = threading.Lock()


def _flag_table() -> Any:
    """One flag per code point: set for ``RANGES`` and surrogates (1.1 MB, built once)."""
    global _table
    with _table_lock:
        if _table is None:
            import numpy as np

            table = np.zeros(0x110000, dtype=np.bool_)
            for low, high in (*RANGES, SURROGATES):
                table[low : high + 1] = True
            _table = table
    return _table


GUARD_BATCH_CHARS = 1 << 20
"""Characters checked per numpy pass: bounds the GIL hold and the scratch memory."""


def flagged(texts: Sequence[str]) -> set[int]:
    """The positions in ``texts`` of those the fast backend must not count alone, checked in
    batches of about ``GUARD_BATCH_CHARS`` so no pass holds the GIL, or memory, for long."""
    found: set[int] = set()
    batch: list[int] = []
    size = 0
    for i, text in enumerate(texts):
        if len(text) > GUARD_BATCH_CHARS:
            step = GUARD_BATCH_CHARS
            if any(_hits([text[at : at + step]]) for at in range(0, len(text), step)):
                found.add(i)
            continue
        batch.append(i)
        size += len(text)
        if size >= GUARD_BATCH_CHARS:
            found.update(batch[j] for j in _hits([texts[k] for k in batch]))
            batch, size = [], 0
    if batch:
        found.update(batch[j] for j in _hits([texts[k] for k in batch]))
    return found


def _hits(texts: Sequence[str]) -> set[int]:
    """One vectorised pass over the joined UTF-32 form of ``texts``; hits mapped back."""
    import numpy as np

    table = _flag_table()
    joined = "".join(texts).encode("utf-32-le", "surrogatepass")
    hits = np.flatnonzero(table[np.frombuffer(joined, dtype=np.uint32)])
    if not len(hits):
        return set()
    ends = np.cumsum(np.fromiter((len(t) for t in texts), dtype=np.int64, count=len(texts)))
    return {int(i) for i in np.searchsorted(ends, hits, side="right")}


SHORT_TEXT = 256
"""Up to this many characters a regular expression checks a text faster than numpy starts."""

_pattern: re.Pattern[str] | None = None


def is_flagged(text: str) -> bool:
    """Whether the fast backend must not count ``text`` alone (one text, any length)."""
    if len(text) > SHORT_TEXT:
        return bool(flagged([text]))
    global _pattern
    if _pattern is None:
        ranges = "".join(f"{chr(low)}-{chr(high)}" for low, high in (*RANGES, SURROGATES))
        _pattern = re.compile(f"[{ranges}]")
    return _pattern.search(text) is not None


def without_surrogates(text: str) -> str:
    """``text`` as tiktoken encodes it: paired surrogates joined, lone ones replaced by U+FFFD."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return text
