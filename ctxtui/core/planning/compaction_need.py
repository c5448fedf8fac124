"""Whether a plan compacts now, for which reason, what it replaces, and what would be left.

The proactive trigger is the policy's (``Policy.trigger``); PicoClaw legacy adds its post-turn
summarize trigger. What a compaction would leave is estimated here for the overflow forecast;
``core.compacting.compaction`` carries it out and recounts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ctxtui.core.errors import OverflowInfo
from ctxtui.core.planning.overflow import RequestParts, overflow_info
from ctxtui.core.planning.picoclaw_legacy import (
    emergency_note,
    force_compression_range,
    summarize_due,
)
from ctxtui.core.planning.plan import CompactionNeed, FreshTail, Totals
from ctxtui.core.planning.prune import EffectiveTokens
from ctxtui.core.policies.modes import CompactionStyle
from ctxtui.core.policies.policy import Policy
from ctxtui.core.policies.reasons import CompactReason
from ctxtui.core.session.models import Session
from ctxtui.core.summaries.seahorse import Item, leaf_chunk
from ctxtui.core.summaries.templates import summary_estimate
from ctxtui.core.tokens.tokenizers import Tokenizer


def leaf_range(session: Session, tokens: Sequence[int]) -> tuple[int, int] | None:
    """Seahorse's next leaf chunk, with summary messages as summary items."""
    items = [
        Item(t, 0 if m.is_summary else None) for t, m in zip(tokens, session.messages, strict=True)
    ]
    return leaf_chunk(items)


def compaction_cut(
    session: Session, policy: Policy, tail_start: int, tokens: Sequence[int]
) -> tuple[int, int] | None:
    """What the policy's compaction replaces, inclusive (``None``: nothing), for both the
    forecast and the compaction: legacy the oldest half of the turns, seahorse its next leaf
    chunk, the others all before the fresh tail (Codex and Claude Code: everything)."""
    style = policy.compaction_style
    if style is CompactionStyle.DROP_OLDEST_HALF:
        return force_compression_range(session)
    if style is CompactionStyle.LEAF:
        return leaf_range(session, tokens)
    return (0, tail_start - 1) if tail_start > 0 else None


@dataclass(frozen=True, slots=True)
class SizedRequest:
    """A request as the planner sized it: the session under its policy, what each message
    costs after truncation and pruning, and the parts' totals (what the triggers read)."""

    session: Session
    policy: Policy
    effective: EffectiveTokens
    totals: Totals


def compaction_need(sized: SizedRequest, tail: FreshTail) -> CompactionNeed:
    """Whether the request is over the policy's trigger, or PicoClaw legacy's post-turn one
    (more than N messages, or the history over a share of the window)."""
    session, policy, totals, effective = sized.session, sized.policy, sized.totals, sized.effective
    n = len(session)
    reason: CompactReason | None = None
    cut: tuple[int, int] | None = None
    post_turn = False
    if policy.compacts(totals.tokens):
        reason = CompactReason.PROACTIVE
        cut = compaction_cut(session, policy, tail.start, effective)
    elif (
        summarize_due(
            n,
            totals.history,
            policy.context_window,
            policy.summarize_message_threshold,
            policy.summarize_token_percent,
        )
        and tail.start > 0
    ):
        reason, post_turn = CompactReason.PROACTIVE, True
        cut = (0, tail.start - 1)
    tokens_before = effective.prefix(cut[1] + 1) - effective.prefix(cut[0]) if cut else 0
    return CompactionNeed(
        needed=reason is not None,
        reason=reason,
        replaced=cut,
        tokens_before=tokens_before,
        trigger_tokens=policy.trigger,
        post_turn=post_turn,
    )


def after_compaction(
    sized: SizedRequest, need: CompactionNeed, tokenizer: Tokenizer
) -> RequestParts:
    """The request a compaction would leave, estimated: kept messages plus a summary."""
    session, policy, totals, effective = sized.session, sized.policy, sized.totals, sized.effective
    n = len(session)
    first, last = need.replaced if need.replaced is not None else (0, -1)
    rest = effective.prefix(n) - (effective.prefix(last + 1) - effective.prefix(first))
    summary, label = totals.summary, "fresh tail"
    style = policy.compaction_style
    if need.post_turn or style is CompactionStyle.DROP_OLDEST_HALF:
        label = "remaining history"
        if need.replaced is not None and not need.post_turn:
            summary += tokenizer.count_text(emergency_note(last + 1 - first))
        elif need.replaced is not None:
            summary += summary_estimate(policy.summary_template, need.tokens_before)
    elif need.replaced is not None:
        summary = summary_estimate(policy.summary_template, need.tokens_before)
        if style is CompactionStyle.USER_MESSAGES:
            label = "recent user messages"
            kept = sum(
                effective[i] for i in range(first, last + 1) if session.messages[i].role == "user"
            )
            rest += min(kept, policy.compact_user_message_tokens)
    return RequestParts(
        system=totals.system,
        tool_defs=totals.tool_defs,
        output_reserve=totals.output_reserve,
        summary=summary,
        kept=rest,
        kept_label=label,
    )


def forecast_overflow(
    sized: SizedRequest, need: CompactionNeed, tokenizer: Tokenizer
) -> OverflowInfo | None:
    """The request after compaction, if it still exceeds the window (X9 and X12 fixed)."""
    parts = after_compaction(sized, need, tokenizer)
    return overflow_info(parts, sized.totals.window, sized.session.meta.model, prose=True)
