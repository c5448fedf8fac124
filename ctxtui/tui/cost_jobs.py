"""The app's dollar figures, worked out in thread workers that only post messages.

Pricing reads the price package's table (its first use takes most of a second) and lays every
request's cost over the messages, so it never runs on the UI thread.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from textual.message import Message

from ctxtui.core.compare import replay_entry
from ctxtui.core.engine import Engine
from ctxtui.core.pricing.cache_model import WhatIf
from ctxtui.core.pricing.cache_model import price_replay as priced_replay
from ctxtui.core.pricing.cost import SessionCost, session_cost
from ctxtui.core.pricing.cost_words import CostView, cost_view, session_total_words
from ctxtui.core.session.models import Session
from ctxtui.core.simulation.replay import Replay

Post = Callable[[Message], object]


@dataclass
class CostReady(Message):
    """``view.session`` priced, with its messages' carry (``None`` when pricing failed)."""

    session: Session
    view: CostView | None


@dataclass
class ReplayCostReady(Message):
    """A replay's recorded requests priced, and its simulated run priced beside them."""

    replay: Replay
    cost: SessionCost
    whatif: WhatIf


def price_session(post: Post, session: Session, message_tokens: Sequence[int]) -> None:
    try:
        view: CostView | None = cost_view(session, list(message_tokens))
    except Exception:  # the figures in tokens stand without the dollars
        view = None
    post(CostReady(session, view))


@dataclass
class SessionTotalReady(Message):
    """What the whole file of ``session`` recorded in dollars, in the session bar's words."""

    session: Session
    words: str


def price_whole(post: Post, session: Session, history: Session | None) -> None:
    """The session bar's recorded total: every request of the file (``history``, the file read
    through the agent's compactions, when ``session`` is only its last segment) and its
    sub-agents. A segment whose history is not read (yet, or again after a watched file grew)
    gets no total rather than one that covers less than the file."""
    from ctxtui.importers.subagents import read_subagents

    meta = session.meta
    whole = history if history is not None else session
    if whole.meta.recorded_compactions and not whole.meta.full_history:
        return
    try:
        subs = read_subagents(meta.source_path, meta.format)[0] if meta.source_path else []
        words = session_total_words(session_cost(whole), [session_cost(s) for _, s in subs])
    except Exception:  # the session bar stands without its dollars
        return
    post(SessionTotalReady(session, words))


def price_replay(post: Post, result: Replay) -> None:
    try:
        whatif = priced_replay(result)
    except Exception:  # the timeline stands without its dollars
        return
    post(ReplayCostReady(result, whatif.recorded, whatif))


@dataclass
class PresetCostsReady(Message):
    """Each preset's replay of the session priced: ``core.compare.replay_entry`` per name."""

    presets: tuple[str, ...]
    entries: dict[str, dict[str, Any]]


def price_presets(
    post: Post,
    engine: Engine,
    presets: tuple[str, ...],
    overrides: Mapping[str, Any],
    stop: Callable[[], bool],
) -> None:
    """Replay the session under each preset and price the run; stops when told to."""
    entries: dict[str, dict[str, Any]] = {}
    for name in presets:
        if stop():
            return
        try:
            entries[name] = replay_entry(engine, name, overrides)
        except Exception:  # one preset that cannot be replayed leaves the others
            continue
    post(PresetCostsReady(presets, entries))
