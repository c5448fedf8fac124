"""``SessionCounts``: the token figures of one session under one tokenizer.

Counting is slow and planning fast: counts in their own immutable object let a knob change
re-plan without counting again, and the app show estimates while exact counts are computed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import accumulate

from ctxtui.core.tokens.tokenizers import TokenizerInfo


@dataclass(frozen=True, slots=True)
class SessionCounts:
    """Per-message token counts plus the parts of a request that are not messages."""

    tokenizer: TokenizerInfo
    message_tokens: Sequence[int]
    system_tokens: int = 0
    tool_def_tokens: int = 0
    summary_tokens: int = 0  # the source's out-of-band summary (PicoClaw meta.summary)
    prefix: Sequence[int] = field(default=(), compare=False)

    def __post_init__(self) -> None:
        if not self.prefix or len(self.prefix) != len(self.message_tokens) + 1:
            object.__setattr__(self, "prefix", (0, *accumulate(self.message_tokens)))

    def __len__(self) -> int:
        return len(self.message_tokens)

    @property
    def history_tokens(self) -> int:
        return self.prefix[-1]
