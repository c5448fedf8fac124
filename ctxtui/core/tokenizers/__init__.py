"""Token counters behind one interface: the plan's estimator, PicoClaw's, and tiktoken.

Contract (the planner, the app and the report rely on it):

* ``Tokenizer.name`` is the spec it answers to (``plan``, ``picoclaw``, ``tiktoken:cl100k_base``).
* ``count_message`` counts one message as that tokenizer's agent would, media by item, opaque
  blobs not at all; ``count_text`` counts bare text (stubs, previews, summaries);
  ``count_tool_defs`` counts the tool schemas sent with a request; ``count_system`` counts the
  system prompt as the one system message of a request.
* ``resolve(spec, chars_per_token=...)`` returns a tokenizer and a ``TokenizerInfo`` saying
  which tokenizer was asked for, which one is used, and why they differ. It never blocks on the
  network for longer than ``timeout`` seconds.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from ctxtui.core.models import Message, ToolDefinition


class Tokenizer(Protocol):
    """What every token counter offers."""

    @property
    def name(self) -> str: ...

    def count_text(self, text: str) -> int: ...

    def count_message(self, message: Message) -> int: ...

    def count_tool_defs(self, tools: Sequence[ToolDefinition]) -> int: ...

    def count_system(self, system_prompt: str) -> int: ...
