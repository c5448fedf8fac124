"""A Claude Code history read on from where its messages stopped changing, without what came
before (``importers.appended``: the fleet index extends a grown transcript this way).

A full-history read is *settled* at message ``k`` when no record appended later can change
the messages before it, as long as the records appended hang from its chain: ``k`` follows
the reply to a request and starts a user prompt, so a split response cannot merge back
across it (a reply at the very end may still be getting its next line); no compaction lies
after it; the last compaction's summary lies before it.

What a read of the appended records needs of the earlier ones is kept in ``Marks``: the
chain's records from ``k`` on (the *seed*, read again with what is appended), the entry the
seed hangs from (the *anchor*), the newest entry off the chain, the model, and 32-bit
digests of every uuid and response id. The read gives up, and the caller reads the file
whole, when an appended record's uuid or response id may repeat an earlier one (a fork
copied the prefix; a response's later line), when its chain does not reach the anchor,
when an entry off the chain would be newer, or when the model changes. A digest that
matches by chance only costs that whole read, never a wrong figure.
"""

from __future__ import annotations

import zlib
from array import array
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

import msgspec

from ctxtui.core.session.models import Session
from ctxtui.importers._claude_messages import Entry
from ctxtui.importers._jsonl import Cursor, Record, iter_records, line_decoder
from ctxtui.importers._parts import as_label
from ctxtui.importers._settle_rule import encoded_seed, settled_at
from ctxtui.importers._stream import Source

if TYPE_CHECKING:
    from ctxtui.importers.claude_code import Live


class Marks(msgspec.Struct, frozen=True, array_like=True):
    """What a read of the records appended after a settled read needs of it."""

    anchor: str
    seed: list[tuple[int, bytes]]
    """The chain's records from the settled message on: ``(line, JSON)``."""
    dead_leaf: tuple[str, int] | None
    """The newest entry that is nobody's parent and off the chain: ``(timestamp, line)``."""
    uuids: bytes
    """``crc32`` of every uuid of the main chain's entries (``array('I')``)."""
    ids: bytes
    """``crc32`` of the response ids of the chain's assistant records before the seed."""
    model: str | None


def _crc(text: str) -> int:
    return zlib.crc32(text.encode("utf-8", "surrogatepass"))


def settle(live: Live, session: Session, prior: Marks | None = None) -> tuple[int, Marks] | None:
    """``(k, marks)`` for the history ``live`` read (``session``, as finished; read from
    ``prior``'s seed on when given, whose digests and older entries are kept), ``None`` when
    it is not settled."""
    chain = live.chain
    if chain is None or not live.full_history or live.entries.whole() is not live.entries:
        return None
    converter, records = chain.converter, chain.records
    compactions = chain.compactions
    last = compactions[-1].message_index if compactions else None
    if len(session.messages) != len(converter.out):
        return None  # nothing is hoisted from a Claude Code transcript: not this one's
    k = settled_at(session.messages, converter.origin, last)
    if k < 0:
        return None
    start = converter.origin[k]
    if start < 1:
        return None
    leaf = records[-1].value.uuid
    dead = live.newest_other_leaf(leaf)
    if prior is not None and prior.dead_leaf is not None:
        dead = prior.dead_leaf if dead is None else max(dead, prior.dead_leaf)
    uuids = array("I", (_crc(u) for u in live.entries.by_uuid))
    ids = array("I", (_crc(i) for r in records[:start] if (i := _response_id(r)) is not None))
    earlier = {*ids, *array("I", prior.ids if prior else b"")}
    if any((i := _response_id(r)) is not None and _crc(i) in earlier for r in records[start:]):
        return None  # a response again: the whole read counts its usage once
    seed = encoded_seed(records[start:], Entry)
    if seed is None:
        return None
    messages = converter.out
    model = next((m.model for m in reversed(messages) if m.model and not m.injected), None)
    marks = Marks(
        anchor=records[start - 1].value.uuid,
        seed=seed,
        dead_leaf=dead,
        uuids=(prior.uuids if prior else b"") + uuids.tobytes(),
        ids=(prior.ids if prior else b"") + ids.tobytes(),
        model=model or live.entries.model or (prior.model if prior else None),
    )
    return k, marks


def _response_id(record: Record) -> str | None:
    value = record.value
    if value.type != "assistant":
        return None
    found = value.body.id
    return found if isinstance(found, str) else None


def read_on(source: Source, cursor: Cursor, marks: Marks) -> tuple[Session, Live] | None:
    """The history from the settled message on: the seed and the complete lines from
    ``cursor`` on; ``None`` when what was appended does not simply go on from the seed."""
    from ctxtui.importers.claude_code import Live

    live = Live(full_history=True)
    decode = line_decoder(Entry)
    live.add(Record(line, decode(raw)) for line, raw in marks.seed)
    uuids, ids = set(array("I", marks.uuids)), set(array("I", marks.ids))
    repeated: list[Record] = []
    read = iter_records(source, live.warnings, cursor=cursor, typed=Entry)
    live.add(_watched(read, uuids, ids, repeated))
    if repeated:
        return None
    if not live.entries.by_uuid:  # nothing chained was appended (nor is left of the seed)
        return None if live.entries.side_uuids else (_empty(marks), live)
    session = live.session(source.name, cursor.end_warnings())
    chain = live.chain
    if chain is None or chain.missing != marks.anchor or len(chain.walk_notes) != 1:
        return None
    newest = live.newest_leaf()
    if newest is None:
        return None
    if marks.dead_leaf is not None and (as_label(newest.value.timestamp), newest.line) <= (
        marks.dead_leaf
    ):
        return None  # an entry read before would be the whole read's newest leaf
    model = session.meta.model
    if model is not None and model != marks.model:
        return None  # an earlier message without a model would be priced as this one
    meta = session.meta.model_copy(update={"model": marks.model})
    return session.model_copy(update={"meta": meta}), live


def _watched(
    records: Iterable[Record], uuids: set[int], ids: set[int], repeated: list[Record]
) -> Iterator[Record]:
    """``records``, noting in ``repeated`` any whose uuid or response id may be an earlier
    record's (a digest in ``uuids`` / ``ids``)."""
    for record in records:
        value = record.value
        if isinstance(value, Entry):
            uuid = value.uuid
            if isinstance(uuid, str) and _crc(uuid) in uuids:
                repeated.append(record)
            found = _response_id(record)
            if found is not None and _crc(found) in ids:
                repeated.append(record)
        yield record


def _empty(marks: Marks) -> Session:
    from ctxtui.core.session.models import SessionMeta

    return Session(meta=SessionMeta(model=marks.model, full_history=True))
