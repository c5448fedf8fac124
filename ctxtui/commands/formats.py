"""``ctxtui formats``: the transcript formats the importers read.

One entry per format, in detection order: the name ``--format`` takes, then what it is and its
file names under a hanging indent, wrapped to the terminal (at most 100 columns).
"""

from __future__ import annotations

import argparse
import re
import shutil
import textwrap

from ctxtui.core.session import formats

MAX_WIDTH = 100


def _what(title: str, description: str) -> str:
    """The description, led by the title unless it already says the same; an option stays
    on the line of the word before it (``compact -o`` is not split)."""
    text = (
        description if description.lower().startswith(title.lower()) else f"{title}: {description}"
    )
    return re.sub(r" (-{1,2}\w)", "\u00a0\\1", text)


def run(args: argparse.Namespace) -> int:
    width = min(shutil.get_terminal_size((80, 24)).columns, MAX_WIDTH)
    indent = max(len(f.name) for f in formats.FORMATS) + 2
    for f in formats.FORMATS:
        lines = textwrap.wrap(
            _what(f.title, f.description), max(width - indent, 30), break_on_hyphens=False
        )
        lines.append("files: " + ", ".join(f.extensions))
        print(f"{f.name:<{indent}}{lines[0]}")
        for line in lines[1:]:
            print(" " * indent + line)
    return 0
