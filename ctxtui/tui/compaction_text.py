"""What the compaction preview says, as text: the prompt as shown, the overflow, the figures.

Plain functions of a ``CompactionResult`` (no widgets), so the preview screen only lays them
out and the words are tested without a terminal.
"""

from __future__ import annotations

from textual.content import Content

from ctxtui.core.compacting.compaction import CompactionResult
from ctxtui.core.compacting.notes import llm_calls_sentence, saving_words
from ctxtui.core.errors import OverflowInfo
from ctxtui.core.literal import literal_block, visible
from ctxtui.core.planning.overflow import overflow_words
from ctxtui.core.planning.rows import cap_text
from ctxtui.core.wording import plural

PROMPT_PREVIEW_CHARS = 200_000
"""Characters of the LLM prompt the preview shows at most.

A long session's prompt runs to hundreds of megabytes, and a ``TextArea`` holding all of it
would freeze the app. The headless ``ctxtui compact SESSION --preview`` prints the whole
prompt.
"""


def prompt_preview(prompt: str, *, replaced: bool = True) -> str:
    """The prompt as the preview tab shows it: literally, capped, saying what was left out.

    No prompt has two causes, said apart: nothing was replaced (every message is in the fresh
    tail), or the preset's compaction drops messages without a summary."""
    if not prompt:
        if not replaced:
            return "(no LLM prompt: nothing to compact, every message is in the fresh tail)"
        return "(no LLM prompt: this compaction style drops messages)"
    shown, more = cap_text(prompt, PROMPT_PREVIEW_CHARS)
    shown = literal_block(shown)  # a TextArea hands control characters to the terminal
    if not more:
        return shown
    return (
        f"{shown}\n\n… {more:,} more bytes not shown here; "
        "`ctxtui compact SESSION --preview` prints the whole prompt"
    )


def overflow_lines(info: OverflowInfo) -> Content:
    """The ``OverflowInfo`` fields, one per line, so none hides in a long sentence."""
    return Content.assemble(
        ("Context window exceeded even after compaction", "bold"),
        "\n",
        f"model      {visible(info.model)}\n",
        f"window     {info.context_window:,} tokens\n",
        f"requested  {info.requested_tokens:,} tokens\n",
        f"reason     {overflow_words(info.reason)}",
    )


def figure_rows(
    result: CompactionResult, messages_before: int | None = None
) -> list[tuple[str, str]]:
    """Before and after, in the plan's words: what is replaced, what it saves, what stays.

    Tokens are the prompt's, as the gauge counts it; the request adds the output reserve and
    says so. Message numbers are the ones the list shows now; where applying renumbers the
    messages that stay (``messages_before`` known), their numbers after apply are given too,
    so "#1–#21" is not mistaken for the first messages of the session on screen.
    """
    reason = result.reason
    if result.replaced is None:
        replaced = "none"
    else:
        first, last = result.replaced
        span = f"#{first:,}–#{last:,}, {result.replaced_tokens:,} tok"
        replaced = f"{result.messages_replaced:,} ({span})"
    saved_row = (
        f"{result.tokens_saved:,} tok ({result.saved_share:.1%} of the prompt)"
        if result.tokens_saved > 0
        else saving_words(result)
    )
    # report's "= prompt + output reserve", one word shorter: at 80 columns it fits one line
    reserve = f"prompt + reserve {result.output_reserve:,}"
    total = len(result.session.messages)
    kept = result.tail_messages
    after = f"#{result.tail_kept:,}–#{total - 1:,}"
    if not kept:
        tail = "no messages"
    elif messages_before is None or messages_before - kept == result.tail_kept:
        tail = f"{plural(kept, 'message')} ({after}) stay verbatim"
    else:
        now = f"#{messages_before - kept:,}–#{messages_before - 1:,}"
        tail = f"{plural(kept, 'message')} ({now}) stay verbatim, numbered {after} after apply"
    rows = [
        ("Reason", reason.label),
        ("Messages replaced", replaced),
        ("Summary adds", f"{result.summary_tokens:,} tok"),
        ("Prompt tokens", f"{result.prompt_before:,} → {result.prompt_after:,}"),
        ("Request tokens", f"{result.tokens_before:,} → {result.tokens_after:,} = {reserve}"),
        ("Saved", saved_row),
        ("LLM calls", llm_calls_sentence(result)),
        ("Fresh tail", tail),
    ]
    if result.note:
        rows.append(("Note", result.note))
    if result.overflow is not None:
        rows.append(("Overflow", result.overflow.message()))
    return rows
