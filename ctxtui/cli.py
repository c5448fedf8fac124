"""The command line: opens the app, or runs the headless shell (report, compact, formats).

Parsing only. Each sub-command lives in ``ctxtui.commands``; the app in ``ctxtui.tui``. Both are
imported lazily so that ``ctxtui --help`` never pays for Textual or tiktoken.

Errors on the command line are one line on stderr and exit code 2, never a traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from ctxtui import __version__

SUBCOMMANDS = ("report", "compact", "formats")

EXIT_OK = 0
EXIT_OVER = 1
EXIT_USAGE = 2

DESCRIPTION = """\
See where an LLM agent's context window goes.

ctxtui opens an agent session (OpenAI, Anthropic, Claude Code, Codex, PicoClaw, OpenCode,
ShareGPT or ctxtui's own JSON), counts the tokens of every message, and shows the plan a
context manager would make: the protected fresh tail, the tool outputs it would prune or
truncate, what would be dropped, and the structured summary a compaction would write.
"""

EPILOG = """\
commands:
  ctxtui [SESSION]          open the app (no SESSION: the bundled demo session)
  ctxtui report SESSION     print the plan as a table, or as JSON with --json
  ctxtui compact SESSION    preview a compaction, or write the compacted session with -o
  ctxtui formats            list the transcript formats ctxtui reads

Run 'ctxtui COMMAND --help' for a command's options.
Exit codes: 0 ok, 1 over the --fail-over ratio (report), 2 bad input or usage.
"""


class _Parser(argparse.ArgumentParser):
    """An argparse parser whose errors are one line on stderr and exit code 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def _positive_int(text: str) -> int:
    try:
        value = int(text.replace("_", "").replace(",", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a number ≥ 0, got {value}")
    return value


def _ratio(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    return value


def add_session_options(p: argparse.ArgumentParser) -> None:
    """Options shared by every command that reads a session."""
    p.add_argument(
        "--format",
        metavar="NAME",
        help="the transcript format, overriding detection (see 'ctxtui formats')",
    )


def add_policy_options(p: argparse.ArgumentParser) -> None:
    """The policy knobs, shared by the app, ``report`` and ``compact``."""
    g = p.add_argument_group("policy (defaults come from the preset)")
    g.add_argument(
        "--preset",
        choices=("plan", "picoclaw"),
        default="plan",
        help="plan: the context-window plan, fixed; picoclaw: PicoClaw main as shipped "
        "(default: plan)",
    )
    g.add_argument(
        "--tokenizer",
        metavar="NAME",
        help="plan | picoclaw | tiktoken:ENCODING (e.g. tiktoken:cl100k_base, works offline)",
    )
    g.add_argument("--context-window", type=_positive_int, metavar="N", help="window in tokens")
    g.add_argument("--max-tokens", type=_positive_int, metavar="N", help="output reserve")
    g.add_argument("--tail-ratio", type=_ratio, metavar="F", help="tail share of the budget")
    g.add_argument("--tail-min", type=_positive_int, metavar="N", help="tail floor in tokens")
    g.add_argument("--tail-max", type=_positive_int, metavar="N", help="tail ceiling in tokens")
    g.add_argument("--tail-turns", type=_positive_int, metavar="N", help="minimum tail turns")
    g.add_argument(
        "--chars-per-token", type=_ratio, metavar="F", help="the plan estimator's divisor"
    )


POLICY_FLAGS: dict[str, str] = {
    "tokenizer": "tokenizer",
    "context_window": "context_window",
    "max_tokens": "max_tokens",
    "tail_ratio": "tail_ratio",
    "tail_min": "tail_min_tokens",
    "tail_max": "tail_max_tokens",
    "tail_turns": "tail_min_turns",
    "chars_per_token": "chars_per_token",
}


def policy_overrides(args: argparse.Namespace) -> dict[str, Any]:
    """The knobs given on the command line, keyed by ``Policy`` field name."""
    out: dict[str, Any] = {}
    for flag, knob in POLICY_FLAGS.items():
        value = getattr(args, flag, None)
        if value is not None:
            out[knob] = value
    return out


def build_app_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="ctxtui",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--version", action="version", version=f"ctxtui {__version__}")
    p.add_argument(
        "session",
        nargs="?",
        metavar="SESSION",
        help="a session file or directory to open (default: the bundled demo session)",
    )
    add_session_options(p)
    add_policy_options(p)
    return p


def build_command_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="ctxtui", formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)

    report = sub.add_parser(
        "report",
        help="print the plan for a session",
        description="Print the plan for a session: tokens, zones, fresh tail, pruning, "
        "compaction and overflow. Without --json a readable table; with --json one JSON "
        "document (schema ctxtui.report/1).",
    )
    report.add_argument("session", metavar="SESSION")
    add_session_options(report)
    add_policy_options(report)
    report.add_argument("--json", action="store_true", help="print one JSON document")
    report.add_argument(
        "--fail-over",
        type=_ratio,
        metavar="RATIO",
        help="exit 1 when the used ratio (request / window) exceeds RATIO, e.g. 0.9",
    )

    compact = sub.add_parser(
        "compact",
        help="preview or write a compaction",
        description="Compact a session: replace the history outside the fresh tail with a "
        "structured summary. --preview prints the summary and the exact LLM prompt; -o writes "
        "the compacted session as ctxtui JSON (atomically). SESSION is never modified.",
    )
    compact.add_argument("session", metavar="SESSION")
    add_session_options(compact)
    add_policy_options(compact)
    compact.add_argument(
        "--reason",
        default="proactive",
        choices=("proactive", "retry", "overflow"),
        help="why the compaction runs (default: proactive)",
    )
    compact.add_argument(
        "--preview", action="store_true", help="print the summary and the LLM prompt"
    )
    compact.add_argument("-o", "--output", metavar="OUT", help="write the compacted session here")
    compact.add_argument(
        "--force", action="store_true", help="allow -o to overwrite an existing file"
    )

    sub.add_parser(
        "formats",
        help="list the transcript formats ctxtui reads",
        description="List the transcript formats ctxtui reads, with their detection hints.",
    )
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list and args_list[0] in SUBCOMMANDS:
        args = build_command_parser().parse_args(args_list)
        from ctxtui import commands

        return commands.run(args)
    args = build_app_parser().parse_args(args_list)
    from ctxtui.tui import run_app

    return run_app(
        session=args.session,
        format=args.format,
        preset=args.preset,
        overrides=policy_overrides(args),
    )
