"""The tool outputs a plan shows truncated, each counted as the preview the model would see.

Apart from the planner because it is the one step that reads every long output's text, so a
replay can hand the planner the first plan's answer instead of measuring again.
"""

from __future__ import annotations

from ctxtui.core.planning.head_tail import head_tail
from ctxtui.core.planning.plan import TruncatedOutput
from ctxtui.core.planning.truncation import (
    Measure,
    Saved,
    byte_size,
    count_lines,
    harness_cap,
    planned_path,
    render_measured,
    whole_lines_head,
)
from ctxtui.core.policies.modes import TruncateStyle
from ctxtui.core.policies.policy import Policy
from ctxtui.core.session.models import Message, PartKind, Session
from ctxtui.core.tokens.calibration import output_cap
from ctxtui.core.tokens.counts import SessionCounts
from ctxtui.core.tokens.tokenizers import Tokenizer


def with_content(message: Message, content: str) -> Message:
    """``message`` as the model would see it with ``content`` instead of its text parts."""
    parts = tuple(p for p in message.parts if p.kind is not PartKind.TEXT)
    return message.model_copy(update={"content": content, "parts": parts})


def truncated_outputs(
    session: Session, counts: SessionCounts, tokenizer: Tokenizer, policy: Policy
) -> dict[int, TruncatedOutput]:
    """Every tool result over the limits, counted as the text the model would see instead; a
    text of at most ``max_lines`` and ``max_bytes / 4`` characters is under both unmeasured."""
    out: dict[int, TruncatedOutput] = {}
    max_lines, max_bytes = policy.truncate_max_lines, policy.truncate_max_bytes
    short = min(max_lines, max_bytes // 4)
    style = policy.truncate_style
    capped = output_cap("claude-code")
    messages = session.messages
    for i in session.index.tool_results:
        message = messages[i]
        text = message.content
        if len(text) <= short:
            continue
        if style is TruncateStyle.HARNESS_CAP:
            if capped is None or message.tool_name not in capped[1]:
                continue
            shown = harness_cap(text, max_bytes)
            if shown is None:
                continue
            lines, size = count_lines(text), byte_size(text)
        elif style is not TruncateStyle.HEAD:
            shown = (
                head_tail(text, max_lines, max_bytes)
                if style is TruncateStyle.HEAD_TAIL
                else whole_lines_head(text, max_lines, max_bytes)
            )
            if shown is None:
                continue
            lines, size = count_lines(text), byte_size(text)
        else:
            lines, size = count_lines(text), byte_size(text)
            if lines <= max_lines and size <= max_bytes:
                continue
            path = planned_path(message.tool_name or "tool")
            whole, saved = Measure(lines, size), Saved(path)
            shown = render_measured(text, whole, max_lines, max_bytes, saved).text
        after = tokenizer.count_message(with_content(message, shown))
        out[i] = TruncatedOutput(
            index=i,
            tokens_before=counts.message_tokens[i],
            tokens_after=after,
            lines=lines,
            bytes=size,
        )
    return out
