"""The headless shell: one module per sub-command (report, compact, ...), each a ``run(args)``.

A command is a module here named after it; ``ctxtui.cli_args.COMMANDS`` holds its options. Commands
never import the CLI or the app: what they share with them (exit codes, the knobs' words, how a
policy is built) lives in ``ctxtui.options``.
"""

from __future__ import annotations

import argparse
import os
import sys
from types import ModuleType

from ctxtui.commands.errors import CommandError
from ctxtui.options import EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE


def command_module(name: str) -> ModuleType:
    """The module that runs sub-command ``name``, imported on first use (``ctxtui --help``
    and the app never pay for the commands' imports)."""
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
            raise ValueError(f"no such command: {name}")


def run(args: argparse.Namespace) -> int:
    """Dispatch a parsed sub-command to its module; a ``CommandError`` is one line, exit 2."""
    module = command_module(args.command)
    try:
        result: int = module.run(args)
    except CommandError as err:
        print(f"ctxtui {args.command}: error: {err}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        # Ctrl-C on a long count: one line, the shell's usual code, no traceback.
        print(f"\nctxtui {args.command}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader (``| head``) went away: not an error. Point stdout at /dev/null so the
        # interpreter's final flush does not raise again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    return result
