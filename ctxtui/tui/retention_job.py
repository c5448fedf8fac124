"""The session bar's retention note: what the agent's last recorded compaction lost.

A thread worker reads the file again with its full history (the normal view starts after the
agent's last compaction, so the messages it replaced are not on screen), audits the recorded
summaries (``core.simulation.retention_audits``) and posts one line. Only the estimator counts: the
note needs the facts, not exact tokens.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from textual.message import Message

from ctxtui.core.engine import Engine
from ctxtui.core.policies.policy import Policy
from ctxtui.core.session.models import Session
from ctxtui.core.summaries.retention import Audit
from ctxtui.system.count_cache import default_cache
from ctxtui.tui.jobs import HistoryRead, Post

NOTE_MAX_BYTES = 64 * 1024 * 1024
"""A file larger than this gets no note: a second read of it would compete with the counting
of the session on screen for the interpreter, for a courtesy line."""


@dataclass
class RetentionNoted(Message):
    """The line for ``path`` (empty: nothing to say)."""

    path: Path
    note: str
    history: Session | None = None
    """The full history the note was worked out from: a note of a history no longer on
    screen (the file grew a new compaction meanwhile) is not shown."""


AUDIT_TOKENIZER = "plan"
"""What an audit of the file counts with: the facts matter there, not exact tokens."""


def audits_of_file(
    path: Path,
    format: str | None,
    policy: Policy,
    stand_in: bool = False,
    history: Session | None = None,
) -> tuple[Audit, ...]:
    """Every recorded compaction of the file at ``path`` audited, from its full history
    (``history`` when already read) and the estimator's counts (the facts matter here, not
    exact tokens); ``stand_in`` adds ctxtui's stand-in summary of each segment beside it.
    Slow: a worker's."""
    from ctxtui.core.simulation.retention_audits import recorded_audits
    from ctxtui.core.summaries.segment_facts import keep_facts, remember_facts
    from ctxtui.importers import load_session
    from ctxtui.system.fact_cache import default_fact_cache

    if history is None:
        history = load_session(path, format, full_history=True)
    estimator = policy.with_changes(tokenizer=AUDIT_TOKENIZER)
    engine = Engine(history, default_cache())
    counts = engine.counts(estimator)
    assert counts is not None  # no stop check was given
    facts = default_fact_cache()
    remember_facts(history, facts)  # a big session's facts are read once across runs
    audits = recorded_audits(history, estimator, counts, engine.tokenizer(estimator), stand_in)
    keep_facts(history, facts)
    return audits


def note_retention(post: Post, read: HistoryRead, policy: Policy, watched: bool = False) -> None:
    """Post the last recorded compaction's "needed after and lost" line for the file ``read``
    names, from the history it already read through the compactions (``so far`` when the
    file is ``watched``: what follows the compaction is still being written)."""
    from ctxtui.core.summaries.retention import headline

    path = read.path
    if not read.session.meta.recorded_compactions:
        return
    try:
        if path.stat().st_size > NOTE_MAX_BYTES:
            return
        last = last_audit(read.history, policy)
    except Exception:  # the note is a courtesy: the bar stays as it is
        return
    note = headline(() if last is None else (last,), so_far=watched)
    post(RetentionNoted(path, note, read.history))


def last_audit(history: Session, policy: Policy) -> Audit | None:
    """The last recorded compaction of a full history audited, as ``audits_of_file`` would,
    without the count and fact caches: looking every message up in them costs more than
    counting with the estimator and reading the one segment's facts."""
    from ctxtui.core.simulation.retention_audits import last_recorded_audit
    from ctxtui.core.tokens.counting import count_session
    from ctxtui.core.tokens.tokenizers import resolve

    tokenizer, info = resolve(AUDIT_TOKENIZER, chars_per_token=policy.chars_per_token)
    counts = count_session(history, tokenizer, info)  # the estimator: no store to look in
    assert counts is not None  # no stop check was given
    return last_recorded_audit(history, counts)
