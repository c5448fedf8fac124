"""``ctxtui presets``: every policy preset, one line each (docs/presets.md has the figures)."""

from __future__ import annotations

import argparse

from ctxtui.core.policies.presets import PRESETS
from ctxtui.options import EXIT_OK


def run(args: argparse.Namespace) -> int:
    width = max(len(n) for n in PRESETS)
    for name, row in PRESETS.items():
        print(f"{name:<{width}}  {row.line}")
    return EXIT_OK
