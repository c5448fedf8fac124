"""``ctxtui tune [PATHS…] --agent AGENT``: better knob values for an agent, from its sessions.

Every session is read and counted once, then replayed under every candidate of the agent's
grid (``core.tuning.space``) on the fleet's executor; the candidates are scored on a seeded
80 % of the sessions, the Pareto front kept, one point recommended and scored on the other
20 % (``core.tuning.score``). ``--write-config`` prints that point as the agent's own
settings; ``-o FILE`` writes them (``core.tuning.write_back``, ``system.output``).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ctxtui.commands import pipeline
from ctxtui.commands.errors import CommandError
from ctxtui.commands.fleet import (
    PROGRESS_AFTER_SECONDS,
    PROGRESS_EVERY_SECONDS,
    executor_from,
    write_json,
)
from ctxtui.core.literal import visible
from ctxtui.core.tuning.configured import AgentConfig
from ctxtui.core.tuning.document import (
    Searched,
    front_rows,
    search_for,
    tune_words,
)
from ctxtui.core.tuning.space import Settings
from ctxtui.fleet.job import Target
from ctxtui.options import EXIT_OK, stopped_exit


def _targets(args: argparse.Namespace) -> list[Target]:
    from ctxtui.fleet.run import path_targets, store_targets

    if not args.paths:
        found = store_targets()
        return found if args.agent == "plan" else [t for t in found if t.agent == args.agent]
    try:
        return path_targets(args.paths)
    except FileNotFoundError as err:
        raise CommandError(f"no such file or directory: {err.args[0]}") from None


def searched_from(args: argparse.Namespace, current: Settings | None) -> Searched:
    return search_for(args.agent, current, args.objective, args.max_lost, args.seed)


def build(args: argparse.Namespace) -> tuple[dict[str, Any], int | None, AgentConfig | None]:
    """Run the search; the document, the exit code of an interrupted run (``None``: it ran
    to its end), the agent's settings."""
    from ctxtui.agent_config import read_agent_config
    from ctxtui.fleet.tune import agent_search, run_tune

    search = agent_search(args.agent, read_agent_config, lambda _, now: searched_from(args, now))
    targets = _targets(args)
    if not targets:
        raise CommandError(f"no {args.agent} sessions found (give PATHS, or see 'ctxtui sessions')")
    line = pipeline.Progress(sys.stderr, after=PROGRESS_AFTER_SECONDS, every=PROGRESS_EVERY_SECONDS)
    try:
        spec = search.spec(args.format)
        run = run_tune(targets, spec, executor=executor_from(args), on_progress=line.show)
    except OSError as err:  # --dask: the scheduler cannot be reached
        raise CommandError(f"--dask {args.dask}: {err}") from None
    finally:
        line.close()
    stopped = stopped_exit(run.signal) if run.interrupted else None
    return search.document(run), stopped, search.config


def run(args: argparse.Namespace) -> int:
    doc, stopped, config = build(args)
    if stopped is not None and (args.write_config or args.output is not None):
        # a point chosen on the sessions scored so far is not the run's recommendation
        done = len(doc["sessions"])
        print(
            f"ctxtui tune: interrupted; {done:,} sessions scored; no settings written",
            file=sys.stderr,
        )
        return stopped
    if args.write_config or args.output is not None:
        from ctxtui.commands.tune_write import write_config

        write_config(args, doc, config)
    elif args.json:
        write_json(doc)
    else:
        # paths and errors come from file names and transcripts: shown, never acted on
        sys.stdout.write("".join(visible(line) + "\n" for line in render(doc)))
    if stopped is not None:
        done = len(doc["sessions"])
        print(f"ctxtui tune: interrupted; {done:,} sessions scored", file=sys.stderr)
        return stopped
    return EXIT_OK


# -- the table ----------------------------------------------------------------------------


def _with_path(path: str, error: str) -> str:
    """``path: error``, the path once: a read's error mostly starts with it already (as
    ``visible`` shows it: ``SessionLoadError`` names its file so)."""
    return error if error.startswith((path, visible(path))) else f"{path}: {error}"


def _money(value: float | None) -> str:
    return "-" if value is None else f"${value:,.4f}"


def _settings(knobs: dict[str, Any]) -> str:
    return " ".join(f"{k}={v}" for k, v in knobs.items())


def render(doc: dict[str, Any]) -> list[str]:
    """The front as a table, then the recommended point and its held-out score."""
    out = [
        f"tune {doc['agent']}: {len(doc['candidates']):,} candidates over "
        f"{len(doc['sessions']):,} sessions ({len(doc['train']):,} to choose on, "
        f"{len(doc['test']):,} held out), objective {doc['objective']}",
        "",
        "Pareto front (feasible: no overflow"
        + (f", at most {doc['max_lost']:.0%} of needed facts lost" if doc["max_lost"] else "")
        + "):",
    ]
    header = ("", "settings", "trigger", "cost", "compactions", "lost", "peak")
    rows = [header]
    for row in front_rows(doc):
        trigger = f"{row['trigger']:,}" if row["trigger"] is not None else "-"
        rows.append(
            (
                row["mark"],
                _settings(row["knobs"]),
                trigger,
                _money(row["cost_usd"]),
                f"{row['compactions']:,}",
                f"{row['lost_needed']:,}/{row['needed']:,}",
                f"{row['peak']:.0%}",
            )
        )
    widths = [max(len(str(r[c])) for r in rows) for c in range(len(header))]
    out += [
        ("  " + "  ".join(str(v).ljust(w) for v, w in zip(r, widths, strict=True))).rstrip()
        for r in rows
    ]
    out.append("")
    best = doc["recommended"]
    if best is None:
        out.append("recommended: none (no candidate is feasible on the sessions chosen on)")
    else:
        chosen = doc["candidates"][best]
        out.append(
            f"recommended: {_settings(chosen['knobs'])} ({_money(chosen['cost_usd'])}, "
            f"{chosen['compactions']:,} compactions on the {len(doc['train']):,} chosen on)"
        )
        held = doc["held_out"]
        out.append(
            "held out: no session left to test on"
            if held is None
            else f"held out: {_money(held['cost_usd'])}, {held['compactions']:,} compactions, "
            f"{held['overflows']:,} overflows, {held['lost_needed']:,}/{held['needed']:,} "
            f"needed facts lost, peak {held['peak']:.0%} over {len(doc['test']):,} sessions"
        )
    out += tune_words(doc)
    out += [f"error: {_with_path(e['path'], e['error'])}" for e in doc["errors"]]
    return out
