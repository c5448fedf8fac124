"""Exact text counters: ``quicktok`` where it ships the vocabulary, tiktoken otherwise.

Both count what tiktoken's ``encode_ordinary`` would return for the same ranks and regex:
special-token text (``<|endoftext|>`` in a tool output) is text, lone surrogates become U+FFFD.

``QuicktokCounter`` (a C++ BPE, the fast path) takes non-ASCII text as UTF-8 ``bytes`` (given a
``str``, Python would keep its UTF-8 copy for the string's life), leaves the texts
``unicode_guard`` flags to tiktoken, and releases the GIL while it counts.
"""

from __future__ import annotations

import importlib
import os
import threading
import unicodedata
from bisect import bisect_left
from collections.abc import Callable, Sequence
from functools import cache
from itertools import accumulate
from typing import TYPE_CHECKING, Any, Protocol

from ctxtui.core.tokens.tokenizers.families import Family
from ctxtui.core.tokens.tokenizers.unicode_guard import flagged, is_flagged, without_surrogates

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor

PARALLEL_MIN_CHARS = 256_000
"""Below about a quarter megabyte of text one core is as quick as a thread pool."""


def default_threads() -> int:
    """Two when this process may run on two CPUs or more, else one."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cpus = os.cpu_count() or 1
    return 2 if cpus >= 2 else 1


_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def _helper() -> ThreadPoolExecutor:
    """The one helper thread every counter shares (the caller's thread is the other core)."""
    global _pool
    with _pool_lock:
        if _pool is None:
            from concurrent.futures import ThreadPoolExecutor

            _pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ctxtui-count")
    return _pool


class TextCounter(Protocol):
    """Counts bare text exactly under one encoding."""

    @property
    def backend(self) -> str:
        """The library (and version) that counts, e.g. ``quicktok 0.4.0``."""
        ...

    def count(self, text: str) -> int: ...

    def count_many(self, texts: Sequence[str]) -> list[int]: ...


class TiktokenCounter:
    """A tiktoken ``Encoding``'s ``encode_ordinary``, counted; the reference."""

    def __init__(self, encoding: Any, normalize: bool = False) -> None:
        encode: Callable[[str], list[int]] = encoding.encode_ordinary
        if normalize:
            self._encode: Callable[[str], list[int]] = lambda text: encode(
                unicodedata.normalize("NFC", text)
            )
        else:
            self._encode = encode
        self.backend = f"tiktoken {_version('tiktoken')}"

    def count(self, text: str) -> int:
        return len(self._encode(text)) if text else 0

    def count_many(self, texts: Sequence[str]) -> list[int]:
        encode = self._encode
        return [len(encode(text)) if text else 0 for text in texts]


class QuicktokCounter:
    """One ``quicktok`` encoding, with tiktoken for the texts it would split differently."""

    def __init__(self, family: Family, encoding: Any, threads: int | None = None) -> None:
        self.family = family
        self.threads = default_threads() if threads is None else threads
        self._count: Callable[[str | bytes], int] = encoding.count
        self._encoding = encoding
        self._reference: Callable[[str], int] | None = None
        self._reference_lock = threading.Lock()
        self.backend = f"quicktok {_version('quicktok-v1')}"

    def count(self, text: str) -> int:
        if text.isascii():
            return self._count(text)
        if is_flagged(text):
            return self._count_flagged(text)
        return self._count(text.encode("utf-8"))

    def count_many(self, texts: Sequence[str]) -> list[int]:
        """Counts of ``texts``, on two cores when there is enough text to share: the backend
        releases the GIL, but the Python around each call still takes turns."""
        if self.threads < 2 or len(texts) < 2:
            return self._count_serial(texts)
        ends = list(accumulate(len(text) for text in texts))
        if ends[-1] < PARALLEL_MIN_CHARS:
            return self._count_serial(texts)
        middle = max(1, min(len(texts) - 1, bisect_left(ends, ends[-1] // 2)))
        first = _helper().submit(self._count_serial, texts[:middle])
        second = self._count_serial(texts[middle:])
        return first.result() + second

    def _count_serial(self, texts: Sequence[str]) -> list[int]:
        """Counts of ``texts`` in this thread; the guard runs once over the non-ASCII ones."""
        count = self._count
        out: list[int] = []
        append = out.append
        others: list[int] = []
        for text in texts:
            if text.isascii():
                append(count(text))
            else:
                others.append(len(out))
                append(0)
        if others:
            odd = flagged([texts[i] for i in others])
            for j, i in enumerate(others):
                text = texts[i]
                out[i] = self._count_flagged(text) if j in odd else count(text.encode("utf-8"))
        return out

    def _count_flagged(self, text: str) -> int:
        text = without_surrogates(text)
        if not is_flagged(text):
            return self._count(text.encode("utf-8"))
        return self._reference_count()(text)

    def _reference_count(self) -> Callable[[str], int]:
        """tiktoken over the same ranks and regex, built on first need (about half a second)."""
        with self._reference_lock:
            if self._reference is None:
                self._reference = _build_reference(self.family, self._encoding)
        return self._reference


def _build_reference(family: Family, encoding: Any) -> Callable[[str], int]:
    """The reference count for ``family``; the fast backend's when tiktoken is unusable (a
    token or two off on rare characters beats failing the count)."""
    reference = reference_encoding(family, encoding)
    if reference is None:
        return lambda text: int(encoding.count(text.encode("utf-8")))
    return TiktokenCounter(reference, normalize=family.nfc).count


def reference_encoding(family: Family, encoding: Any) -> Any:
    """tiktoken with ``family``'s ranks (read back from ``quicktok``) and reference regex, or
    ``None`` when tiktoken is unusable; text must be NFC-normalised first when ``family.nfc``."""
    try:
        tiktoken = importlib.import_module("tiktoken")
    except Exception:  # ImportError, or a broken install raising anything else
        return None
    size = len(encoding.token_byte_values())
    piece = encoding.decode_single_token_bytes
    ranks = {piece(rank): rank for rank in range(size)}
    return tiktoken.Encoding(
        name=f"{family.quicktok}_reference",
        pat_str=family.pattern,
        mergeable_ranks=ranks,
        special_tokens={},
    )


@cache
def _version(distribution: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(distribution)
    except PackageNotFoundError:
        return "?"
