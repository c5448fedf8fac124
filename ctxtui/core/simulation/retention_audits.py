"""Every summary a session holds or ctxtui writes, audited (``core.summaries.retention``).

Recorded compactions are read from a session with its full history: the summary the agent
wrote against the messages since its previous compaction, beside ctxtui's stand-in for the same
segment. A compaction preview (the stand-in or the LLM's summary) is audited against its
replaced range, and a replay's simulated compactions against theirs.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from typing import NamedTuple

from ctxtui.core.compacting.compaction import CompactionResult
from ctxtui.core.compacting.simulated import summary_message
from ctxtui.core.policies.policy import Policy
from ctxtui.core.session.models import Message, Session
from ctxtui.core.simulation.replay import Replay
from ctxtui.core.summaries.retention import Audit, Reading, Source, audit
from ctxtui.core.summaries.retention import Segment as Replaced
from ctxtui.core.tokens.counts import SessionCounts
from ctxtui.core.tokens.tokenizers import Tokenizer

WHOLE_CHARS = 8_388_608
"""A recorded compaction's or a preview's segment is read for facts up to this many of its
newest characters (its whole, in practice: a 200k-token window holds about 800 KB); a replay's
simulated compactions read ``SEGMENT_CHARS``, as the stand-in summary does, so that auditing
them all stays within the replay's own cost."""
SIMULATED_CHARS = 65_536
SIMULATED_AFTER = 32_768
"""A replay's simulated compactions are audited on the newest 64 KiB of each replaced range and
the first 32 KiB after it, so that auditing them all stays within half the replay's own cost
again (bench: retention)."""
SIMULATED_KEPT = 16_384
"""A simulated compaction's kept context is read to this many characters: the newest history
after the replaced range, where a stand-in's boilerplate would repeat."""
KEPT_CHARS = 262_144
"""The kept context a duplicated line is looked for in: the system prompt and at most this many
characters of what the compaction kept (the newest of a long fresh tail are not needed to
recognise boilerplate)."""


def _kept(messages: Sequence[Message], budget: int = KEPT_CHARS) -> list[str]:
    out: list[str] = []
    spent = 0
    for m in messages:
        if spent > budget:
            break
        text = m.content[:budget]
        spent += len(text)
        out.append(text)
    return out


def recorded_audits(
    session: Session,
    policy: Policy,
    counts: SessionCounts,
    tokenizer: Tokenizer,
    stand_ins: bool = True,
) -> tuple[Audit, ...]:
    """Per recorded compaction of a full-history ``session``: the agent's summary, then (with
    ``stand_ins``) the stand-in on the same segment. A compaction with nothing before it is
    left out, and one whose summary is not written yet (a transcript whose last line is the
    boundary: nothing to audit, rather than a summary that kept nothing); each audit's
    ``segment.last + 1`` is the compaction's ``message_index``."""
    out: list[Audit] = []
    for span in _recorded_spans(session):
        if span.summary is None:
            continue
        recorded = _recorded(session, counts, span)
        out.append(recorded)
        if stand_ins:
            out.append(_stand_in(session, policy, tokenizer, recorded.segment, recorded.request))
    return tuple(out)


def last_recorded_audit(session: Session, counts: SessionCounts) -> Audit | None:
    """``recorded_audits``' last agent summary alone (``None`` without one): what a session
    bar says, worked out without reading every earlier segment, as a watched file's history
    is at each pause of the agent. A last compaction with nothing before it has no audit,
    there as here: this is then the one before it. One whose summary is not written yet has
    none either, and nor is the one before it the last compaction: ``None``."""
    spans = _recorded_spans(session)
    if not spans or spans[-1].summary is None:
        return None
    return _recorded(session, counts, spans[-1])


class _Span(NamedTuple):
    """One recorded compaction: where its segment starts (the previous one's mark), its mark,
    where what follows it ends (the next mark past it: two compactions in a row share a mark,
    and the summary follows the second), and its summary's index (``None``: not written)."""

    start: int
    at: int
    end: int
    summary: int | None


def _recorded_spans(session: Session) -> list[_Span]:
    """Per recorded compaction with something before it, its ``_Span``."""
    messages = session.messages
    n = len(messages)
    marks = sorted(rc.message_index for rc in session.meta.recorded_compactions)
    spans: list[_Span] = []
    start = 0
    for at in marks:
        if at <= start or at > n:
            continue
        end = next((m for m in marks if m > at), n)
        summary = next((i for i in range(at, end) if messages[i].is_summary), None)
        spans.append(_Span(start, at, end, summary))
        start = at
    return spans


def _recorded(session: Session, counts: SessionCounts, span: _Span) -> Audit:
    """The agent's summary at ``span``'s mark against the segment before it."""
    start, at, end, s = span
    assert s is not None  # the callers audit written summaries only
    messages = session.messages
    kept = _kept(messages[at:s])
    tokens = sum(counts.message_tokens[start:at])
    after = messages[s + 1 : end]
    segment = Replaced.of(session, start, at - 1, tokens, Reading(after, kept, WHOLE_CHARS))
    points = session.index.requests
    k = bisect_left(points, at)
    request = k if k < len(points) else None
    return audit(segment, messages[s].content, "recorded", counts.message_tokens[s], request)


def _stand_in(
    session: Session, policy: Policy, tokenizer: Tokenizer, segment: Replaced, request: int | None
) -> Audit:
    stand_in = summary_message(session, policy, segment.first, segment.last)
    tokens = tokenizer.count_message(stand_in)
    return audit(segment, stand_in.content, "stand-in", tokens, request)


def preview_audit(
    session: Session,
    result: CompactionResult,
    source: Source = "stand-in",
    summary: str | None = None,
    summary_tokens: int | None = None,
) -> Audit | None:
    """The preview's summary (or ``summary``, the LLM's) against the range it replaces; the
    messages after the range are what is kept and what comes after."""
    if result.replaced is None:
        return None
    first, last = result.replaced
    rest = session.messages[last + 1 :]
    kept = [*_kept(rest), session.meta.summary or ""]
    segment = Replaced.of(
        session, first, last, result.replaced_tokens, Reading(rest, kept, WHOLE_CHARS)
    )
    text = result.summary_text if summary is None else summary
    tokens = result.summary_tokens if summary_tokens is None else summary_tokens
    return audit(segment, text, source, tokens)


def simulated_audits(result: Replay) -> tuple[Audit, ...]:
    """Each simulated compaction's stand-in (or note) against the history it replaced."""
    history = result.session.messages
    out: list[Audit] = []
    compactions = result.compactions
    for i, c in enumerate(compactions):
        first, last = c.replaced
        stop = result.requests[c.request].message_index
        nxt = compactions[i + 1].request if i + 1 < len(compactions) else None
        end = result.requests[nxt].message_index if nxt is not None else len(history)
        segment_after = result.segments[i + 1] if i + 1 < len(result.segments) else None
        stand_in = segment_after.stand_in if segment_after is not None else None
        if stand_in is not None:
            text = stand_in.content
        else:
            text = segment_after.meta_summary or "" if segment_after is not None else ""
        tokens = sum(result.counts.message_tokens[first : last + 1])
        after = history[stop:end]
        kept = _kept(history[last + 1 : stop], SIMULATED_KEPT)
        reading = Reading(after, kept, SIMULATED_CHARS, SIMULATED_AFTER)
        segment = Replaced.of(result.session, first, last, tokens, reading)
        out.append(audit(segment, text, "simulated", c.summary_tokens, c.request))
    return tuple(out)
