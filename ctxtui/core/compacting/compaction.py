"""Carrying out a compaction: the new session, the summary, and the tokens it saved or not.

A compaction returns a new ``Session`` in which the plan's replaced range is one summary
message (``summarize``, ``leaf``), the recent user messages plus a summary (Codex's
``user_messages``), or gone with PicoClaw's emergency note in ``meta.summary``
(``drop_oldest_half``). The request size before and after is the plan's figure, after pruning
and truncation, so the compaction is not credited with what pruning removed and ``report`` and
``compact`` agree.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from ctxtui.core.compacting.picoclaw_summary import legacy_summary_prompt, legacy_summary_text
from ctxtui.core.errors import OverflowInfo
from ctxtui.core.planning.compaction_need import compaction_cut
from ctxtui.core.planning.head_tail import truncate_middle
from ctxtui.core.planning.overflow import RequestParts, overflow_info
from ctxtui.core.planning.picoclaw_legacy import emergency_note
from ctxtui.core.planning.plan import Plan
from ctxtui.core.planning.planner import build_plan
from ctxtui.core.policies.modes import CompactionStyle
from ctxtui.core.policies.reasons import CompactReason
from ctxtui.core.session.models import Message, Session, SessionMeta
from ctxtui.core.summaries.leaf_prompt import (
    build_llm_prompt,
    leaf_target_tokens,
    legacy_fallback_text,
)
from ctxtui.core.summaries.seahorse import LEAF_CHUNK_TOKENS
from ctxtui.core.summaries.summary import (
    SUMMARY_TEMPLATE,
    StructuredSummary,
    build_structured_summary,
)
from ctxtui.core.summaries.summary_template import SummaryTemplate
from ctxtui.core.summaries.templates import (
    CLAUDE_CODE_CONTINUATION,
    codex_summary_message,
    render_for,
    template_prompt,
)
from ctxtui.core.tokens.counting import count_summary
from ctxtui.core.tokens.counts import SessionCounts
from ctxtui.core.tokens.tokenizers import Tokenizer


def leaf_chunks(tokens: Sequence[int], first: int, last: int) -> list[tuple[int, int]]:
    """``[first, last]`` cut into seahorse leaf chunks, oldest first (docs/presets.md): each
    grows until it reaches ``LEAF_CHUNK_TOKENS``, the crossing message included, and is one
    LLM call, so a huge compaction is never one prompt of the whole history."""
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
    summary_tokens: int = 0  # tokens it adds: the inserted messages and meta.summary's growth
    note: str = ""
    prompt_range: tuple[int, int] | None = None  # the messages the shown prompt carries
    prompt_calls: int = 0  # leaf-summary calls an LLM summariser would make in all
    output_reserve: int = 0  # in both requests (one policy): request = prompt + reserve

    @property
    def prompt_before(self) -> int:
        """Prompt tokens sent now, what the gauge calls the prompt: the request less the
        output reserve."""
        return max(0, self.tokens_before - self.output_reserve)

    @property
    def prompt_after(self) -> int:
        """Prompt tokens the compacted session would send."""
        return max(0, self.tokens_after - self.output_reserve)

    @property
    def tokens_saved(self) -> int:
        """Tokens the compaction saves: of the request, and of the prompt, since the output
        reserve is in both requests."""
        return self.tokens_before - self.tokens_after

    @property
    def saved_share(self) -> float:
        """The share of the prompt the compaction saves (negative when it grows it): of the
        prompt, since the output reserve is in both requests and nothing saves it."""
        return self.tokens_saved / self.prompt_before if self.prompt_before else 0.0

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


def append_emergency_note(existing: str | None, dropped: int) -> str:
    """``existing + "\\n\\n" + note``, or the note alone when there was no summary."""
    note = emergency_note(dropped)
    return f"{existing}\n\n{note}" if existing else note


def _replaced_range(session: Session, plan: Plan, reason: CompactReason) -> tuple[int, int] | None:
    """The plan's range, unless it is legacy's after-turn cut and this is not that compaction."""
    need = plan.compaction
    if need.replaced is not None and (not need.post_turn or _legacy_summarize(plan, reason)):
        return need.replaced
    return compaction_cut(session, plan.policy, plan.tail.start, plan.effective_tokens)


def _legacy_summarize(plan: Plan, reason: CompactReason) -> bool:
    """PicoClaw legacy's post-turn path, taken when its after-turn trigger fired: the summary
    goes to meta.summary, no message stays (a retry still runs ``forceCompression``)."""
    return plan.compaction.post_turn and reason is CompactReason.PROACTIVE


def _with_messages(session: Session, messages: tuple[Message, ...], meta: SessionMeta) -> Session:
    """A new session with other messages, built fresh: ``model_copy`` would carry over the
    old messages' cached indices."""
    return Session(
        messages=messages, system_prompt=session.system_prompt, tools=session.tools, meta=meta
    )


