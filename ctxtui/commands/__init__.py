"""The headless shell: ``report``, ``compact`` and ``formats``, each a ``run(args) -> int``."""

from __future__ import annotations

import argparse
import importlib


def run(args: argparse.Namespace) -> int:
    """Dispatch a parsed sub-command to its module (imported lazily)."""
    module = importlib.import_module(f"ctxtui.commands.{args.command}")
    result: int = module.run(args)
    return result
