"""The command line: opens the app, or runs the headless shell (report, compact, formats).

Parsing only. Each sub-command lives in ``ctxtui.commands``; the app in ``ctxtui.tui``. Both are
imported lazily so that ``ctxtui --help`` never pays for Textual or tiktoken.

Errors on the command line are one line on stderr and exit code 2, never a traceback.
"""

from __future__ import annotations

import argparse
import difflib
import math
import re
import sys
import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from ctxtui import __version__

# The policy, the importers and pydantic are imported inside the functions that need them:
# `ctxtui --version` and a mistyped command should not pay ~100 ms for them.

SUBCOMMANDS = ("report", "compact", "replay", "formats", "sessions", "serve")

EXIT_OK = 0
EXIT_OVER = 1  # report --fail-over
EXIT_USAGE = 2

DESCRIPTION = """\
See where an LLM agent's context window goes.

ctxtui opens an agent session, counts the tokens of every message, and shows the
plan a context manager would make: the protected fresh tail, the tool outputs it
would prune or truncate, what would be dropped, and the structured summary a
compaction would write.
"""

SESSION_HELP = (
    "a transcript file: OpenAI Chat or Responses, Anthropic Messages, Claude Code, Codex, "
    "PicoClaw (JSONL, legacy JSON, seahorse.db), OpenCode (JSON storage or .db), ShareGPT, "
    "or ctxtui's own JSON; .gz and .zst files are read too. A directory works for OpenCode "
    "storage and PicoClaw sessions. The format is detected (see 'ctxtui formats')"
)

TOKENIZER_HELP = (
    "how tokens are counted: 'plan' (characters / --chars-per-token, rounded up), 'picoclaw' "
    "(PicoClaw's shipped estimator) or 'tiktoken:ENCODING' (exact). tiktoken:cl100k_base works "
    "offline; other encodings (o200k_base, ...) need a download, and without one the count "
    "falls back to cl100k_base and the report says so; default: the preset's (plan, picoclaw)"
)

PRESET_HELP = (
    "the knobs' starting values. plan: the context-window plan with its defects fixed "
    "(token-measured fresh tail, pruning, truncation, structured summaries). picoclaw: "
    "PicoClaw main as shipped (last 32 items, no pruning, drops the oldest half); default: plan"
)

EPILOG = """\
commands:
  ctxtui [SESSION]          open the app (no SESSION: the bundled demo session)
  ctxtui report SESSION     print the plan as a table, or as JSON with --json
  ctxtui compact SESSION    preview a compaction, or write the compacted session
  ctxtui replay SESSION     every request over time: simulated and reported prompts
  ctxtui formats            list the transcript formats ctxtui reads
  ctxtui sessions           list the sessions your agents wrote (Claude Code, Codex, ...)
  ctxtui serve [SESSION]    serve the app to a web browser (loopback only by default)

Run 'ctxtui COMMAND --help' for a command's options.

Exit codes: 0 ok, 1 over the --fail-over ratio (report), 2 bad input or usage.
"""

REPORT_EPILOG = """\
The budget is the window less the output reserve (--max-tokens); the request is
the prompt (system + tools + history, after pruning and truncation) plus that
reserve, and the used ratio is request / window.

examples:
  ctxtui report session.jsonl
  ctxtui report session.json --json | jq .totals
  ctxtui report session.json --context-window 32768 --max-tokens 4096
  ctxtui report session.json --tokenizer tiktoken:cl100k_base --fail-over 0.9
"""

COMPACT_EPILOG = """\
Without --preview or -o, prints what the compaction would replace and the
tokens it would save.

examples:
  ctxtui compact session.jsonl --preview
  ctxtui compact session.jsonl -o compacted.json
  ctxtui report compacted.json                     # read it back
"""


_ASCII_SPACE = re.compile(r"[ \t\n]+")
"""Whitespace a help line may break at; the no-break space in ``≥\u00a00`` is not."""


