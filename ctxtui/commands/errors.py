"""``CommandError``: bad input on the command line, shown as one line on stderr with exit 2."""

from __future__ import annotations


class CommandError(Exception):
    """``str()`` names the file or knob at fault and what was expected."""
