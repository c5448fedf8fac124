"""Carrying out a compaction: the new session, the summary, and the tokens it saved or not.

A compaction never edits the session it is given: it returns a new ``Session`` in which the
plan's replaced range is either one summary message (style ``summarize``) or gone, with
PicoClaw's emergency note appended to ``meta.summary`` (style ``drop_oldest_half``, the legacy
``forceCompression``). The result carries the request size before and after, counted with the
same tokenizer, and says so plainly when even the compacted request cannot fit the window.

"Request size" means what would be sent: the plan's figure, after pruning and truncation, on
both sides. Raw counts would credit the compaction with tokens pruning had already removed,
and ``ctxtui report`` and ``ctxtui compact`` would give two request sizes for one session.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ctxtui.core.counting import count_summary
from ctxtui.core.counts import SessionCounts
from ctxtui.core.errors import ContextOverflowError, OverflowInfo
from ctxtui.core.models import Message, Session, SessionMeta
from ctxtui.core.plan import Plan
from ctxtui.core.planner import build_plan, emergency_note, force_compression_cut
from ctxtui.core.policy import CompactionStyle
from ctxtui.core.reasons import CompactReason
from ctxtui.core.summary import (
    SUMMARY_TEMPLATE,
    StructuredSummary,
    build_llm_prompt,
    build_structured_summary,
    leaf_target_tokens,
    legacy_fallback_text,
)
from ctxtui.core.tokenizers import Tokenizer

UNKNOWN_MODEL = "unknown"
LEAF_CHUNK_TOKENS = 20_000
"""Seahorse's ``LeafChunkTokens``: one leaf-summary call reads at most this much history."""


def leaf_chunks(tokens: Sequence[int], first: int, last: int) -> list[tuple[int, int]]:
    """``[first, last]`` cut into seahorse leaf chunks, oldest first (algorithms.md §2.7).

    A chunk grows until its tokens reach ``LEAF_CHUNK_TOKENS``; the message that crosses the
    limit is included. A summariser sends one LLM call per chunk, so a huge compaction is many
    calls, never one prompt of the whole history.
    """
    chunks: list[tuple[int, int]] = []
    start, total = first, 0
    for i in range(first, last + 1):
        total += tokens[i]
        if total >= LEAF_CHUNK_TOKENS:
            chunks.append((start, i))
            start, total = i + 1, 0
    if start <= last:
        chunks.append((start, last))
    return chunks


@dataclass(frozen=True, slots=True)
class CompactionResult:
    """What a compaction did; ``replaced`` is ``None`` when there was nothing to replace."""

    session: Session
    summary: StructuredSummary | None
    summary_text: str
    prompt: str
    reason: CompactReason
    replaced: tuple[int, int] | None
    messages_replaced: int
    tokens_before: int  # the request as sent now (plan.totals.requested)
    tokens_after: int  # the compacted session's request as it would be sent
    tail_kept: int
    overflow: OverflowInfo | None
    replaced_tokens: int = 0  # Σ tokens the request carried for the replaced messages
    summary_tokens: int = 0  # tokens the summary adds (message, or meta.summary growth)
    note: str = ""
    prompt_range: tuple[int, int] | None = None  # the messages the shown prompt carries
    prompt_calls: int = 0  # leaf-summary calls an LLM summariser would make in all

    @property
    def tokens_saved(self) -> int:
        return self.tokens_before - self.tokens_after

    @property
    def saved_share(self) -> float:
        """The share of the request the compaction saves (negative when it grows it)."""
        return self.tokens_saved / self.tokens_before if self.tokens_before else 0.0

    @property
    def tail_messages(self) -> int:
        """How many messages stay verbatim after the summary (the fresh tail)."""
        return max(len(self.session.messages) - self.tail_kept, 0)

    @property
    def prompt_caption(self) -> str:
        """Which leaf call the prompt is, when a summariser would need more than one."""
        if self.prompt_range is None or self.prompt_calls <= 1:
            return ""
        a, b = self.prompt_range
        return (
            f"leaf-summary call 1 of {self.prompt_calls:,}: messages #{a:,}–#{b:,} "
            f"(one call per chunk of up to {LEAF_CHUNK_TOKENS:,} tokens)"
        )

    def raise_if_overflow(self) -> None:
        """Raise ``ContextOverflowError`` when the compacted request still cannot fit."""
        if self.overflow is not None:
            raise ContextOverflowError(self.overflow)


def append_emergency_note(existing: str | None, dropped: int) -> str:
    """``existing + "\\n\\n" + note``, or the note alone when there was no summary."""
    note = emergency_note(dropped)
    return f"{existing}\n\n{note}" if existing else note


def force_compression_range(session: Session) -> tuple[int, int] | None:
    """The prefix PicoClaw's legacy ``forceCompression`` drops, as an inclusive range."""
    cut = force_compression_cut(session)
    return (0, cut - 1) if cut > 0 else None


def _replaced_range(session: Session, plan: Plan) -> tuple[int, int] | None:
    """The plan's range; without one, everything before the tail (or PicoClaw's half)."""
    if plan.compaction.replaced is not None:
        return plan.compaction.replaced
    if plan.policy.compaction_style is CompactionStyle.DROP_OLDEST_HALF:
        return force_compression_range(session)
    return (0, plan.tail.start - 1) if plan.tail.start > 0 else None


