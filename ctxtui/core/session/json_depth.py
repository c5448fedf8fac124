"""How deep JSON may nest: one bound for a whole document (the importers refuse deeper) and
for the JSON text a session carries in a string (tool arguments, read as text when deeper)."""

from __future__ import annotations

import re

MAX_DEPTH = 1000
"""Deeper JSON than this is refused: no real transcript nests so deep. Up to it, the stdlib's
recursion is given room by ``deep_call``; pydantic-core's parser stops at 200 and leaves
deeper documents to the stdlib."""

_BRACKET_OR_STRING = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')
"""A JSON string (skipped whole: its brackets are text) or a bracket."""


def text_depth_exceeds(text: str, limit: int = MAX_DEPTH) -> bool:
    """True when the JSON ``text`` nests deeper than ``limit``, judged without parsing it
    (linear, no recursion); text with at most ``limit`` brackets costs two ``str.count``."""
    if text.count("[") + text.count("{") <= limit:
        return False
    depth = 0
    for match in _BRACKET_OR_STRING.finditer(text):
        token = match[0]
        if token in "[{":
            depth += 1
            if depth > limit:
                return True
        elif token in "]}":
            depth -= 1
    return False
