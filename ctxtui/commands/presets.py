"""``ctxtui presets``: every policy preset, one line each (docs/presets.md has the figures)."""

from __future__ import annotations

import argparse

from ctxtui.core.policies.policy import PRESET_LINES, PRESETS
from ctxtui.options import EXIT_OK


def run(args: argparse.Namespace) -> int:
    width = max(len(n) for n in PRESETS)
    for name in PRESETS:
        print(f"{name:<{width}}  {PRESET_LINES[name]}")
    return EXIT_OK
