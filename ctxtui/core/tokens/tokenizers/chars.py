"""Character measures shared by the character-ratio estimators (PicoClaw's and the plan's).

PicoClaw measures text the model reads (content, reasoning) in runes and tool-call plumbing
(ids, types, names, arguments) in UTF-8 bytes; the plan's estimator changes only the ratio.
"""

from __future__ import annotations

from collections.abc import Iterable

from ctxtui.core.session.models import Message, ToolCall

MESSAGE_OVERHEAD_CHARS = 12
"""Characters PicoClaw adds per message for role and framing (``EstimateMessageTokens``)."""

TOOL_DEF_OVERHEAD_CHARS = 20
"""Characters PicoClaw adds per tool definition (``EstimateToolDefsTokens``)."""


def runes(text: str) -> int:
    """Unicode code points, Go's ``utf8.RuneCountInString``."""
    return len(text)


def utf8_bytes(text: str) -> int:
    """UTF-8 length, Go's ``len(s)``; a lone surrogate weighs 3 like Go's U+FFFD substitute."""
    if text.isascii():
        return len(text)
    return len(text.encode("utf-8", "surrogatepass"))


def message_chars(message: Message) -> int:
    """The characters PicoClaw's estimator charges a message, before the ratio and media (not
    role, model, timestamps or opaque blobs: PicoClaw never counts them)."""
    chars = len(message.content) + len(message.reasoning) + MESSAGE_OVERHEAD_CHARS
    if message.tool_calls:
        chars += tool_calls_bytes(message.tool_calls)
    if message.tool_call_id:
        chars += utf8_bytes(message.tool_call_id)
    return chars


def tool_calls_bytes(calls: Iterable[ToolCall]) -> int:
    """UTF-8 bytes of the tool calls' ids, types, names and arguments, as PicoClaw charges
    (an all-ASCII field, ``str.isascii`` in O(1), is its length)."""
    total = 0
    for call in calls:
        i, t, n, a = call.id, call.type, call.name, call.arguments
        if i.isascii() and t.isascii() and n.isascii() and a.isascii():
            total += len(i) + len(t) + len(n) + len(a)
        else:
            total += utf8_bytes(i) + utf8_bytes(t) + utf8_bytes(n) + utf8_bytes(a)
    return total
