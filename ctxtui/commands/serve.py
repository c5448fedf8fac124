"""``ctxtui serve``: the same app in a web browser, through textual-serve.

Each browser tab starts its own ``ctxtui`` process with the session and flags given here. The
server binds to loopback unless told otherwise, and only the printed URL (it holds a secret
token) opens the app: ``ctxtui.web.server`` has the token, origin, cap and process rules.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import shlex
import stat
import sys
from pathlib import Path
from urllib.parse import urlsplit

from ctxtui.commands.errors import CommandError
from ctxtui.core.error_text import clip, clip_path
from ctxtui.core.literal import visible
from ctxtui.options import EXIT_USAGE, STOP_SIGNALS, stopped_exit
from ctxtui.system.streams import stderr_lost

LOOPBACK = ("127.0.0.1", "localhost", "::1")
_SERVE_ONLY = {"command", "session", "host", "port", "public_url", "max_apps", "export_dir"}


def app_command(session: str | None, extra: list[str]) -> str:
    """The shell command textual-serve runs for each visitor: this Python, this ctxtui, under
    ``exec`` so ending it ends the app, not a shell."""
    argv = [sys.executable, "-m", "ctxtui"]
    if session is not None:
        argv.append(str(Path(session).resolve()))
    return "exec " + shlex.join([*argv, *extra])


def _app_flags(args: argparse.Namespace) -> list[str]:
    """The session and policy flags given to ``serve``, passed on to each app process."""
    flags: list[str] = []
    for name, value in sorted(vars(args).items()):
        if name in _SERVE_ONLY or value is None or value is False:
            continue  # not ``in (None, False)``: ``0 == False``, and 0 is a value given
        flag = "--" + name.replace("_", "-")
        flags += [flag] if value is True else [flag, str(value)]
    return flags


def _export_dir(given: str | None) -> Path | None:
    """The one directory a served app may write in: it must exist, be a directory (or a link
    to one) and be writable; anything else is one line saying what is there, and exit 2."""
    if given is None:
        return None
    if not given:  # Path("") is the working directory: an empty value must not mean it
        raise CommandError("--export-dir: expected a directory, found an empty string")
    path = Path(given)
    named = f"--export-dir {clip_path(given)}"
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        found = "a broken symbolic link" if path.is_symlink() else "none"
        raise CommandError(f"{named}: expected a directory, found {found}") from None
    except OSError as err:  # a file on the way, a symlink loop, a name too long
        raise CommandError(f"{named}: cannot check the path ({err.strerror or err})") from None
    if not stat.S_ISDIR(mode):
        from ctxtui.importers import file_kind

        raise CommandError(f"{named}: expected a directory, found {file_kind(mode)}")
    if not os.access(path, os.W_OK | os.X_OK):
        raise CommandError(f"{named}: cannot write there")
    return path


def _check_public_url(url: str | None) -> None:
    """``--public-url`` must be an http(s) URL with a host: its origin is the one accepted."""
    if url is None:
        return
    try:
        parts = urlsplit(url)
        _ = parts.port
        ok = parts.scheme in ("http", "https") and bool(parts.hostname) and url.isprintable()
    except ValueError:
        ok = False
    if not ok:
        raise CommandError(f"--public-url {clip(url)}: expected an http(s) URL with a host")


def run(args: argparse.Namespace) -> int:
    from ctxtui.web.server import Bind, GuardedServer, resolve_bind, write_dir_env

    session = args.session
    if session is not None and not Path(session).exists():
        raise CommandError(f"{clip_path(session)}: no such file or directory")
    if args.format is not None:  # said here once, not in every visitor's app
        from ctxtui.core.errors import SessionLoadError
        from ctxtui.importers import importer

        try:
            importer(args.format)
        except SessionLoadError as err:
            raise CommandError(str(err)) from None
    export_dir = _export_dir(args.export_dir)
    _check_public_url(args.public_url)
    try:
        import textual_serve  # noqa: F401
    except ImportError:  # pragma: no cover - textual-serve is a dependency
        raise CommandError("textual-serve is not installed: pip install textual-serve") from None
    try:
        resolve_bind(args.host, args.port)
    except (OSError, UnicodeError) as err:
        reason = getattr(err, "strerror", None) or str(err) or "not an address"
        raise CommandError(f"--host {clip(args.host)}: cannot bind there ({reason})") from None
    os.environ.update(write_dir_env(export_dir))  # each app process inherits it
    bind = Bind(args.host, args.port, args.public_url)
    server = GuardedServer(app_command(session, _app_flags(args)), bind, max_apps=args.max_apps)
    return asyncio.run(_serve(server, args, export_dir))


async def _serve(server: object, args: argparse.Namespace, export_dir: Path | None) -> int:
    """Serve until one of ``STOP_SIGNALS``, then end the apps and the server; the exit code
    says which signal stopped it."""
    from ctxtui.web.server import GuardedServer

    assert isinstance(server, GuardedServer)
    try:
        await server.start()
    except OSError as err:
        reason = err.strerror or str(err)
        raise CommandError(f"cannot serve on {args.host}:{args.port}: {reason}") from None
    stop = asyncio.Event()
    received: list[int] = []

    def stop_on(signum: int) -> None:
        received.append(signum)
        stop.set()

    loop = asyncio.get_running_loop()
    for signum in STOP_SIGNALS:
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(signum, stop_on, signum)
    if args.host not in LOOPBACK:
        print(
            f"warning: serving on {args.host}: anyone who can reach this address and has the "
            "link can read the session",
            file=sys.stderr,
        )
    where = (
        f"writes only in {visible(str(export_dir.resolve()))}" if export_dir else "writes no file"
    )
    print(
        f"ctxtui: serving on {server.url}  (at most {args.max_apps} apps at once; the app "
        f"{where}; Ctrl+C stops)",
        file=sys.stderr,
        flush=True,
    )
    if stderr_lost():  # the URL and its token reached no one: a server nobody can open
        await server.stop()
        return EXIT_USAGE
    try:
        await stop.wait()
    finally:
        await server.stop()
    return stopped_exit(received[0])
