"""Untrusted text shown literally: the one escaping function every surface prints through.

A file name, a path, a model, a tool name or a message's text comes from a transcript or a
directory listing; printed as it is, an ESC sequence in it sets the terminal's title, writes
its clipboard (OSC 52) or hides the rest of a line, and a bidi override reorders what the user
reads. ``visible`` (one line) and ``literal_block`` (line breaks kept) show such characters as
pictures instead; ``json_literal`` does the same for a JSON document's bytes. A file name's
bytes that are not UTF-8 are ``\\xNN`` on every surface: ``name_text`` and ``json_names``
write them so in a document. This module imports nothing of ctxtui, so the lightest shell may
use it.
"""

from __future__ import annotations

import re
from typing import overload

_NEWLINE = "⏎"
_TAB = "⇥"
_CARRIAGE = "␍"
_ESCAPE = "␛"
_DELETE = "␡"
_UNKNOWN = "�"
# Invisible characters that reorder or hide text: a preview must never let them act.
_BIDI = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
_SEPARATORS = "\u2028\u2029"  # line and paragraph separators: a line break to some terminals


def _picture(code: int) -> str:
    """What control character ``code`` is shown as (itself when it is not a control)."""
    ch = chr(code)
    if ch == "\n" or ch in _SEPARATORS:
        return _NEWLINE
    if ch == "\t":
        return _TAB
    if ch == "\r":
        return _CARRIAGE
    if ch == "\x1b":
        return _ESCAPE
    if code < 0x20:
        return chr(0x2400 + code)  # the Unicode control pictures: ␀ ␁ … ␟
    if code == 0x7F:
        return _DELETE
    if 0x80 <= code < 0xA0 or ch in _BIDI:
        return _UNKNOWN
    return ch


def _surrogate(code: int) -> str:
    """A lone surrogate: a file name's undecodable byte (``surrogateescape``) as ``\\xNN``,
    any other as ``�``; printed raw it could not even be encoded."""
    return f"\\x{code - 0xDC00:02x}" if 0xDC80 <= code <= 0xDCFF else _UNKNOWN


_CONTROLS = [*range(0x20), 0x7F, *range(0x80, 0xA0), *map(ord, _BIDI + _SEPARATORS)]
_SURROGATES = {code: _surrogate(code) for code in range(0xD800, 0xE000)}
# ``str.translate`` tables: a preview is made for every row drawn.
_ONE_LINE = {code: _picture(code) for code in _CONTROLS} | _SURROGATES
_BLOCK = _ONE_LINE | {ord(c): "\n" for c in _SEPARATORS} | {ord("\n"): "\n", ord("\t"): "\t"}


def visible(text: str) -> str:
    """``text`` on one line with every control character shown, never acted on: ``⏎``, ``⇥``,
    ``␛[31m``, other C0 controls as control pictures, C1 and bidi controls as ``�``, a file
    name's undecodable bytes as ``\\xNN``. Every untrusted string a shell prints (message
    text, file names, paths, models, tool names) goes through here or ``literal_block``."""
    if text.isprintable():
        return text
    return text.translate(_ONE_LINE)


def literal_block(text: str) -> str:
    """Like ``visible`` but keeps line breaks and tabs, for multi-line text (the detail pane,
    an error, a table printed by a command)."""
    if text.isprintable():
        return text
    return text.translate(_BLOCK)


_RAW_IN_JSON = re.compile(
    rb"\x7f|\xc2[\x80-\x9f]|\xd8\x9c|\xe2\x80[\x8e\x8f\xa8-\xae]|\xe2\x81[\xa6-\xa9]"
)
"""What a JSON encoder leaves raw with ``ensure_ascii=False`` that a terminal acts on or that
hides text: DEL, the C1 controls (``\\x9b`` is a CSI to some terminals), the line and
paragraph separators, and the bidi controls. In UTF-8 JSON they occur only inside strings."""


def json_literal(data: bytes) -> bytes:
    """UTF-8 JSON text with those characters written as ``\\uXXXX`` escapes: the same document,
    nothing raw for a terminal that shows it (C0 controls are escaped by every encoder)."""
    if _RAW_IN_JSON.search(data) is None:
        return data
    return _RAW_IN_JSON.sub(lambda m: b"\\u%04x" % ord(m[0].decode()), data)


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
# In JSON text a surrogate only occurs inside a string, where the backslash needs its escape.
_IN_JSON = {code: shown.replace("\\", "\\\\") for code, shown in _SURROGATES.items()}


@overload
def name_text(text: str) -> str: ...
@overload
def name_text(text: None) -> None: ...
def name_text(text: str | None) -> str | None:
    """A file name or path for a document (a report's ``path``, a JSON string): its bytes that
    are not UTF-8 as ``\\xNN``, as ``visible`` shows them, and nothing else changed. Left as
    lone surrogates they could not be written as UTF-8 at all."""
    if text is None or _LONE_SURROGATE.search(text) is None:
        return text
    return text.translate(_SURROGATES)


def json_names(text: str) -> str:
    """JSON text (``json.dumps(ensure_ascii=False)``) with each lone surrogate it left raw
    written as ``name_text`` writes it, JSON-escaped (the string reads ``ses\\xff.json``): valid
    UTF-8 that a strict reader accepts, where many refuse or replace a ``\\udcff`` escape."""
    if _LONE_SURROGATE.search(text) is None:
        return text
    return _LONE_SURROGATE.sub(lambda m: _IN_JSON[ord(m[0])], text)