def overflow_of(plan: Plan, model: str | None) -> OverflowInfo | None:
    """The overflow a plan implies, with the real requested estimate (X9) and why (X12)."""
    t = plan.totals
    parts = RequestParts(t.system, t.tool_defs, t.output_reserve, t.summary, t.history)
    return overflow_info(parts, t.window, model)


@dataclass(frozen=True, slots=True)
class _Rewrite:
    """What one compaction style put in place of the replaced range."""

    inserted: tuple[Message, ...]
    meta: SessionMeta
    summary: StructuredSummary | None = None
    summary_text: str = ""
    prompt: str = ""
    prompt_range: tuple[int, int] | None = None
    prompt_calls: int = 0


def _summarize(
    session: Session, plan: Plan, first: int, last: int, tokenizer: Tokenizer
) -> _Rewrite:
    """One summary message under the policy's template (plan, OpenCode, Claude Code, leaf)."""
    policy = plan.policy
    template = policy.summary_template
    structured = policy.structured_summaries
    old = session.messages
    summary: StructuredSummary | None = None
    if structured:
        summary = build_structured_summary(session, first, last)
        text = render_for(template, summary)
    else:
        text = legacy_fallback_text(session, first, last)
    prompt = template_prompt(template, session, first, last)
    prompt_range: tuple[int, int] = (first, last)
    calls = 1
    if prompt is None:  # the plan's and seahorse's leaf prompt, one call per chunk
        floor = tokenizer.count_text(SUMMARY_TEMPLATE) if structured else 0
        chunks = leaf_chunks(plan.message_tokens, first, last)
        calls, prompt_range = len(chunks), chunks[0]
        a, b = prompt_range
        target = leaf_target_tokens(sum(plan.message_tokens[a : b + 1]), floor)
        prompt = build_llm_prompt(session, prompt_range, structured, target)
    content = text
    if policy.summary_template is SummaryTemplate.CLAUDE_CODE:
        content = f"{CLAUDE_CODE_CONTINUATION}\n\n{text}"
    stand_in = Message(
        role="user", content=content, is_summary=True, created_at=old[last].created_at
    )
    return _Rewrite((stand_in,), session.meta, summary, text, prompt, prompt_range, calls)


APPROX_BYTES_PER_TOKEN = 4
"""Codex's ``approx_token_count``: UTF-8 bytes / 4, rounded up (``codex-rs/core``)."""


def approx_token_count(text: str) -> int:
    """Codex's estimate of a text's tokens: its UTF-8 bytes / 4, rounded up."""
    size = len(text.encode("utf-8", "surrogatepass"))
    return (size + APPROX_BYTES_PER_TOKEN - 1) // APPROX_BYTES_PER_TOKEN


RESIZED_IMAGE_BYTES_ESTIMATE = 7_373
"""Codex's stand-in for an image's base64 in an item's size (``history.rs``)."""


def estimate_item_token_count(message: Message) -> int:
    """Codex's ``estimate_item_token_count``: the bytes of the item serialised as JSON, an image
    counted as ``RESIZED_IMAGE_BYTES_ESTIMATE`` bytes, / 4 rounded up (``history.rs``)."""
    if message.role == "tool":
        item: dict[str, object] = {
            "type": "function_call_output",
            "call_id": message.tool_call_id or "",
            "output": message.content,
        }
    else:
        item = {
            "type": "message",
            "role": message.role,
            "content": [{"type": "input_text", "text": message.content}],
        }
    raw = json.dumps(item, ensure_ascii=False, separators=(",", ":"))
    size = len(raw.encode("utf-8", "surrogatepass"))
    size += RESIZED_IMAGE_BYTES_ESTIMATE * sum(1 for p in message.media_parts)
    return (size + APPROX_BYTES_PER_TOKEN - 1) // APPROX_BYTES_PER_TOKEN


def _recent_user_messages(session: Session, plan: Plan, first: int, last: int) -> list[Message]:
    """Codex (``compact.rs``): user messages newest→oldest while under the cap, sized as bytes
    / 4 (``approx_token_count``); the one that crosses is cut to the tokens left as Codex cuts
    it (``truncate_text`` with ``Tokens(remaining)``: head, ``…N tokens truncated…``, tail)."""
    cap = plan.policy.compact_user_message_tokens
    kept: list[Message] = []
    remaining = cap
    for i in range(last, first - 1, -1):
        m = session.messages[i]
        if m.role != "user" or m.is_summary or m.injected:
            continue
        tokens = approx_token_count(m.content)
        if tokens <= remaining:
            kept.append(m)
            remaining -= tokens
            continue
        if remaining > 0:
            text = truncate_middle(m.content, remaining * APPROX_BYTES_PER_TOKEN, tokens=True)
            kept.append(m.model_copy(update={"content": text}))
        break
    kept.reverse()
    return kept