class _HelpFormatter(argparse.HelpFormatter):
    """Wraps prose paragraphs to the terminal, keeps indented blocks (examples) as written,
    and never breaks an option name at its hyphen (``--chars-`` / ``per-token``)."""

    def _split_lines(self, text: str, width: int) -> list[str]:
        return textwrap.wrap(
            _ASCII_SPACE.sub(" ", text).strip(),
            width,
            break_on_hyphens=False,
            break_long_words=False,
        )

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        blocks: list[str] = []
        for block in text.strip("\n").split("\n\n"):
            if any(line.startswith(" ") or line.endswith(":") for line in block.splitlines()):
                blocks.append("\n".join(indent + line for line in block.splitlines()))
            else:
                blocks.append(
                    textwrap.fill(
                        _ASCII_SPACE.sub(" ", block).strip(),
                        width,
                        initial_indent=indent,
                        subsequent_indent=indent,
                        break_on_hyphens=False,
                    )
                )
        return "\n\n".join(blocks) + "\n"


class _Parser(argparse.ArgumentParser):
    """An argparse parser whose errors are one line on stderr and exit code 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def _count(text: str) -> int:
    """A whole number ≥ 0; ``_`` and ``,`` group digits as people write them (32_768, 4,096)."""
    try:
        value = int(text.replace("_", "").replace(",", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a number ≥ 0, got {value}")
    return value


def _ratio(text: str) -> float:
    """A finite number; NaN would pass every range check as 'not out of range'."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"expected a finite number, got {text!r}")
    return value


def _fail_ratio(text: str) -> float:
    """The --fail-over threshold: a ratio > 0 (1.0 is exactly the window)."""
    value = _ratio(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"expected a ratio > 0 such as 0.9, got {text!r}")
    return value


def add_session_options(p: argparse.ArgumentParser) -> None:
    """Options shared by every command that reads a session."""
    from ctxtui.importers import FORMAT_NAMES

    p.add_argument(
        "--format",
        metavar="NAME",
        help="read SESSION as this format instead of detecting it: " + ", ".join(FORMAT_NAMES),
    )


def add_policy_options(p: argparse.ArgumentParser) -> None:
    """The policy knobs, shared by the app, ``report`` and ``compact``."""
    from ctxtui.commands.knobs import KNOBS, knob_help
    from ctxtui.core.policy import PRESETS

    g = p.add_argument_group(
        "policy",
        "What the simulated context manager does. Each knob starts from the preset's value; "
        "'unused by X' means preset X ignores it.",
    )
    g.add_argument("--preset", choices=tuple(PRESETS), default="plan", help=PRESET_HELP)
    g.add_argument("--tokenizer", metavar="SPEC", help=TOKENIZER_HELP)
    for knob in KNOBS:
        kind = _ratio if knob.metavar == "F" else _count
        g.add_argument(knob.flag, type=kind, metavar=knob.metavar, help=knob_help(knob))


def policy_overrides(args: argparse.Namespace) -> dict[str, Any]:
    """The knobs given on the command line, keyed by ``Policy`` field name."""
    from ctxtui.commands.knobs import POLICY_FLAGS

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
        formatter_class=_HelpFormatter,
    )
    p.add_argument("--version", action="version", version=f"ctxtui {__version__}")
    p.add_argument(
        "session",
        nargs="?",
        metavar="SESSION",
        help=f"{SESSION_HELP}; default: the bundled demo session",
    )
    add_session_options(p)
    add_policy_options(p)
    return p


