"""What a store of per-message token counts is keyed by, and what counting asks of it.

The store itself touches the disk, so it lives in ``ctxtui.system.count_cache`` and the shells
hand it to the core; the core only names a message and a tokenizer, and decides whether a
session is worth a store's time.
"""

from __future__ import annotations

import hashlib
import weakref
from collections.abc import Iterable, Mapping, Sequence
from typing import Protocol

from ctxtui.core.session.models import Message, Session
from ctxtui.core.tokens.specs import EXACT_PREFIXES

DIGEST_SIZE = 16
"""128-bit keys: a collision among a million cached messages has odds around 1e-27."""

MIN_CHARS = 1_000_000
"""Sessions with less text than this count faster than a cache file is read and written."""

CACHED_PREFIXES = EXACT_PREFIXES
"""The exact tokenizers; the estimators are cheaper than hashing."""


class CountStore(Protocol):
    """Counts kept across runs, by tokenizer key then message key."""

    def wants(self, tokenizer: str, messages: Sequence[Message]) -> bool:
        """Whether counting ``messages`` under ``tokenizer`` is slow enough to store."""
        ...

    def load(self, tokenizer: str) -> dict[bytes, int]:
        """Every stored count for ``tokenizer``; empty when there are none."""
        ...

    def store(
        self,
        tokenizer: str,
        recent: Iterable[tuple[bytes, int]],
        older: Mapping[bytes, int] | None = None,
    ) -> bool:
        """Keep ``recent`` entries first, then ``older`` ones; ``True`` if they were kept."""
        ...


def worth_caching(
    tokenizer: str,
    messages: Sequence[Message],
    *,
    min_chars: int = MIN_CHARS,
    prefixes: Sequence[str] = CACHED_PREFIXES,
) -> bool:
    """Whether counting ``messages`` under ``tokenizer`` is slower than reading a store: an
    exact tokenizer over at least ``min_chars`` characters of content."""
    if not tokenizer.startswith(tuple(prefixes)):
        return False
    if min_chars <= 0:
        return True
    chars = 0
    for message in messages:
        chars += len(message.content)
        if chars >= min_chars:
            return True
    return False


def message_key(message: Message) -> bytes:
    """A hash of every field any tokenizer reads from ``message``, length-prefixed so no two
    messages feed the same text, in one string and one hash call."""
    if not (
        message.tool_calls
        or message.parts
        or message.reasoning
        or message.name
        or message.tool_call_id
        or message.tool_name
    ):
        data = f"p{message.role}\0{message.content}".encode("utf-8", "surrogatepass")
        return hashlib.blake2b(data, digest_size=DIGEST_SIZE).digest()
    fields: list[str] = [
        message.role,
        message.content,
        message.reasoning,
        message.name or "",
        message.tool_call_id or "",
        message.tool_name or "",
    ]
    for call in message.tool_calls:
        fields.extend(("call", call.id, call.name, call.arguments, call.type))
    for part in message.parts:
        estimate = "" if part.token_estimate is None else str(part.token_estimate)
        fields.extend(
            ("part", part.kind.value, part.text, part.media_type or "", str(part.byte_size))
        )
        fields.extend((estimate, part.label))
    text = "x" + "".join([f"{len(value)}:{value}" for value in fields])
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=DIGEST_SIZE).digest()


_KEYS: dict[int, tuple[weakref.ref[Session], list[bytes]]] = {}


def message_keys(session: Session) -> list[bytes]:
    """``message_key`` of each of ``session``'s messages, worked out once per session and
    dropped with it: the count store and the fact store both key by them."""
    held = _KEYS.get(id(session))
    if held is not None and held[0]() is session:
        return held[1]
    keys = [message_key(m) for m in session.messages]
    _KEYS[id(session)] = (weakref.ref(session), keys)
    weakref.finalize(session, _KEYS.pop, id(session), None)
    return keys


def tokenizer_key(
    name: str, chars_per_token: float | None = None, backend: str | None = None
) -> str:
    """A store's name for a tokenizer: its spec, plus the ratio or the counting library and
    version, so a backend or release that differs starts afresh."""
    key = name if chars_per_token is None else f"{name}@{chars_per_token:g}"
    return key if backend is None else f"{key}@{backend}"