def _codex(session: Session, plan: Plan, first: int, last: int) -> _Rewrite:
    """Codex's rebuilt history: recent user messages, then one summary user message."""
    summary = build_structured_summary(session, first, last)
    text = render_for(plan.policy.summary_template, summary)
    prompt = template_prompt(plan.policy.summary_template, session, first, last) or ""
    users = _recent_user_messages(session, plan, first, last)
    message = Message(
        role="user",
        content=codex_summary_message(text),
        is_summary=True,
        created_at=session.messages[last].created_at,
    )
    return _Rewrite((*users, message), session.meta, summary, text, prompt, (first, last), 1)


def _drop_half(session: Session, first: int, last: int) -> _Rewrite:
    note = emergency_note(last - first + 1)
    meta = session.meta.model_copy(
        update={"summary": append_emergency_note(session.meta.summary, last - first + 1)}
    )
    return _Rewrite((), meta, None, note)


def _legacy(session: Session, plan: Plan, first: int, last: int) -> _Rewrite:
    """Legacy ``summarizeSession``: the summary replaces meta.summary; the messages go."""
    window = plan.policy.context_window
    text = legacy_summary_text(session, first, last, window)
    meta = session.meta.model_copy(update={"summary": text})
    prompt = legacy_summary_prompt(session, first, last)
    return _Rewrite((), meta, None, text, prompt, (first, last), 1)


def _rewrite(
    session: Session, plan: Plan, reason: CompactReason, span: tuple[int, int], tokenizer: Tokenizer
) -> _Rewrite:
    first, last = span
    if _legacy_summarize(plan, reason):
        return _legacy(session, plan, first, last)
    style = plan.policy.compaction_style
    if style is CompactionStyle.DROP_OLDEST_HALF:
        return _drop_half(session, first, last)
    if style is CompactionStyle.USER_MESSAGES:
        return _codex(session, plan, first, last)
    return _summarize(session, plan, first, last, tokenizer)


def _nothing_to_compact(session: Session, plan: Plan, reason: CompactReason) -> CompactionResult:
    """Every message is in the fresh tail: the result is the session as it was, and says so."""
    tokens = plan.totals.requested
    return CompactionResult(
        session=session,
        summary=None,
        summary_text="",
        prompt="",
        reason=reason,
        replaced=None,
        messages_replaced=0,
        tokens_before=tokens,
        tokens_after=tokens,
        tail_kept=plan.tail.start,
        overflow=overflow_of(plan, session.meta.model),
        note="nothing to compact: every message is in the fresh tail",
        output_reserve=plan.totals.output_reserve,
    )


def compact(
    session: Session, plan: Plan, reason: CompactReason, tokenizer: Tokenizer
) -> CompactionResult:
    """Compact ``session`` as ``plan`` says; ``session`` itself is never changed. Proactive and
    retry run the same compaction, except PicoClaw legacy's post-turn summary."""
    tokens_before = plan.totals.requested
    model = session.meta.model
    span = _replaced_range(session, plan, reason)
    if span is None:
        return _nothing_to_compact(session, plan, reason)
    first, last = span
    old = session.messages
    done = _rewrite(session, plan, reason, span, tokenizer)
    new_session = _with_messages(
        session, (*old[:first], *done.inserted, *old[last + 1 :]), done.meta
    )
    inserted = [tokenizer.count_message(m) for m in done.inserted]
    after_summary = (
        count_summary(tokenizer, done.meta.summary)
        if done.meta.summary != session.meta.summary
        else plan.totals.summary
    )
    after_counts = SessionCounts(
        tokenizer=plan.tokenizer,
        message_tokens=[*plan.message_tokens[:first], *inserted, *plan.message_tokens[last + 1 :]],
        system_tokens=plan.totals.system,
        tool_def_tokens=plan.totals.tool_defs,
        summary_tokens=after_summary,
    )
    removed = last - first + 1
    start = plan.tail.start
    tail_kept = start - removed + len(inserted) if start > last else first + len(inserted)
    plan_after = build_plan(new_session, plan.policy, after_counts, tokenizer)
    return CompactionResult(
        session=new_session,
        summary=done.summary,
        summary_text=done.summary_text,
        prompt=done.prompt,
        reason=reason,
        replaced=(first, last),
        messages_replaced=removed,
        tokens_before=tokens_before,
        tokens_after=plan_after.totals.requested,
        tail_kept=tail_kept,
        overflow=overflow_of(plan_after, model),
        replaced_tokens=sum(plan.effective_tokens[first : last + 1]),
        summary_tokens=sum(inserted) + after_summary - plan.totals.summary,
        prompt_range=done.prompt_range,
        prompt_calls=done.prompt_calls,
        output_reserve=plan.totals.output_reserve,
    )
