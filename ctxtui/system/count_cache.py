"""Per-message token counts kept on disk across runs, so a big session re-opens without
re-counting: the ``CountStore`` the shells hand to the core.

Each exact tokenizer (and backend) gets one file in ``platformdirs.user_cache_dir("ctxtui")``
mapping a message's content hash (of everything a tokenizer reads from it) to its count. Keyed
per message, not per session, so a transcript that grew by ten messages re-counts ten. The
estimators count faster than hashing, so they are not cached.

Files are written to a temporary name and moved into place, so a reader never sees a torn
write; concurrent writers may lose each other's new entries (counted again next time). A
missing, truncated, foreign or corrupt file reads as empty. Size is bounded by
``max_entries`` per tokenizer, the most recent session's entries kept first.
``CTXTUI_NO_CACHE=1`` turns the cache off; ``CTXTUI_CACHE_DIR`` points it elsewhere.
"""

from __future__ import annotations

import os
import re
import struct
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from ctxtui import __version__
from ctxtui.core.session.models import Message
from ctxtui.core.tokens.count_store import (
    CACHED_PREFIXES,
    DIGEST_SIZE,
    MIN_CHARS,
    worth_caching,
)
from ctxtui.system.cache_files import ours, read_bounded, write_cache_file

ENV_DISABLE = "CTXTUI_NO_CACHE"
ENV_DIR = "CTXTUI_CACHE_DIR"

_RECORD = struct.Struct(f"<{DIGEST_SIZE}sI")
_MAGIC = b"CTXTUI-COUNTS\n"
_HEADER = _MAGIC + f"{__version__}\n".encode("ascii")
"""The version is part of the header: a new release may count differently (framing constants),
so its files simply read as empty and are rewritten."""

MAX_ENTRIES = 500_000
"""Entries per tokenizer: 20 bytes each on disk, a few large sessions' worth."""


class CountCache:
    """One directory of count files, one file per tokenizer key."""

    def __init__(
        self,
        directory: Path | str,
        *,
        max_entries: int = MAX_ENTRIES,
        min_chars: int = MIN_CHARS,
        prefixes: Sequence[str] = CACHED_PREFIXES,
    ) -> None:
        self.directory = Path(directory)
        self.max_entries = max_entries
        self.min_chars = min_chars
        self.prefixes = tuple(prefixes)

    def wants(self, tokenizer: str, messages: Sequence[Message]) -> bool:
        """Whether counting ``messages`` under ``tokenizer`` is slow enough to cache."""
        return worth_caching(tokenizer, messages, min_chars=self.min_chars, prefixes=self.prefixes)

    def path(self, tokenizer: str) -> Path:
        """The file holding ``tokenizer``'s counts (its name made safe for any filesystem)."""
        return self.directory / (re.sub(r"[^A-Za-z0-9_.@-]", "_", tokenizer) + ".counts")

    def load(self, tokenizer: str) -> dict[bytes, int]:
        """Every cached count for ``tokenizer``; empty when the file is missing, unreadable, not
        a regular file (a FIFO would hang, ``/dev/zero`` never end) or larger than
        ``max_entries`` records could make it."""
        limit = len(_HEADER) + self.max_entries * _RECORD.size
        data = read_bounded(self.path(tokenizer), limit)
        if data is None or not data.startswith(_HEADER):
            return {}
        body = memoryview(data)[len(_HEADER) :]
        if len(body) % _RECORD.size:
            return {}
        return dict(_RECORD.iter_unpack(body))

    def store(
        self,
        tokenizer: str,
        recent: Iterable[tuple[bytes, int]],
        older: Mapping[bytes, int] | None = None,
    ) -> bool:
        """Write ``recent`` entries, then ``older`` ones up to ``max_entries``; ``True`` if written.
        Failures are swallowed: the cache is an optimisation."""
        merged = dict(recent)
        if older:
            for key, value in older.items():
                if len(merged) >= self.max_entries:
                    break
                merged.setdefault(key, value)
        pack = _RECORD.pack
        payload = b"".join(
            [_HEADER, *(pack(k, v) for k, v in list(merged.items())[: self.max_entries])]
        )
        return write_cache_file(self.path(tokenizer), payload, ".counts-")


def is_count_file(path: Path) -> bool:
    """Whether ``path`` is a count file ctxtui wrote (of any release): a regular file that
    starts with the cache's magic line, so ``cache clear`` never deletes a user's ``x.counts``."""
    return path.name.endswith(".counts") and ours(path, _MAGIC)


def cache_dir() -> Path:
    """Where the counts live: ``CTXTUI_CACHE_DIR``, else ``counts`` in the user's cache dir."""
    directory = os.environ.get(ENV_DIR)
    if directory:
        return Path(directory)
    import platformdirs

    return Path(platformdirs.user_cache_dir("ctxtui")) / "counts"


def default_cache() -> CountCache | None:
    """The user's cache, honouring ``CTXTUI_NO_CACHE`` and ``CTXTUI_CACHE_DIR``; ``None`` if off."""
    if os.environ.get(ENV_DISABLE, "").strip() not in ("", "0"):
        return None
    return CountCache(cache_dir())
