"""The leaf-summary calls an LLM summariser makes for one compaction, each with its prompt.

One call per ``LEAF_CHUNK_TOKENS`` chunk of the replaced range, oldest first; a summariser
(``ctxtui.llm.client``) hands each call the summary the previous one wrote, so the last
answer covers the whole range.
"""

from __future__ import annotations

from dataclasses import dataclass

from ctxtui.core.compacting.compaction import CompactionResult, leaf_chunks
from ctxtui.core.planning.plan import Plan
from ctxtui.core.session.models import Session
from ctxtui.core.summaries.leaf_prompt import build_llm_prompt, leaf_target_tokens
from ctxtui.core.summaries.summary import SUMMARY_TEMPLATE
from ctxtui.core.tokens.tokenizers import Tokenizer


@dataclass(frozen=True, slots=True)
class LeafCalls:
    """The chunks of one compaction and how to build each call's prompt."""

    session: Session
    ranges: tuple[tuple[int, int], ...]
    targets: tuple[int, ...]  # the target length, in tokens, each prompt asks for
    structured: bool

    def __len__(self) -> int:
        return len(self.ranges)

    def prompt(self, index: int, previous: str | None = None) -> str:
        """Call ``index``'s prompt; ``previous`` is the summary the call before it wrote."""
        return build_llm_prompt(
            self.session, self.ranges[index], self.structured, self.targets[index], previous
        )


def leaf_calls(
    session: Session, plan: Plan, result: CompactionResult, tokenizer: Tokenizer
) -> LeafCalls:
    """The calls for ``result`` (none when nothing was replaced or the style drops messages)."""
    structured = plan.policy.structured_summaries
    if result.replaced is None or not result.prompt:
        return LeafCalls(session, (), (), structured)
    floor = tokenizer.count_text(SUMMARY_TEMPLATE) if structured else 0
    ranges = tuple(leaf_chunks(plan.message_tokens, *result.replaced))
    targets = tuple(
        leaf_target_tokens(sum(plan.message_tokens[a : b + 1]), floor) for a, b in ranges
    )
    return LeafCalls(session, ranges, targets, structured)


def with_summary_text(result: CompactionResult, text: str) -> Session:
    """The compacted session with the stand-in summary replaced by ``text`` (an LLM's)."""
    if result.replaced is None or not result.prompt:
        return result.session
    s = result.session
    messages = list(s.messages)
    # The stand-in is the first summary from the replaced range on (Codex puts the kept user
    # messages before it); PicoClaw legacy's summarize keeps its summary in meta.summary.
    index = next(
        (i for i in range(result.replaced[0], len(messages)) if messages[i].is_summary), None
    )
    if index is None:
        return s.model_copy(update={"meta": s.meta.model_copy(update={"summary": text})})
    messages[index] = messages[index].model_copy(update={"content": text})
    return Session(
        messages=tuple(messages), system_prompt=s.system_prompt, tools=s.tools, meta=s.meta
    )


def with_llm_summary(result: CompactionResult, text: str, tokenizer: Tokenizer) -> CompactionResult:
    """``result`` with ``text`` (an LLM's summary) in place of the stand-in, its figures
    recounted with the plan's ``tokenizer`` so they are those of the summary shown."""
    from dataclasses import replace

    from ctxtui.core.tokens.counting import count_summary

    session = with_summary_text(result, text)
    if session is result.session:
        return result
    old, new = result.session, session
    if old.meta.summary != new.meta.summary:
        delta = count_summary(tokenizer, new.meta.summary) - count_summary(
            tokenizer, old.meta.summary
        )
    else:
        delta = sum(
            tokenizer.count_message(b) - tokenizer.count_message(a)
            for a, b in zip(old.messages, new.messages, strict=True)
            if a is not b
        )
    return replace(
        result,
        session=session,
        summary_text=text,
        summary=None,
        summary_tokens=max(0, result.summary_tokens + delta),
        tokens_after=max(0, result.tokens_after + delta),
    )
