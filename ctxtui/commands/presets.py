"""``ctxtui presets``: every policy preset, one line each (docs/presets.md has the figures);
``--knobs``: every knob of the table, its range and flag, and each preset's value."""

from __future__ import annotations

import argparse
import shutil
import textwrap
from collections.abc import Iterator

from ctxtui.core.policies.policy import KNOBS
from ctxtui.core.policies.presets import PRESETS
from ctxtui.options import EXIT_OK, preset_defaults, range_words


def run(args: argparse.Namespace) -> int:
    if args.knobs:
        print("\n".join(knob_lines(shutil.get_terminal_size().columns)))
        return EXIT_OK
    width = max(len(n) for n in PRESETS)
    for name, row in PRESETS.items():
        print(f"{name:<{width}}  {row.line}")
    return EXIT_OK


def knob_lines(columns: int) -> Iterator[str]:
    """The knob table by group: name, unit and range, flag; its help; each preset's value."""
    group = None
    for knob in KNOBS.values():
        if knob.group != group:
            yield from ([""] if group is not None else [])
            group = knob.group
            yield f"{group}:"
        about = [w for w in (knob.unit, knob.numeric and range_words(knob), knob.flag) if w]
        yield f"  {knob.name}" + (f" ({', '.join(about)})" if about else "")
        for text in (knob.help, f"default: {preset_defaults(knob)}{knob.note}"):
            yield from textwrap.wrap(
                text,
                max(40, columns - 1),
                initial_indent=" " * 6,
                subsequent_indent=" " * 6,
                break_on_hyphens=False,
            )
