"""``ctxtui cache clear``: forget what ctxtui keeps between runs (the fleet index, the exact
token counts and the facts found in messages), all of it in the user's cache directory.

Only files ctxtui wrote go (the count files' magic line, the index's SQLite application id):
``CTXTUI_CACHE_DIR`` may name a directory that holds other programs' files, and a
``novel.counts`` or another database called ``fleet.sqlite3`` is kept and named.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from ctxtui.commands.errors import CommandError
from ctxtui.core.literal import visible
from ctxtui.fleet.index import clear, default_path
from ctxtui.options import EXIT_OK


def _clear_counts(removed: list[Path], kept: list[Path]) -> None:
    """The count cache's own files (``*.counts`` and ``facts.msgpack`` that ctxtui wrote),
    nothing else."""
    from ctxtui.system.count_cache import cache_dir, is_count_file
    from ctxtui.system.fact_cache import NAME as FACTS
    from ctxtui.system.fact_cache import is_fact_file

    directory = cache_dir()
    try:
        paths = sorted(directory.iterdir())
    except (FileNotFoundError, NotADirectoryError):
        return
    except OSError as err:
        raise _cannot("read", directory, err) from None
    for path in paths:
        if not (path.name.endswith(".counts") or path.name == FACTS):
            continue
        if not (is_count_file(path) or is_fact_file(path)):
            kept.append(path)
            continue
        try:
            path.unlink()
        except FileNotFoundError:
            continue
        except OSError as err:
            raise _cannot("remove", path, err) from None
        removed.append(path)


def _cannot(what: str, path: Path, err: OSError) -> CommandError:
    return CommandError(f"cannot {what} {visible(str(path))}: {err.strerror or err}")


def run(args: argparse.Namespace) -> int:
    del args  # the only action is "clear"
    index = default_path()
    removed: list[Path] = []
    kept: list[Path] = []
    try:
        try:
            removed, kept = clear(index)
        except OSError as err:
            raise _cannot("remove", Path(err.filename or index), err) from None
        _clear_counts(removed, kept)
    finally:
        for path in removed:
            print(f"removed {visible(str(path))}")
    for path in kept:
        print(f"kept {visible(str(path))}: not written by ctxtui")
    if not removed and not kept:
        print("nothing to clear: the cache is empty")
    return EXIT_OK
