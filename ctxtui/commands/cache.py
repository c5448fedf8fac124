"""``ctxtui cache clear``: forget what ctxtui keeps between runs (the fleet index and the
exact token counts), all of it in the user's cache directory."""

from __future__ import annotations

import argparse
import contextlib
from pathlib import Path

from ctxtui.fleet.index import clear, default_path
from ctxtui.options import EXIT_OK


def _clear_counts() -> list[Path]:
    """The count cache's own files (``*.counts``), nothing else in its directory."""
    from ctxtui.system.count_cache import cache_dir

    directory = cache_dir()
    removed = []
    with contextlib.suppress(OSError):
        for path in sorted(directory.iterdir()):
            if path.is_file() and path.name.endswith(".counts"):
                with contextlib.suppress(OSError):
                    path.unlink()
                    removed.append(path)
    return removed


def run(args: argparse.Namespace) -> int:
    del args  # the only action is "clear"
    removed = clear(default_path()) + _clear_counts()
    if not removed:
        print("nothing to clear: the cache is empty")
    for path in removed:
        print(f"removed {path}")
    return EXIT_OK
