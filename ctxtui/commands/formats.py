"""``ctxtui formats``: the transcript formats the importers read."""

from __future__ import annotations

import argparse

from ctxtui.importers import FORMATS


def run(args: argparse.Namespace) -> int:
    width = max(len(f.name) for f in FORMATS)
    for f in FORMATS:
        extensions = ", ".join(f.extensions)
        print(f"{f.name:<{width}}  {f.title}: {f.description} ({extensions})")
    return 0
