"""Messages the app's workers post: each step of load → count → plan → compact, as data."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from textual.message import Message

from ctxtui.core.compacting.compaction import CompactionResult
from ctxtui.core.compacting.leaf_calls import LeafCalls
from ctxtui.core.policies.policy import Policy
from ctxtui.core.session.models import Session
from ctxtui.core.summaries.retention import Audit
from ctxtui.core.tokens.calibration import SessionFit
from ctxtui.core.tokens.counts import SessionCounts


@dataclass
class SessionLoaded(Message):
    """A session file was read; ``path`` is ``None`` for a session built in memory.

    ``fit`` is the calibration over the whole transcript when the session was read from the
    agent's last compaction on (its history read too); ``None`` when the session is whole."""

    session: Session
    path: Path | None
    fit: SessionFit | None = None


@dataclass
class SessionLoadFailed(Message):
    """The importer refused a file; ``problem`` is its one-line message."""

    problem: str


@dataclass
class CountingProgress(Message):
    """Counting has reached ``done`` of ``total`` messages; only the newest one matters."""

    done: int
    total: int

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, CountingProgress)


@dataclass
class CountsReady(Message):
    """Token counts for ``policy``'s tokenizer are known; the screen may re-plan with them."""

    policy: Policy
    counts: SessionCounts


@dataclass
class CompactionReady(Message):
    """A compaction was computed (nothing applied yet): the preview can open. ``calls`` are
    the LLM calls that would write its summary (for the preview's "send to LLM")."""

    result: CompactionResult
    calls: LeafCalls | None = None
    audit: Audit | None = None  # the stand-in's retention audit


@dataclass
class SessionExported(Message):
    """``messages`` messages were written to ``path`` as native JSON."""

    path: Path
    messages: int


@dataclass
class ExportFailed(Message):
    """The export was refused or failed; ``problem`` is the core's one line."""

    problem: str


@dataclass
class WorkFailed(Message):
    """A worker hit an error the user must see; ``problem`` is one line."""

    problem: str


@dataclass
class SessionGrew(Message):
    """The watched file ``path`` was read again after it changed (``--watch``)."""

    session: Session
    path: Path


@dataclass
class WatchProblem(Message):
    """The watched file could not be read again (gone, or mid-rewrite); the last good read
    stays on screen. ``problem`` is one line, or ``None`` once a read succeeds again."""

    problem: str | None
