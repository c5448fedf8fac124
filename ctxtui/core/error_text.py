"""A user's value shown back in an error: quoted, cut to a readable length, numbers as people
read them. Shared by the shells' refusals and the policy's messages (through ``options``),
and, in ``describe_bug``, the words both shells use for an exception nobody expected."""

from __future__ import annotations

from ctxtui.core.literal import visible

ECHO_LIMIT = 40
"""Characters of a user's value shown back in an error; the rest is counted, not printed."""


def quote(text: str) -> str:
    """``text`` in single quotes, shown literally (``visible``): an error stays one line and
    a control character in it is a picture, never an escape acted on."""
    return f"'{visible(text)}'"


def clip(text: str, limit: int = ECHO_LIMIT) -> str:
    """``text`` quoted (``quote``), cut to ``limit`` characters with the full length after it:
    ``'1000…' (5,001 characters)``."""
    if len(text) <= limit:
        return quote(text)
    return f"{quote(text[: limit - 1] + '…')} ({len(text):,} characters)"


def clip_path(path: str, limit: int = 100) -> str:
    """A path quoted for an error, its end kept when it is long: the file name tells most."""
    if len(path) <= limit:
        return quote(path)
    return f"{quote('…' + path[-(limit - 1) :])} ({len(path):,} characters)"


def show_number(value: float) -> str:
    """A knob value as people read it: ``32,768``, ``0.25``, ``1.0000001``, ``1e-310``; floats
    keep every digit that tells them apart, and a whole number too long to read is named by
    its number of digits."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return clip(str(value))
    if isinstance(value, int):
        if abs(value) < 10**30:
            return f"{value:,}"
        return f"a {value.bit_length() * 30_103 // 100_000 + 1:,}-digit number"
    if value.is_integer() and abs(value) < 1e16:
        return f"{int(value):,}"
    return repr(value)


def describe_bug(err: BaseException) -> str:
    """An unexpected exception as one line: what it was, and how to see the traceback. It
    names the class, unlike a refusal of bad input: this is a bug report."""
    what = visible(" ".join(str(err).split())) or "no message"
    if len(what) > 200:
        what = what[:199] + "…"
    return (
        f"internal error ({type(err).__name__}: {what}); this is a bug in ctxtui: "
        "run again with CTXTUI_DEBUG=1 for the traceback"
    )
