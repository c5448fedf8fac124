"""A simulated compaction as replay needs it: what goes, and what stands in for it.

Replay needs only the replaced range and the stand-in with its tokens, not ``compact``'s LLM
prompt and re-plan; for the summarising style they are built here, every other case goes
through ``compact``. The property tests compare both walks (``exact=True`` calls ``compact``).
"""

from __future__ import annotations

from dataclasses import dataclass

from ctxtui.core.compacting.compaction import _legacy_summarize, _replaced_range, compact
from ctxtui.core.planning.plan import Plan
from ctxtui.core.policies.modes import CompactionStyle
from ctxtui.core.policies.policy import Policy
from ctxtui.core.policies.reasons import CompactReason
from ctxtui.core.session.models import Message, Session
from ctxtui.core.summaries.leaf_prompt import legacy_fallback_text
from ctxtui.core.summaries.summary import build_structured_summary
from ctxtui.core.summaries.summary_template import SummaryTemplate
from ctxtui.core.summaries.templates import CLAUDE_CODE_CONTINUATION, render_for
from ctxtui.core.tokens.tokenizers import Tokenizer


@dataclass(frozen=True, slots=True)
class Replaced:
    """What a compaction of a live session did, in that session's indices."""

    replaced: tuple[int, int]  # inclusive
    stand_in: Message | None  # summarize and leaf: the message now at ``replaced[0]``
    meta_summary: str | None  # the out-of-band summary after the compaction
    summary_tokens: int  # tokens the inserted messages and the summary's growth add


def compact_live(
    session: Session, plan: Plan, reason: CompactReason, tokenizer: Tokenizer, exact: bool
) -> Replaced | None:
    """``compact`` as far as replay reads it; ``None`` when nothing could be replaced."""
    if not exact and _summary_only(plan, reason):
        span = _replaced_range(session, plan, reason)
        if span is None:
            return None
        stand_in = summary_message(session, plan.policy, *span)
        tokens = tokenizer.count_message(stand_in)
        return Replaced(span, stand_in, session.meta.summary, tokens)
    result = compact(session, plan, reason, tokenizer)
    if result.replaced is None:
        return None
    after = result.session
    inserts = plan.policy.compaction_style in (CompactionStyle.SUMMARIZE, CompactionStyle.LEAF)
    kept = after.messages[result.replaced[0]] if inserts else None
    return Replaced(result.replaced, kept, after.meta.summary, result.summary_tokens)


def _summary_only(plan: Plan, reason: CompactReason) -> bool:
    """Whether ``compact`` would put one summary message in place and leave the rest alone."""
    return plan.policy.compaction_style is CompactionStyle.SUMMARIZE and not _legacy_summarize(
        plan, reason
    )


def summary_message(session: Session, policy: Policy, first: int, last: int) -> Message:
    """The summary message ``compact`` puts in place of ``messages[first:last + 1]``."""
    template = policy.summary_template
    if policy.structured_summaries:
        text = render_for(template, build_structured_summary(session, first, last))
    else:
        text = legacy_fallback_text(session, first, last)
    if template is SummaryTemplate.CLAUDE_CODE:
        text = f"{CLAUDE_CODE_CONTINUATION}\n\n{text}"
    return Message(
        role="user",
        content=text,
        is_summary=True,
        created_at=session.messages[last].created_at,
    )
