"""The app's dollar figures, worked out in thread workers that only post messages.

Pricing reads the price package's table (its first use takes most of a second) and lays every
request's cost over the messages, so it never runs on the UI thread.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from textual.message import Message

from ctxtui.core.cache_model import WhatIf, token_scale, what_if
from ctxtui.core.calibration import calibrate
from ctxtui.core.cost import SessionCost, session_cost
from ctxtui.core.cost_words import CostView, cost_view
from ctxtui.core.models import Session
from ctxtui.core.replay import Replay

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


def price_replay(post: Post, result: Replay) -> None:
    try:
        cost = session_cost(result.session, result.points)
        counts = result.counts
        fit = calibrate(result.session, result.points, {counts.tokenizer.used: counts}).fit
        whatif = what_if(result, cost, token_scale(result.session, counts, fit))
    except Exception:  # the timeline stands without its dollars
        return
    post(ReplayCostReady(result, cost, whatif))
