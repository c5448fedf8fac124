"""The command line: opens the app, or runs the headless shell (report, compact, formats).

Parsing only. Each sub-command is one row of ``ctxtui.cli.args.COMMANDS`` and one module
``ctxtui.commands.<name>`` with a ``run(args) -> int``; both it and the app are imported lazily,
so ``ctxtui --help`` never pays for Textual or tiktoken. A usage error is one line and exit 2;
an unexpected exception one line and exit 3 (``CTXTUI_DEBUG=1`` shows its traceback).
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import difflib
import os
import re
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from ctxtui import __version__
from ctxtui.cli.args import (
    COMMANDS,
    SUBCOMMANDS,
    add_app_options,
    add_llm_options,
    add_policy_options,
    add_session_options,
)
from ctxtui.cli.help import APP_EPILOG_HEAD, DESCRIPTION, SESSION_HELP, HelpFormatter
from ctxtui.core.error_text import clip, clip_path, describe_bug
from ctxtui.core.literal import visible
from ctxtui.options import (
    EXIT_CODES_HELP,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_USAGE,
    debugging,
    overrides_from,
)
from ctxtui.system.streams import (
    StdoutError,
    closed_descriptors,
    flush_stdout,
    guard_stderr,
    guard_stdout,
    quiet_stdout,
    stderr_lost,
)

# The policy, the importers and pydantic are imported inside the functions that need them:
# `ctxtui --version` and a mistyped command should not pay for importing them.

_LONG_WORD = re.compile(r"\S{121,}")
"""A word too long to echo: argparse repeats a bad choice or a stray argument in full."""


class _Parser(argparse.ArgumentParser):
    """An argparse parser whose errors are one line on stderr and exit code 2, with any value
    echoed back cut to a readable length."""

    def _print_message(self, message: str, file: Any = None) -> None:
        """Write ``--help`` and errors, without argparse's silence on a failed write: a full
        standard output is reported (``entry``), not a help text lost without a word."""
        stream = file or sys.stderr
        if message and stream is not None:  # None: the stream was closed before we started
            stream.write(message)

    def error(self, message: str) -> NoReturn:
        message = _LONG_WORD.sub(lambda m: f"{m[0][:60]}… ({len(m[0]):,} characters)", message)
        message = visible(" ".join(message.split()))  # one line, whatever the value held
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def app_epilog() -> str:
    """The overview under ``ctxtui --help``: the app, every command, the exit codes."""
    lines = ["commands:", APP_EPILOG_HEAD]
    lines += (f"  {f'ctxtui {c.name} {c.synopsis}'.rstrip():<24}  {c.summary}" for c in COMMANDS)
    return "\n".join(lines) + (
        "\n\nRun 'ctxtui COMMAND --help' for a command's options.\n\n" + EXIT_CODES_HELP + "\n"
    )


def build_app_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="ctxtui",
        description=DESCRIPTION,
        epilog=app_epilog(),
        formatter_class=HelpFormatter,
    )
    p.add_argument("--version", action="version", version=f"ctxtui {__version__}")
    p.add_argument(
        "session",
        nargs="?",
        metavar="SESSION",
        help=f"{SESSION_HELP}; default: the bundled demo session",
    )
    add_session_options(p)
    add_app_options(p)
    add_llm_options(p)
    p.set_defaults(summarizer=None)  # unset: the config file's "llm" decides
    add_policy_options(p)
    return p


def build_command_parsers() -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    """The ``ctxtui COMMAND`` parser and each command's own parser, to blame the right one."""
    p = _Parser(prog="ctxtui", formatter_class=HelpFormatter)
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)
    parsers: dict[str, argparse.ArgumentParser] = {}
    for c in COMMANDS:
        parser = sub.add_parser(
            c.name,
            help=c.help,
            description=c.description,
            epilog=c.epilog,
            formatter_class=HelpFormatter,
        )
        if c.session != "none":
            nargs = "?" if c.session == "optional" else None
            parser.add_argument("session", nargs=nargs, metavar="SESSION", help=SESSION_HELP)
            add_session_options(parser)
        if c.add_options is not None:
            c.add_options(parser)
        if c.session != "none" and c.policy:
            add_policy_options(parser)
        parsers[c.name] = parser
    return p, parsers


# -- main ------------------------------------------------------------------------------------


def _exists(word: str) -> bool:
    """Whether ``word`` names something to open: a path, or ``store.db#ses_X``, one session of
    an existing database (as ``ctxtui sessions`` lists them)."""
    try:
        if Path(word).exists():
            return True
        base, sep, session_id = word.rpartition("#")
        return bool(sep and session_id) and Path(base).is_file()
    except (OSError, ValueError):  # a name too long for the file system, a NUL byte
        return False


def _unknown_command(word: str) -> str | None:
    """A close sub-command for a mistyped one (``reprot``), unless ``word`` is a real path."""
    if word.startswith("-") or _exists(word):
        return None
    close = difflib.get_close_matches(word, SUBCOMMANDS, n=1, cutoff=0.6)
    return close[0] if close else None


