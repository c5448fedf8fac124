"""``ctxtui compare``: one session under several presets, as a table or ``ctxtui.compare/1``."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ctxtui.cli import EXIT_OK
from ctxtui.commands.errors import CommandError
from ctxtui.commands.pipeline import load
from ctxtui.commands.report import print_table
from ctxtui.core.compare import compare
from ctxtui.core.engine import Engine
from ctxtui.core.policy import PRESETS, PolicyError
from ctxtui.core.report import display_text


def _presets(text: str) -> list[str]:
    names = [n.strip() for n in text.split(",") if n.strip()]
    unknown = [n for n in names if n not in PRESETS]
    if unknown or not names:
        raise CommandError(
            f"--presets: unknown preset {', '.join(map(repr, unknown)) or '(none)'} "
            f"(known: {', '.join(PRESETS)})"
        )
    return names


def _table(doc: dict[str, Any]) -> Any:
    from rich.table import Table

    table = Table(box=None, pad_edge=False, header_style="bold")
    for name in (
        "preset",
        "window",
        "trigger",
        "prompt",
        "compacts",
        "tail",
        "kept",
        "dropped",
        "pruned",
        "after",
    ):
        table.add_column(name, justify="left" if name == "preset" else "right", no_wrap=True)
    for p in doc["presets"]:
        zones = p["zones"]
        table.add_row(
            p["preset"],
            f"{p['window']:,} ({p['window_source']})",
            f"{p['trigger']:,}",
            f"{p['tokens']:,}",
            "yes" if p["compacts_now"] else "no",
            f"#{p['tail_start']:,}",
            f"{zones['kept']['count']:,} / {zones['kept']['tokens']:,}",
            f"{zones['dropped']['count']:,} / {zones['dropped']['tokens']:,}",
            f"{p['pruned']['count']:,} / {p['pruned']['tokens_freed']:,}",
            f"{p['after_compaction']['requested']:,}",
        )
    return table


def run(args: argparse.Namespace) -> int:
    from ctxtui.cli import policy_overrides

    names = _presets(args.presets)
    session = load(args)
    try:
        doc = compare(Engine(session), names, policy_overrides(args))
    except PolicyError as err:
        raise CommandError(str(err)) from None
    if args.json:
        sys.stdout.write(display_text(json.dumps(doc, indent=2, ensure_ascii=False)) + "\n")
    else:
        print_table(_table(doc))
    return EXIT_OK
