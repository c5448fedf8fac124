"""Each message's facts kept on disk across runs, so auditing a big session's compactions
again reads no message twice: the ``FactStore`` the shells hand to the core.

One file, ``facts.msgpack``, beside the count files, maps a message's content hash
(``count_store.message_key``) to its facts. Its header names the release and a hash of the
rules' own source (``segment_facts``, ``text_rules``), so a file written under other rules
reads as empty and is rewritten. Written to a temporary name and moved into place; a
missing, truncated, foreign or corrupt file reads as empty; at most ``MAX_ENTRIES`` entries,
the most recent session's first. ``CTXTUI_NO_CACHE=1`` and ``CTXTUI_CACHE_DIR`` apply as to
the counts.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Iterable, Sequence
from functools import cache
from pathlib import Path

import msgspec

from ctxtui import __version__
from ctxtui.core.session.models import Message
from ctxtui.core.summaries import segment_facts, text_rules
from ctxtui.core.summaries.segment_facts import Stated, StoredFacts
from ctxtui.core.tokens.count_store import MIN_CHARS
from ctxtui.system.cache_files import ours, read_bounded, write_cache_file
from ctxtui.system.count_cache import ENV_DISABLE, cache_dir

NAME = "facts.msgpack"
_MAGIC = b"CTXTUI-FACTS\n"
MAX_ENTRIES = 500_000
MAX_BYTES = 256 << 20
"""A file larger than this was not written by ctxtui (500,000 messages' facts are far less)."""

_Body = dict[bytes, tuple[tuple[str, str, str, int], ...]]


@cache
def _header() -> bytes:
    """The magic line, the release and the rules' hash: another release's or rules' facts
    may differ, so their file reads as empty."""
    rules = hashlib.blake2b(digest_size=8)
    for module in (segment_facts, text_rules):
        if module.__file__ is not None:
            with contextlib.suppress(OSError):
                rules.update(Path(module.__file__).read_bytes())
    return _MAGIC + f"{__version__} {rules.hexdigest()}\n".encode("ascii")


class FactCache:
    """The facts file in one directory."""

    def __init__(
        self, directory: Path | str, *, max_entries: int = MAX_ENTRIES, min_chars: int = MIN_CHARS
    ) -> None:
        self.directory = Path(directory)
        self.max_entries = max_entries
        self.min_chars = min_chars

    @property
    def path(self) -> Path:
        return self.directory / NAME

    def wants(self, messages: Sequence[Message]) -> bool:
        """Whether ``messages`` hold ``min_chars`` characters: fewer are read faster than the
        file is."""
        chars = 0
        for message in messages:
            chars += len(message.content)
            if chars >= self.min_chars:
                return True
        return False

    def load(self) -> dict[bytes, tuple[Stated, ...]]:
        """Every stored message's facts; empty when the file is missing, not a regular file,
        too large, of another release or rules, or does not decode."""
        data = read_bounded(self.path, MAX_BYTES)
        header = _header()
        if data is None or not data.startswith(header):
            return {}
        try:
            return msgspec.msgpack.decode(memoryview(data)[len(header) :], type=_Body)
        except (msgspec.DecodeError, msgspec.ValidationError):
            return {}

    def store(self, recent: Iterable[tuple[bytes, tuple[Stated, ...]]], older: StoredFacts) -> bool:
        """Write ``recent`` entries, then ``older`` ones, up to ``max_entries``; ``True`` if
        written. Failures are swallowed: the file only saves time."""
        merged = dict(recent)
        for key, value in older.items():
            if len(merged) >= self.max_entries:
                break
            merged.setdefault(key, value)
        kept = dict(list(merged.items())[: self.max_entries])
        payload = _header() + msgspec.msgpack.encode(kept)
        return write_cache_file(self.path, payload, ".facts-")


def is_fact_file(path: Path) -> bool:
    """Whether ``path`` is a facts file ctxtui wrote (of any release), for ``cache clear``."""
    return path.name == NAME and ours(path, _MAGIC)


def default_fact_cache() -> FactCache | None:
    """The user's facts file beside the counts; ``None`` when the cache is off."""
    if os.environ.get(ENV_DISABLE, "").strip() not in ("", "0"):
        return None
    return FactCache(cache_dir())
