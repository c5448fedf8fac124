"""JSON documents on stdout: the stdlib's text, written by orjson.

``json.dumps(indent=2, ensure_ascii=False)`` runs the stdlib's pure-Python encoder (``indent``
turns its C encoder off): seconds for a replay of tens of thousands of requests. orjson writes
the same text for strings, integers, containers and most floats; where it would not, the
document is adjusted or the stdlib writes it, so the bytes are the stdlib's either way.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from typing import Any

from ctxtui.core.literal import json_literal, json_names

SMALL_FLOAT = 1e-4
"""Below this (and not zero) ``repr`` writes a float with an exponent (``1e-05``), orjson
without one or with another (``0.00001``, ``2.5e-7``): such a float is written by ``repr``."""


class _UnsureError(Exception):
    """A value orjson would write differently (NaN, infinity): the stdlib writes the document."""


def stdlib_text(doc: Any) -> bytes:
    """``json.dumps(doc, indent=2, ensure_ascii=False)`` and a newline, a name's undecodable
    bytes as ``\\xNN`` (``json_names``), in UTF-8: the same bytes, at orjson's speed wherever
    it writes them alike. What a terminal would act on (a C1 control, a bidi override) is
    escaped (``json_literal``).

    orjson refuses what the stdlib writes otherwise (a lone surrogate, an integer past 64
    bits, a key that is not a string) and NaN or infinity are looked for: those documents go
    the stdlib way.
    """
    import orjson

    try:
        value = _Floats(orjson.Fragment).exact(doc)
        data = orjson.dumps(value, option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE)
    except (orjson.JSONEncodeError, _UnsureError, RecursionError):
        data = (json_names(json.dumps(doc, indent=2, ensure_ascii=False)) + "\n").encode()
    return json_literal(data)


_NESTED = (float, dict, list, tuple)


class _Floats:
    """Each float orjson would write differently replaced by its ``repr`` (a fragment of
    ready JSON); containers are copied only where something inside changed."""

    def __init__(self, fragment: Any) -> None:
        self.fragment = fragment

    def exact(self, value: Any) -> Any:
        if isinstance(value, float):
            if not math.isfinite(value):
                raise _UnsureError
            if value != 0.0 and -SMALL_FLOAT < value < SMALL_FLOAT:
                return self.fragment(repr(value))
            return value
        if isinstance(value, dict):
            return self._copied(value, value.items(), dict)
        if isinstance(value, (list, tuple)):
            return self._copied(value, enumerate(value), list)
        return value

    def _copied(self, value: Any, items: Iterable[tuple[Any, Any]], copy: Any) -> Any:
        out: Any = None
        for key, item in items:
            if isinstance(item, _NESTED):
                new = self.exact(item)
                if new is not item:
                    out = copy(value) if out is None else out
                    out[key] = new
        return value if out is None else out


def print_json(doc: Any) -> None:
    """``doc`` on stdout as ``stdlib_text`` writes it."""
    write_stdout(stdlib_text(doc))


def write_stdout(data: bytes) -> None:
    """``data`` on stdout as bytes (or decoded, when stdout is a text stream without one)."""
    import sys

    out = sys.stdout
    buffer = getattr(out, "buffer", None)
    if buffer is None:  # a text stream without one (a test's capture)
        out.write(data.decode("utf-8"))
        return
    out.flush()
    buffer.write(data)
    buffer.flush()
