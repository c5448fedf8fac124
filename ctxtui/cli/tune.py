"""The options of ``ctxtui tune`` (its row of ``cli.args.COMMANDS``)."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from ctxtui.cli.fleet import add_run_options
from ctxtui.cli.help import add_json_option
from ctxtui.core.tuning.score import OBJECTIVES
from ctxtui.core.tuning.space import TUNABLE


def _share(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a share from 0 to 1, got {text!r}") from None
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"expected a share from 0 to 1, got {text!r}")
    return value


def tune_options(tune: argparse.ArgumentParser, whole: Callable[[str], int]) -> None:
    """The search's options; ``whole`` checks a count."""
    tune.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="session files, or directories to search for them; default: every session of "
        "the agent that 'ctxtui sessions' lists",
    )
    tune.add_argument(
        "--agent",
        required=True,
        choices=TUNABLE,
        metavar="AGENT",
        help="whose settings to search: " + ", ".join(TUNABLE) + " (plan: ctxtui's own knobs)",
    )
    tune.add_argument(
        "--objective",
        choices=OBJECTIVES,
        default="cost",
        help="what the recommended point minimises among the front; default: cost",
    )
    tune.add_argument(
        "--max-lost",
        type=_share,
        metavar="SHARE",
        help="a candidate losing more than this share of the facts needed after a compaction "
        "is infeasible (0.05: 5 %%); default: no limit",
    )
    tune.add_argument(
        "--seed",
        type=whole,
        default=0,
        metavar="N",
        help="the seed of the random 80 %% of sessions chosen on (the rest are held out); "
        "default: 0",
    )
    add_json_option(tune, "ctxtui.tune/1")
    tune.add_argument(
        "--write-config",
        action="store_true",
        help="print the recommended point as the agent's own settings (settings.json env, "
        "config.toml, opencode.json compaction, PicoClaw's agents.defaults), each beside its "
        "current value",
    )
    tune.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help="write those settings to FILE ('-': standard output), merged into it when it "
        "exists (then only with --force, after keeping a copy of it beside it); never into an "
        "agent's session store or over a session it read, and not after an interrupt",
    )
    tune.add_argument(
        "--force", action="store_true", help="with -o: replace an existing FILE (after a backup)"
    )
    add_run_options(tune, whole)
