"""Counted nouns and their articles, so no sentence says ``1 messages`` or ``a 8,000-token``.

An article before a figure is chosen by how it is read aloud ("an 8,000-token budget").
"""

from __future__ import annotations

_IRREGULAR = {"entry": "entries", "summary": "summaries", "this": "these", "is": "are"}


def plural_of(word: str) -> str:
    """The plural of one of the nouns the app counts (``message`` → ``messages``)."""
    if word in _IRREGULAR:
        return _IRREGULAR[word]
    if word.endswith(("s", "x", "ch", "sh")):
        return word + "es"
    return word + "s"


def plural(n: int, word: str, many: str | None = None) -> str:
    """``n`` with thousands separators and the noun in the right number: ``1 message``,
    ``2 messages``, ``0 messages``, ``1,204 lines``; ``many`` overrides the plural form."""
    noun = word if n == 1 else (many or plural_of(word))
    return f"{n:,} {noun}"


def counted(n: int | None, word: str) -> str:
    """``plural``, or ``- messages`` for a count nobody knows."""
    return plural(n, word) if n is not None else f"- {plural_of(word)}"


def article(n: int) -> str:
    """``a`` or ``an`` before ``n`` as written with separators: an 8, an 11, an 18,000, a 180
    (a leading group that starts with 8, or is 11 or 18, is read with a vowel)."""
    lead = f"{abs(n):,}".split(",", 1)[0]
    return "an" if lead.startswith("8") or lead in ("11", "18") else "a"


def a(n: int, unit: str) -> str:
    """``n`` as a compound adjective with its article: ``an 8,000-token``, ``a 386-tok``."""
    return f"{article(n)} {n:,}-{unit}"


def file_size(size: int) -> str:
    """A file's size in SI units with one decimal (``3.4 MB``, ``812 B``), as ``ls --si`` and
    file managers show it: the one convention of every size the shells print."""
    value = float(size)
    for unit in ("B", "kB", "MB", "GB"):
        if value < 1000 or unit == "GB":
            return f"{size:,} B" if unit == "B" else f"{value:,.1f} {unit}"
        value /= 1000
    raise AssertionError("unreachable")  # pragma: no cover


def band_words(low: int | None, high: int | None) -> str:
    """A band of token counts: ``155,001–159,897``, one figure when its ends agree, ``-``
    with none (the observed trigger's, in every shell)."""
    if low is None or high is None:
        return "-"
    return f"{low:,}" if low == high else f"{low:,}–{high:,}"