def _not_a_terminal() -> str | None:
    """Which standard stream keeps the app from running here (``None``: it can run): it
    reads keys on stdin and draws on stderr (Textual's output), and stdout must be a
    terminal too. A web driver (``TEXTUAL_DRIVER``, set when the app is served in a
    browser) needs none. With stderr a file or ``/dev/null`` the app ran invisibly; closed,
    it hung."""
    if os.environ.get("TEXTUAL_DRIVER"):
        return None
    streams = (("standard input", sys.stdin), ("standard output", sys.stdout))
    for name, stream in (*streams, ("standard error", sys.__stderr__)):
        try:
            if stream is None or not stream.isatty():
                return name
        except (AttributeError, ValueError):  # a closed stream
            return name
    return None


def _open_app(args_list: list[str]) -> int:
    """Check everything the command line can check, then open the app (in a terminal only)."""
    app = build_app_parser()
    if args_list and (guess := _unknown_command(args_list[0])) is not None:
        app.error(f"unknown command {clip(args_list[0])} (did you mean '{guess}'?)")
    args = app.parse_args(args_list)
    if args.session is not None and not _exists(args.session):
        app.error(f"no such file or command: {clip_path(args.session)}")
    if args.pick and args.session is not None:
        app.error("--pick starts on the sessions picker: give SESSION or --pick, not both")
    if args.watch and args.session is None:
        app.error("--watch follows a file: name it, as in 'ctxtui --watch SESSION'")
    if (stream := _not_a_terminal()) is not None:
        session = args.session if args.session and len(args.session) <= 60 else "SESSION"
        print(
            f"ctxtui: error: the app needs a terminal and its {stream} is not one; for the "
            f"plan as text run 'ctxtui report {shlex.quote(session)}'",
            file=sys.stderr,
        )
        return EXIT_USAGE
    from ctxtui.tui import run_app
    from ctxtui.tui.start import Start

    start = Start(args.format, args.preset, overrides_from(args), args.pick, args.watch)
    return run_app(session=args.session, start=start, llm=llm_flags(args))


def llm_flags(args: argparse.Namespace) -> dict[str, object]:
    """The LLM flags the user gave, by the app's setting names (unset ones left out)."""
    given = {
        "summarizer": args.summarizer,
        "base_url": args.llm_base_url,
        "model": args.llm_model,
        "timeout": args.llm_timeout,
        "allow_http": args.llm_allow_http,
    }
    return {name: value for name, value in given.items() if value is not None}


def _run(args_list: list[str]) -> int:
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
    return _open_app(args_list)


def stdout_failed(prog: str, err: OSError) -> int:
    """Standard output failed: one line and exit 2, or quietly 0 when the reader went away."""
    quiet_stdout()
    if isinstance(err, BrokenPipeError):  # ``| head`` had enough: not an error, by convention
        return EXIT_OK
    print(f"{prog}: error: cannot write to standard output ({err.strerror})", file=sys.stderr)
    return EXIT_USAGE


def main(argv: Sequence[str] | None = None) -> int:
    """The ``ctxtui`` entry point. Usage errors exit through argparse (``SystemExit(2)``);
    everything else returns its exit code, an unexpected exception included."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    prog = f"ctxtui {args_list[0]}" if args_list and args_list[0] in SUBCOMMANDS else "ctxtui"
    try:
        code = _run(args_list)
        flush_stdout()  # the last buffered bytes fail here, while a line can still say so
        return code
    except (StdoutError, BrokenPipeError) as err:
        return stdout_failed(prog, err)
    except KeyboardInterrupt:
        print(f"\n{prog}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Exception as err:
        if debugging():
            raise
        print(f"{prog}: {describe_bug(err)}", file=sys.stderr)
        return EXIT_INTERNAL


def entry() -> NoReturn:
    """The console script and ``python -m ctxtui``: ``main``, then leave without freeing the heap
    object by object (exit handlers still run and the output is flushed first). A line lost on
    stderr makes a success exit 2: it cannot say so itself, and 0 would say all was delivered."""
    closed = closed_descriptors()
    guard_stderr(closed=2 in closed)
    if 1 in closed:
        print("ctxtui: error: standard output is closed; nothing can be printed", file=sys.stderr)
        os._exit(EXIT_USAGE)
    guard_stdout()
    try:
        code = main()
    except SystemExit as done:  # argparse: --help, a usage error
        code = done.code if isinstance(done.code, int) else EXIT_USAGE
        try:
            flush_stdout()
        except (StdoutError, BrokenPipeError) as err:
            code = stdout_failed("ctxtui", err) or code
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a reader gone away, a closed stream
            stream.flush()
    if code == EXIT_OK and stderr_lost():
        code = EXIT_USAGE
    os._exit(code)
