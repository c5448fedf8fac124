"""The headless shell: one module per sub-command (report, compact, ...), each a ``run(args)``.

A command is a module here named after it; ``ctxtui.cli_args.COMMANDS`` holds its options. Commands
never import the CLI or the app: what they share with them (exit codes, the knobs' words, how a
policy is built) lives in ``ctxtui.options``.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from ctxtui.commands.errors import CommandError
from ctxtui.options import EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE


def run(args: argparse.Namespace) -> int:
    """Dispatch a parsed sub-command to its module; a ``CommandError`` is one line, exit 2."""
    module = importlib.import_module(f"ctxtui.commands.{args.command}")
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