def _with_messages(session: Session, messages: tuple[Message, ...], meta: SessionMeta) -> Session:
    """A new session with other messages, built fresh.

    Not ``model_copy``: that would carry over the cached turn and tool-pair indices of the
    old messages.
    """
    return Session(
        messages=messages, system_prompt=session.system_prompt, tools=session.tools, meta=meta
    )


def overflow_of(plan: Plan, model: str | None) -> OverflowInfo | None:
    """The overflow a plan implies, with the real requested estimate (X9) and why (X12)."""
    t = plan.totals
    if t.requested <= t.window:
        return None
    fixed = t.system + t.tool_defs + t.summary + t.output_reserve
    if fixed > t.window:
        reason = "system_prompt_tools_and_reserve_exceed_window"
    elif fixed + plan.tail.tokens > t.window:
        reason = "fresh_tail_exceeds_window"
    else:
        reason = "history_exceeds_window_after_compaction"
    return OverflowInfo(
        model=model or UNKNOWN_MODEL,
        context_window=t.window,
        requested_tokens=t.requested,
        reason=reason,
    )


def compact(
    session: Session, plan: Plan, reason: CompactReason, tokenizer: Tokenizer
) -> CompactionResult:
    """Compact ``session`` as ``plan`` says; ``session`` itself is never changed.

    ``reason`` is recorded, not acted on: both PicoClaw and the plan run the same compaction
    for the proactive and the retry reasons.
    """
    policy = plan.policy
    message_tokens = plan.message_tokens
    tokens_before = plan.totals.requested
    model = session.meta.model
    span = _replaced_range(session, plan)
    if span is None:
        return CompactionResult(
            session=session,
            summary=None,
            summary_text="",
            prompt="",
            reason=reason,
            replaced=None,
            messages_replaced=0,
            tokens_before=tokens_before,
            tokens_after=tokens_before,
            tail_kept=plan.tail.start,
            overflow=overflow_of(plan, model),
            note="nothing to compact: every message is in the fresh tail",
        )
    first, last = span
    replaced_tokens = sum(plan.effective_tokens[first : last + 1])
    old = session.messages

    summary: StructuredSummary | None = None
    prompt = ""
    prompt_range: tuple[int, int] | None = None
    prompt_calls = 0
    if policy.compaction_style is CompactionStyle.DROP_OLDEST_HALF:
        summary_text = emergency_note(last - first + 1)
        meta = session.meta.model_copy(
            update={"summary": append_emergency_note(session.meta.summary, last - first + 1)}
        )
        new_session = _with_messages(session, old[:first] + old[last + 1 :], meta)
        after_summary = count_summary(tokenizer, meta.summary)
        summary_tokens = after_summary - plan.totals.summary
        inserted: list[int] = []
    else:
        structured = policy.structured_summaries
        floor = tokenizer.count_text(SUMMARY_TEMPLATE) if structured else 0
        # the prompt carries the messages as stored (a summariser reads the originals, not
        # their pruned stubs), so the chunks are sized by the raw counts
        chunks = leaf_chunks(plan.message_tokens, first, last)
        prompt_calls = len(chunks)
        prompt_range = chunk_first, chunk_last = chunks[0]
        chunk_tokens = sum(plan.message_tokens[chunk_first : chunk_last + 1])
        prompt = build_llm_prompt(
            session, chunk_first, chunk_last, structured, leaf_target_tokens(chunk_tokens, floor)
        )
        if structured:
            summary = build_structured_summary(session, first, last)
            summary_text = summary.render_markdown()
        else:
            summary_text = legacy_fallback_text(session, first, last)
        stand_in = Message(
            role="user", content=summary_text, is_summary=True, created_at=old[last].created_at
        )
        new_session = _with_messages(
            session, (*old[:first], stand_in, *old[last + 1 :]), session.meta
        )
        summary_tokens = tokenizer.count_message(stand_in)
        inserted = [summary_tokens]
        after_summary = plan.totals.summary

    after_counts = SessionCounts(
        tokenizer=plan.tokenizer,
        message_tokens=[*message_tokens[:first], *inserted, *message_tokens[last + 1 :]],
        system_tokens=plan.totals.system,
        tool_def_tokens=plan.totals.tool_defs,
        summary_tokens=after_summary,
    )
    removed = last - first + 1
    start = plan.tail.start
    tail_kept = start - removed + len(inserted) if start > last else first + len(inserted)
    plan_after = build_plan(new_session, policy, after_counts, tokenizer)
    return CompactionResult(
        session=new_session,
        summary=summary,
        summary_text=summary_text,
        prompt=prompt,
        reason=reason,
        replaced=(first, last),
        messages_replaced=removed,
        tokens_before=tokens_before,
        tokens_after=plan_after.totals.requested,
        tail_kept=tail_kept,
        overflow=overflow_of(plan_after, model),
        replaced_tokens=replaced_tokens,
        summary_tokens=summary_tokens,
        prompt_range=prompt_range,
        prompt_calls=prompt_calls,
    )
