"""``ctxtui serve``: the same app in a web browser, through textual-serve.

For demos and for people who would rather not open a terminal. Each browser tab starts its own
``ctxtui`` process (textual-serve runs the command below under Textual's web driver), so the
session and the policy flags given here are what every visitor sees. The server binds to
loopback unless told otherwise: any other address shows the session's contents to whoever can
reach it.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path
from typing import Any

from ctxtui.commands.errors import CommandError

LOOPBACK = ("127.0.0.1", "localhost", "::1")


def app_command(session: str | None, extra: list[str]) -> str:
    """The shell command textual-serve runs for each visitor: this Python, this ctxtui."""
    argv = [sys.executable, "-m", "ctxtui"]
    if session is not None:
        argv.append(str(Path(session).resolve()))
    return shlex.join([*argv, *extra])


def _app_flags(args: argparse.Namespace) -> list[str]:
    """The session and policy flags given to ``serve``, passed on to each app process."""
    flags: list[str] = []
    for name, value in sorted(vars(args).items()):
        if name in {"command", "session", "host", "port", "public_url"} or value in (None, False):
            continue
        flag = "--" + name.replace("_", "-")
        flags += [flag] if value is True else [flag, str(value)]
    return flags


def run(args: argparse.Namespace) -> int:
    session = args.session
    if session is not None and not Path(session).exists():
        raise CommandError(f"{session}: no such file or directory")
    try:
        from textual_serve.server import Server
    except ImportError:  # pragma: no cover - textual-serve is a dependency
        raise CommandError("textual-serve is not installed: pip install textual-serve") from None
    if args.host not in LOOPBACK:
        print(
            f"warning: serving on {args.host}: anyone who can reach this address can read the "
            "session",
            file=sys.stderr,
        )
    server: Any = Server(
        app_command(session, _app_flags(args)),
        host=args.host,
        port=args.port,
        title="ctxtui",
        public_url=args.public_url,
    )
    print(f"ctxtui: serving on http://{args.host}:{args.port} (Ctrl+C stops)", file=sys.stderr)
    server.serve()
    return 0