def build_command_parsers() -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    """The ``ctxtui COMMAND`` parser and each command's own parser, to blame the right one."""
    p = _Parser(prog="ctxtui", formatter_class=_HelpFormatter)
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)

    report = sub.add_parser(
        "report",
        help="print the plan for a session",
        description="Print the plan for a session: tokens, zones, fresh tail, pruning, "
        "compaction and overflow. Without --json a table for people; with --json one JSON "
        "document (schema ctxtui.report/1) for scripts, and nothing else on stdout.",
        epilog=REPORT_EPILOG,
        formatter_class=_HelpFormatter,
    )
    report.add_argument("session", metavar="SESSION", help=SESSION_HELP)
    add_session_options(report)
    report.add_argument("--json", action="store_true", help="print one JSON document")
    report.add_argument(
        "--fail-over",
        type=_fail_ratio,
        metavar="RATIO",
        help="exit 1 when the used ratio (request / window) exceeds RATIO, a number > 0 "
        "such as 0.9 (1 is exactly full); for CI",
    )
    add_policy_options(report)

    compact = sub.add_parser(
        "compact",
        help="preview or write a compaction",
        description="Compact a session: replace the history outside the fresh tail with a "
        "structured summary (picoclaw: drop the oldest half of the turns). --preview prints "
        "the summary and the exact LLM prompt; -o writes the compacted session as ctxtui "
        "JSON, atomically. SESSION is never modified.",
        epilog=COMPACT_EPILOG,
        formatter_class=_HelpFormatter,
    )
    compact.add_argument("session", metavar="SESSION", help=SESSION_HELP)
    add_session_options(compact)
    compact.add_argument(
        "--reason",
        default="proactive",
        choices=("proactive", "retry", "overflow"),
        help="why the compaction runs, recorded in the result: proactive (over budget before "
        "a call), retry (the provider refused the request), overflow (nothing else fits); "
        "default: proactive",
    )
    compact.add_argument(
        "--preview", action="store_true", help="print the summary and the LLM prompt"
    )
    compact.add_argument(
        "-o",
        "--output",
        metavar="OUT",
        help="write the compacted session to OUT as ctxtui native JSON (never over SESSION or "
        "a file it is read from); -o - writes it to stdout and the summary lines to stderr",
    )
    compact.add_argument(
        "--force", action="store_true", help="allow -o to overwrite an existing file"
    )
    llm = compact.add_argument_group(
        "LLM summary",
        "By default the summary is ctxtui's local, deterministic stand-in. With --summarizer "
        "openai the exact prompt --preview shows is sent to an OpenAI-compatible endpoint "
        "(OpenAI, OpenRouter, Ollama, vLLM, llama.cpp, LM Studio) and its answer is the "
        "summary; the key comes from OPENAI_API_KEY (a server on 127.0.0.1 needs none).",
    )
    llm.add_argument(
        "--summarizer",
        choices=("stand-in", "openai"),
        default="stand-in",
        help="who writes the summary; default: stand-in",
    )
    llm.add_argument(
        "--llm-base-url",
        metavar="URL",
        help="the endpoint's base URL, e.g. http://127.0.0.1:11434/v1; default: "
        "OPENAI_BASE_URL, else https://api.openai.com/v1",
    )
    llm.add_argument("--llm-model", metavar="NAME", help="the model that writes the summary")
    llm.add_argument(
        "--llm-timeout",
        type=_ratio,
        metavar="SECONDS",
        help="give up when the endpoint sends nothing for this long (one retry); default: 60",
    )
    add_policy_options(compact)

    formats = sub.add_parser(
        "formats",
        help="list the transcript formats ctxtui reads",
        description="List the transcript formats ctxtui reads: the name to give --format, "
        "and what each one is.",
    )
    sessions = sub.add_parser(
        "sessions",
        help="list the sessions your agents wrote",
        description="List the sessions Claude Code, Codex, OpenCode and PicoClaw wrote in "
        "their standard stores, newest first, with the agent, start time, model, size and "
        "project; Claude Code sub-agents are listed under their parent. Each store honours "
        "its agent's variable: CLAUDE_CONFIG_DIR, CODEX_HOME, XDG_DATA_HOME (OpenCode), "
        "PICOCLAW_HOME. The OPEN column is what to pass to 'ctxtui'.",
        formatter_class=_HelpFormatter,
    )
    sessions.add_argument("--json", action="store_true", help="print one JSON document")
    sessions.add_argument(
        "--count",
        action="store_true",
        help="count each session's messages (reads every file whole; slower)",
    )

    serve = sub.add_parser(
        "serve",
        help="serve the app to a web browser",
        description="Serve the app to a web browser with textual-serve: each visitor gets "
        "their own ctxtui on SESSION (default: the bundled demo). It binds to 127.0.0.1; "
        "binding to any other address shows the session's contents to whoever can reach it.",
        formatter_class=_HelpFormatter,
    )
    serve.add_argument("session", nargs="?", metavar="SESSION", help=SESSION_HELP)
    serve.add_argument(
        "--host", default="127.0.0.1", help="address to bind; default: 127.0.0.1 (loopback)"
    )
    serve.add_argument("--port", type=_count, default=8000, help="port to bind; default: 8000")
    serve.add_argument(
        "--public-url", metavar="URL", help="the URL browsers use, when behind a proxy"
    )
    add_session_options(serve)
    add_policy_options(serve)
    parsers: dict[str, argparse.ArgumentParser] = {
        "report": report,
        "compact": compact,
        "formats": formats,
    }
    parsers["replay"] = _replay_parser(sub)
    return p, {**parsers, "sessions": sessions, "serve": serve}


