"""The options of ``ctxtui fleet`` and ``ctxtui cache`` (rows of ``cli.args.COMMANDS``)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from datetime import date

from ctxtui.cli.help import add_json_option
from ctxtui.core.fleet import PERIODS
from ctxtui.core.session.formats import FORMAT_NAMES, normalize_format


def iso_date(text: str) -> date:
    """``--since``/``--until``'s value: an ISO date (``2026-03-02``)."""
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected an ISO date such as 2026-03-02, got {text[:40]!r}"
        ) from None


def format_name(text: str) -> str:
    """``--format``'s value for many files: a known format, or a usage error before any file
    is read (each row would otherwise say the same thing, and the run exit 0)."""
    name = normalize_format(text)
    if name not in FORMAT_NAMES:
        raise argparse.ArgumentTypeError(
            f"unknown format {text[:40]!r}; known formats: {', '.join(FORMAT_NAMES)}"
        )
    return name


def fleet_options(
    fleet: argparse.ArgumentParser,
    whole: Callable[[str], int],
    add_policy_options: Callable[[argparse.ArgumentParser], None],
) -> None:
    """The fleet's options, then the policy knobs; ``whole`` checks a count."""
    fleet.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="session files, or directories to search for them; default: every session "
        "'ctxtui sessions' lists",
    )
    add_json_option(fleet)
    fleet.add_argument(
        "--compare",
        metavar="A,B,...",
        help="also replay every session under these presets and print each preset's simulated "
        "totals across the fleet (compactions, peak prompt, cost) under the recorded ones",
    )
    fleet.add_argument(
        "--by",
        choices=PERIODS,
        help="also total the requests per UTC day, week (from Monday), month, or ccusage's "
        "5-hour billing block (from the hour of its first request, until a request comes 5 "
        "hours after that or after the previous one); each request counts in its own period",
    )
    fleet.add_argument(
        "--since",
        type=iso_date,
        metavar="DATE",
        help="only the sessions that sent a request on or after this UTC day (ISO date), and "
        "only those requests in the periods",
    )
    fleet.add_argument(
        "--until",
        type=iso_date,
        metavar="DATE",
        help="only the sessions that sent a request on or before this UTC day (ISO date), and "
        "only those requests in the periods",
    )
    fleet.add_argument(
        "--no-simulate",
        action="store_true",
        help="read usage only: no token count and no replay (the simulated columns are empty)",
    )
    fleet.add_argument(
        "--no-cache",
        action="store_true",
        help="read every session again and leave the index alone",
    )
    add_run_options(fleet, whole)
    add_policy_options(fleet)


def add_run_options(parser: argparse.ArgumentParser, whole: Callable[[str], int]) -> None:
    """Where many sessions run and how they are read: ``fleet``'s and ``tune``'s."""
    parser.add_argument(
        "--workers",
        type=whole,
        metavar="N",
        help="processes to run; default: every core, never more than the sessions to read; "
        "1 reads in this process",
    )
    parser.add_argument(
        "--dask",
        metavar="ADDRESS",
        help="run the sessions on an existing Dask cluster: tcp://HOST:PORT of its scheduler, "
        "which must answer within 10 s; needs the optional 'dask' extra",
    )
    parser.add_argument(
        "--format",
        type=format_name,
        metavar="NAME",
        help="read every file as this format instead of detecting it: " + ", ".join(FORMAT_NAMES),
    )


def cache_options(cache: argparse.ArgumentParser) -> None:
    """``ctxtui cache``'s one action."""
    cache.add_argument("action", choices=("clear",), help="clear: remove everything cached")
