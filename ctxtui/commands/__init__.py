"""The headless shell: one module per sub-command (report, compact, ...), each a ``run(args)``.

``ctxtui.cli.args.COMMANDS`` holds each one's options. Commands never import the CLI or the
app: what they share (exit codes, the knobs' words, building a policy) is ``ctxtui.options``.
"""

from __future__ import annotations

import argparse
import sys
from types import ModuleType

from ctxtui.commands.errors import CommandError
from ctxtui.core.literal import literal_block
from ctxtui.options import EXIT_USAGE


def command_module(name: str) -> ModuleType:
    """The module that runs sub-command ``name``, imported on first use (``ctxtui --help``
    and the app never pay for the commands' imports): one plain import per ``COMMANDS`` row,
    which the import graph sees (``tests/cli/test_commands.py`` checks the two agree)."""
    match name:
        case "cache":
            from ctxtui.commands import cache

            return cache
        case "compact":
            from ctxtui.commands import compact

            return compact
        case "compare":
            from ctxtui.commands import compare

            return compare
        case "fleet":
            from ctxtui.commands import fleet

            return fleet
        case "formats":
            from ctxtui.commands import formats

            return formats
        case "presets":
            from ctxtui.commands import presets

            return presets
        case "replay":
            from ctxtui.commands import replay

            return replay
        case "report":
            from ctxtui.commands import report

            return report
        case "retention":
            from ctxtui.commands import retention

            return retention
        case "serve":
            from ctxtui.commands import serve

            return serve
        case "sessions":
            from ctxtui.commands import sessions

            return sessions
        case _:
            return _tuning_module(name)


def _tuning_module(name: str) -> ModuleType:
    """The commands about the knobs themselves: ``policy`` and ``tune``."""
    match name:
        case "policy":
            from ctxtui.commands import policy

            return policy
        case "tune":
            from ctxtui.commands import tune

            return tune
        case _:
            raise ValueError(f"no such command: {name}")


def run(args: argparse.Namespace) -> int:
    """Dispatch a parsed sub-command to its module; a ``CommandError`` is one line, exit 2
    (Ctrl-C and a reader gone away are ``cli.main``'s, as for the app)."""
    module = command_module(args.command)
    try:
        result: int = module.run(args)
    except CommandError as err:
        print(f"ctxtui {args.command}: error: {literal_block(str(err))}", file=sys.stderr)
        return EXIT_USAGE
    return result