REPLAY_EPILOG = """\
Each request is a call the agent made (the point before an assistant message).
Simulated is the prompt the policy would have sent, with its own compactions;
reported is what the API counted, where the transcript recorded it.

examples:
  ctxtui replay session.jsonl
  ctxtui replay session.jsonl --context-window 32768 --json | jq .compactions
"""


def _replay_parser(sub: Any) -> argparse.ArgumentParser:
    replay: argparse.ArgumentParser = sub.add_parser(
        "replay",
        help="replay a session request by request under a policy",
        description="Walk every request the agent sent, in order: the prompt the policy would "
        "have sent (compacting when its trigger fires), the prompt the API reported, the "
        "compactions the agent really ran, and how far each tokenizer is from the reported "
        "figures. Without --json a table; with --json one document (schema ctxtui.replay/1).",
        epilog=REPLAY_EPILOG,
        formatter_class=_HelpFormatter,
    )
    replay.add_argument("session", metavar="SESSION", help=SESSION_HELP)
    add_session_options(replay)
    replay.add_argument("--json", action="store_true", help="print one JSON document")
    add_policy_options(replay)
    return replay


def _unknown_command(word: str) -> str | None:
    """A close sub-command for a mistyped one (``reprot``), unless ``word`` is a real path."""
    if word.startswith("-") or Path(word).exists():
        return None
    close = difflib.get_close_matches(word, SUBCOMMANDS, n=1, cutoff=0.6)
    return close[0] if close else None


def _check_app_knobs(parser: argparse.ArgumentParser, overrides: dict[str, Any]) -> None:
    """Refuse a knob out of its range before the app starts: a command-line error is one line
    and exit 2, not an error screen to dismiss (``report`` and ``compact`` check the same in
    their pipeline, with the session loaded)."""
    from ctxtui.commands.errors import CommandError
    from ctxtui.commands.knobs import TOKENIZER_SPEC, flag_of, range_problem
    from ctxtui.commands.pipeline import check_tokenizer

    for field, value in overrides.items():
        if field == "tokenizer":
            try:
                check_tokenizer(value)
            except CommandError as err:
                parser.error(str(err))
            if not TOKENIZER_SPEC.match(value):
                parser.error("--tokenizer: expected plan, picoclaw or tiktoken:ENCODING")
            continue
        problem = range_problem(field, value)
        if problem is not None:
            parser.error(f"{flag_of(field)}: {problem}")


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list == ["--version"]:  # answered before any parser (and the policy) is built
        print(f"ctxtui {__version__}")
        return EXIT_OK
    if args_list and args_list[0] in SUBCOMMANDS:
        parser, commands_ = build_command_parsers()
        args, extra = parser.parse_known_args(args_list)
        if extra:  # blame the command, so its --help is the one suggested
            commands_[args.command].error(f"unrecognized arguments: {' '.join(extra)}")
        from ctxtui import commands

        return commands.run(args)
    app = build_app_parser()
    if args_list and (guess := _unknown_command(args_list[0])) is not None:
        app.error(f"unknown command {args_list[0]!r} (did you mean '{guess}'?)")
    args = app.parse_args(args_list)
    overrides = policy_overrides(args)
    _check_app_knobs(app, overrides)
    from ctxtui.tui import run_app

    return run_app(
        session=args.session, format=args.format, preset=args.preset, overrides=overrides
    )
