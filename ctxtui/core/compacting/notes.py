"""Sentences about a compaction that a reader needs beside its figures.

How many LLM calls the summary would take, what the compaction saves (or that it saves
nothing), and that the summary shown is ctxtui's local stand-in: both shells print these
words as they are, so they tell one story.
"""

from __future__ import annotations

from ctxtui.core.compacting.compaction import CompactionResult
from ctxtui.core.summaries.seahorse import LEAF_CHUNK_TOKENS
from ctxtui.core.wording import plural


def llm_calls(result: CompactionResult) -> int:
    """The leaf-summary calls an LLM summariser would make (0: no call, nothing summarised)."""
    if result.replaced is None or not result.prompt:
        return 0
    return max(result.prompt_calls, 1)


def llm_calls_sentence(result: CompactionResult) -> str:
    """How many LLM calls the summary would take, and why that many (or none)."""
    if result.replaced is None:
        return "none: nothing was replaced"
    if not result.prompt:
        return "none: this compaction style drops messages instead of summarising them"
    calls = llm_calls(result)
    if calls == 1:
        return "1 leaf-summary call for the whole replaced range"
    return (
        f"{plural(calls, 'leaf-summary call')}, one per chunk of up to "
        f"{LEAF_CHUNK_TOKENS:,} tokens, oldest first"
    )


STAND_IN_NOTICE = (
    "A local, deterministic stand-in for the LLM's summary: ctxtui wrote it from the replaced "
    "messages without calling a model."
)


def stand_in_notice(result: CompactionResult) -> str:
    """What the summary shown is, and what an LLM summariser would be sent instead."""
    if result.replaced is None or not result.summary_text:
        return ""
    if not result.prompt:
        return (
            "No summary is written: this compaction style drops the messages and records "
            "the note shown."
        )
    calls = llm_calls(result)
    which = "one call" if calls == 1 else f"{calls:,} calls; the first is shown"
    return f"{STAND_IN_NOTICE} An LLM summariser would write it from the LLM prompt ({which})."


def saving_words(result: CompactionResult) -> str:
    """``saved 4,061 tok``, or where the summary is no shorter than what it replaces, that
    the prompt grows (or stays): a compaction offered anyway must not read as a saving."""
    saved = result.tokens_saved
    if saved > 0:
        return f"saved {saved:,} tok"
    if saved == 0:
        return "saves nothing: the summary is as long as what it replaces"
    return f"grows by {-saved:,} tok: the summary is longer than what it replaces"
