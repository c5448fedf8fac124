"""``tune --write-config``: the recommended point as the agent's own settings, printed or
written with every write's rules (``system.output``): never into an agent's session store,
through a temporary file renamed into place, an existing file replaced only with ``--force``
and only after a copy of it is kept beside it."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from ctxtui.commands.errors import CommandError
from ctxtui.core.literal import visible
from ctxtui.core.tuning.configured import AgentConfig
from ctxtui.core.tuning.write_back import MergeError, words, write_back
from ctxtui.options import EXIT_OK


def _backup_path(target: Path) -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    return target.with_name(f"{target.name}.ctxtui-{stamp}.bak")


def write_config(args: argparse.Namespace, doc: dict[str, Any], config: AgentConfig | None) -> int:
    """Print (or with ``-o``, write) the recommended candidate as the agent's settings."""
    best = doc["recommended"]
    if best is None:
        raise CommandError("--write-config: no candidate is feasible, so none is recommended")
    settings = tuple(doc["candidates"][best]["knobs"].items())
    if args.output in (None, "-"):  # ``-o -``: standard output, as every ``-o`` takes it
        result = write_back(args.agent, settings, config)
        print("\n".join(words(result)))
        return EXIT_OK
    sources = [*doc["sessions"], *(e["path"] for e in doc["errors"])]
    return _write_file(args, settings, config, sources)


def _write_file(
    args: argparse.Namespace, settings: Any, config: AgentConfig | None, sources: list[str]
) -> int:
    """Write the settings to ``-o``; never over a session the run read (``sources``)."""
    from ctxtui.agent_config import UnreadableError, read_text
    from ctxtui.importers import source_protection
    from ctxtui.stores.guard import store_refusal
    from ctxtui.system.output import OutputError, atomic_write, check_output

    if (refusal := store_refusal(args.output)) is not None:
        raise CommandError(refusal)
    protected = frozenset().union(*(source_protection(path) for path in sources))
    try:
        target = check_output(args.output, protected=protected, force=args.force)
        existing = read_text(target)
        result = write_back(args.agent, settings, config, existing)
        if result.target is None:
            for line in result.unexposed:
                print(f"ctxtui tune: not written: {line}", file=sys.stderr)
            return EXIT_OK
        backup = None
        if existing is not None:
            backup = check_output(_backup_path(target))
            atomic_write(backup, (existing.encode("utf-8"),))
        atomic_write(target, (result.text.encode("utf-8"),))
    except (OutputError, UnreadableError) as err:
        raise CommandError(str(err)) from None
    except MergeError as err:
        raise CommandError(f"{args.output}: cannot merge the settings: {err}") from None
    kept = f"; the old file kept as {backup}" if backup is not None else ""
    print(f"wrote {visible(str(target))} ({args.agent} settings{kept})", file=sys.stderr)
    for line in result.beside:
        print(f"  {line}", file=sys.stderr)
    return EXIT_OK
