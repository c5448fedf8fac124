"""Where a full history stops changing: the rule every format's settled read shares
(``importers.appended``).

Message ``k`` settles the history when no record appended later can change the messages
before it, given that the records appended go on from the part read: it is a user prompt
that starts a record of its own and follows the reply to a request (so no later line of a
response can merge back across it, and the first request after it was sent after it), no
compaction lies at or after it, and the last compaction's summary lies before it (the
messages a compaction re-sent are counted up to its summary).
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from ctxtui.core.session.models import Message
from ctxtui.importers._jsonl import Record, line_decoder

SEARCH = 512
"""How many messages back from the end a settled place is looked for."""


def settles(
    messages: Sequence[Message], k: int, origin: Sequence[object], last_compaction: int | None
) -> bool:
    """Whether message ``k`` settles the history (the module's rule); ``origin[i]`` names
    the record that made message ``i``."""
    if not 1 <= k < len(messages):
        return False
    reply, prompt = messages[k - 1], messages[k]
    if reply.role != "assistant" or reply.injected:
        return False
    if prompt.role != "user" or prompt.injected or origin[k] == origin[k - 1]:
        return False
    if last_compaction is None:
        return True
    return last_compaction < k and any(m.is_summary for m in messages[last_compaction:k])


def settled_at(
    messages: Sequence[Message], origin: Sequence[object], last_compaction: int | None
) -> int:
    """The last message within ``SEARCH`` of the end that settles the history, ``-1`` if
    none does."""
    end = len(messages)
    for k in range(end - 1, max(0, end - SEARCH), -1):
        if last_compaction is not None and last_compaction >= k:
            return -1  # every earlier place lies before it too
        if settles(messages, k, origin, last_compaction):
            return k
    return -1


def encoded_seed(
    records: Sequence[Record], typed: type[msgspec.Struct]
) -> list[tuple[int, bytes]] | None:
    """``records`` as ``(line, JSON)`` to store, ``None`` when one would not read back as it
    was (JSON has no NaN or infinity: msgspec writes them as ``null``)."""
    encode, decode = msgspec.json.encode, line_decoder(typed)
    seed = [(r.line, encode(r.value)) for r in records]
    if any(decode(raw) != r.value for (_, raw), r in zip(seed, records, strict=True)):
        return None
    return seed
