"""A Codex rollout's history read on from its last user prompt, without what came before
(``importers.appended``; the rule of where it is settled is ``_settle_rule``).

Codex rebuilds its history one record at a time, so the part from a settled prompt on is
replayed alone from the state the replay had there: the model and window then, the
session's id and instructions, and whether a usage report would still describe the reply
before the prompt (``codex.BEFORE``). ``Marks`` keeps those and the records from the prompt
on (the *seed*). The read gives up, and the caller reads the file whole, when the part
reaches back before the prompt (a usage report for the reply before it, a rollback, a
compaction without a replacement history, which Codex rebuilds from every user message, or
one with no usage reported since the prompt, whose size the last report before it gives),
when a first ``session_meta`` comes late (its instructions are the session's prompt), or
when the model it ends on is not the
one the whole read ended on (an earlier message without one would be priced as it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec

from ctxtui.core.session.models import Session
from ctxtui.importers._jsonl import Cursor, Record, iter_records, line_decoder
from ctxtui.importers._settle_rule import encoded_seed, settles
from ctxtui.importers._stream import Source

if TYPE_CHECKING:
    from ctxtui.importers.codex import Live


class Marks(msgspec.Struct, frozen=True, array_like=True):
    """What a read of the records appended after a settled read needs of it."""

    seed: list[tuple[int, bytes]]
    """The records from the settled prompt on: ``(line, JSON)``."""
    model: str | None
    context_window: int | None
    target_before: bool
    """Whether a usage report right after the prompt would describe the reply before it."""
    session_id: str | None
    system_prompt: str | None
    model_after: str | None
    """The model the read ended on."""


def settle(live: Live, session: Session, prior: Marks | None = None) -> tuple[int, Marks] | None:
    """``(k, marks)`` for the history ``live`` read (``session``, as finished): ``k`` its
    last user prompt, when it settles the history; ``None`` when it does not. ``prior`` adds
    nothing for Codex: its replay needs nothing from before the prompt but the state kept."""
    from ctxtui.importers.codex import Item

    replay, start = live.replay, live.turn_start
    if not replay.full_history or start is None or not live.turn:
        return None
    messages = session.messages
    line = live.turn[0].line
    k = next((i for i in range(len(messages) - 1, -1, -1) if messages[i].source_line == line), -1)
    origin = [m.source_line for m in messages]
    recorded = session.meta.recorded_compactions
    last = recorded[-1].message_index if recorded else None
    if not settles(messages, k, origin, last):
        return None
    seed = encoded_seed([r for r in live.turn if isinstance(r.value, Item)], Item)
    if seed is None:
        return None
    marks = Marks(
        seed=seed,
        model=start.model,
        context_window=start.context_window,
        target_before=start.usage_target is not None,
        session_id=replay.session_id,
        system_prompt=replay.system_prompt,
        model_after=replay.model,
    )
    return k, marks


def read_on(source: Source, cursor: Cursor, marks: Marks) -> tuple[Session, Live] | None:
    """The history from the settled prompt on: the seed and the complete lines from
    ``cursor`` on; ``None`` when what was appended reaches back before the prompt."""
    from ctxtui.importers.codex import BEFORE, Item, Live

    live = Live(full_history=True, turns=True)
    replay = live.replay
    replay.model, replay.context_window = marks.model, marks.context_window
    replay.session_id = marks.session_id  # a later session_meta is a fork's, as before
    replay.system_prompt = marks.system_prompt
    replay.usage_target = BEFORE if marks.target_before else None
    decode = line_decoder(Item)
    live.add(Record(line, decode(raw)) for line, raw in marks.seed)
    live.add(iter_records(source, live.warnings, cursor=cursor, typed=Item))
    if replay.reached_back or replay.model != marks.model_after:
        return None
    if replay.system_prompt != marks.system_prompt:
        return None  # a first session_meta came late: the whole read counts its prompt
    return live.session(source.name, cursor.end_warnings()), live
