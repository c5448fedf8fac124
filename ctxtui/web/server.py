"""The web server behind ``ctxtui serve``: textual-serve's app processes behind a locked door.

Any web page a user visits can open a WebSocket to ``127.0.0.1``; without a door, such a page
could drive the app (read the session, press ``e`` to export over a file). So, as Jupyter does:

* **A secret per launch.** The page, its WebSocket and the files an app delivers (a
  screenshot: ``/download/<token>/<key>``) are served only under a random token, printed in the
  URL ``serve`` shows (``/?token=...``); anything else is refused with 403 before an app
  process starts or a file is sent.
* **Same origin only.** A WebSocket whose ``Origin`` is not the served address (or a loopback
  name for it, or ``--public-url``) is refused with 403, token or not.
* **A cap on apps.** At most ``max_apps`` processes run at once; one more visitor gets a page
  (503) that says so, and no process.
* **Bounded apps.** The announced terminal size is clamped, and an app ends within seconds of
  its socket closing: asked to quit, then terminated, then killed.
* **Bounded logs.** Anyone who reaches the port can send a malformed request: aiohttp answers
  400, and stderr gets one line for it, never the traceback aiohttp logs (``LibraryLog``).

What the served app may write is decided in the app (``output.write_root_refusal``): only inside
the directory named with ``--export-dir``, or nowhere.
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import json
import logging
import secrets
import socket
import sys
import traceback
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ctxtui.core.error_text import describe_bug
from ctxtui.core.literal import visible
from ctxtui.options import debugging

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1")
WIDTH = (20, 400)
"""The terminal columns an app may be given: a 4000-column screen costs 150 MB per app."""
HEIGHT = (8, 200)
"""The terminal rows an app may be given."""
QUIT_GRACE = 2.0
"""Seconds an app gets to quit on its own once its socket closed, then as long for SIGTERM."""
MAX_MESSAGE = 64 * 1024
"""Bytes of one WebSocket message from the browser (keys and resizes are a few dozen)."""
LOGGERS = ("aiohttp", "textual-serve")
"""The libraries' loggers whose records ``LibraryLog`` prints while a server runs."""
LOG_TEXT = 120
"""Characters of a library's message in a log line (the reason a request was refused: half)."""


def clamp(value: object, bounds: tuple[int, int], default: int) -> int:
    """A terminal dimension from the browser, as an int within ``bounds``."""
    try:
        number = int(str(value))
    except ValueError:
        return default
    return max(bounds[0], min(bounds[1], number))


def origin_of(url: str) -> str:
    """``scheme://host[:port]`` of a URL, lower-cased, as browsers send it in ``Origin``."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}".lower()


def url_host(host: str) -> str:
    """A host as it appears in a URL (an IPv6 address in brackets)."""
    return f"[{host}]" if ":" in host else host


def allowed_origins(host: str, port: int, public_url: str | None) -> frozenset[str]:
    """The ``Origin`` values a WebSocket may come from: the served address and its aliases."""
    hosts = {host}
    if host in LOOPBACK_NAMES:
        hosts |= set(LOOPBACK_NAMES)
    origins = {f"http://{url_host(h)}:{port}".lower() for h in hosts}
    if public_url:
        origins.add(origin_of(public_url))
    return frozenset(origins)


def resolve_bind(host: str, port: int) -> None:
    """Raise ``OSError`` (one-line ``strerror``) when ``host`` names no address to bind."""
    socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)


def _page(title: str, text: str) -> str:
    return (
        "<!DOCTYPE html><html><head><meta charset='utf-8'>"
        f"<title>ctxtui: {html.escape(title)}</title></head>"
        "<body style='font-family: sans-serif; max-width: 40em; margin: 4em auto'>"
        f"<h1>{html.escape(title)}</h1><p>{html.escape(text)}</p></body></html>"
    )


def _shown(text: str, limit: int = LOG_TEXT) -> str:
    """A library's text (it may quote a client's bytes) on one line, cut to ``limit``."""
    text = visible(" ".join(text.split()))
    return text if len(text) <= limit else text[: limit - 1] + "…"


def log_line(record: logging.LogRecord) -> str:
    """A library's log record as what ``serve`` prints: one line, whatever the exception.

    A request aiohttp could not parse is the client's doing (anyone can send one), so its line
    says it was refused and why, not where in the parser. Any other exception is a bug: it is
    named as ``describe_bug`` names one, its traceback shown only with ``CTXTUI_DEBUG=1``.
    """
    from aiohttp.http_exceptions import HttpProcessingError

    try:
        said = record.getMessage()
    except (TypeError, ValueError):  # arguments that do not fit the format
        said = str(record.msg)
    line = f"ctxtui serve: {_shown(said)}"
    error = record.exc_info[1] if record.exc_info else None
    if error is None:
        return line
    if isinstance(error, HttpProcessingError) and 400 <= error.code < 500:
        # aiohttp's message goes on to quote the offending bytes over several lines
        reason = (str(error.message).strip().splitlines() or [""])[0].rstrip(": ")
        why = _shown(reason, LOG_TEXT // 2)
        return f"{line}: a malformed request, answered {error.code} ({why})"
    if isinstance(error, OSError):  # the connection failed: the network's doing, not a bug
        return f"{line}: {_shown(error.strerror or str(error))}"
    if debugging():
        return f"{line}\n" + "".join(traceback.format_exception(error)).rstrip()
    return f"{line}: {describe_bug(error)}"


class LibraryLog(logging.Handler):
    """aiohttp's and textual-serve's warnings and errors as ``log_line`` words them.

    Left to Python's default, each malformed request a client sends printed a whole traceback
    on stderr: noise anyone could fill the terminal with, hiding the errors that matter.
    """

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self._restore: dict[str, bool] = {}

    def install(self) -> None:
        """Take the libraries' records from here on (they no longer reach the root logger)."""
        for name in LOGGERS:
            logger = logging.getLogger(name)
            self._restore.setdefault(name, logger.propagate)
            logger.addHandler(self)
            logger.propagate = False

    def remove(self) -> None:
        """Give the libraries' records back to whatever took them before ``install``."""
        for name, propagate in self._restore.items():
            logger = logging.getLogger(name)
            logger.removeHandler(self)
            logger.propagate = propagate
        self._restore.clear()

    def emit(self, record: logging.LogRecord) -> None:
        # stderr is looked up now, not at install: whoever replaced it since still gets lines
        with contextlib.suppress(OSError, ValueError):  # stderr closed: nowhere to say it
            sys.stderr.write(log_line(record) + "\n")
            sys.stderr.flush()


@dataclass(frozen=True, slots=True)
class Bind:
    """Where the server listens (port 0: one the kernel picks) and, behind a proxy, the
    public URL its users reach it by (``--host``, ``--port``, ``--public-url``)."""

    host: str
    port: int
    public_url: str | None = None


class GuardedServer:
    """textual-serve's ``Server`` with the token, origin, cap and process rules above.

    Built lazily (textual-serve and aiohttp are imported by ``start``) so that ``ctxtui --help``
    never pays for them.
    """

    def __init__(
        self, command: str, bind: Bind, *, max_apps: int, token: str | None = None
    ) -> None:
        self.command = command
        self.host = bind.host
        self.port = bind.port  # the kernel's choice once started on port 0
        self.max_apps = max_apps
        self.public_url_given = bind.public_url
        self.token = token or secrets.token_urlsafe(24)
        self.apps: set[Any] = set()
        self.origins: frozenset[str] = frozenset()
        self._runner: Any = None
        self._inner: Any = None
        self._log = LibraryLog()

    # -- addresses -------------------------------------------------------------------------

    @property
    def base_url(self) -> str:
        if self.public_url_given:
            return self.public_url_given.rstrip("/")
        return f"http://{url_host(self.host)}:{self.port}"

    @property
    def url(self) -> str:
        """The URL to open, token included: the only way in."""
        return f"{self.base_url}/?token={self.token}"

    def _token_ok(self, given: str | None) -> bool:
        return given is not None and secrets.compare_digest(given.encode(), self.token.encode())

    # -- serving ---------------------------------------------------------------------------

    async def start(self) -> None:
        """Bind and start serving; ``OSError`` when the address cannot be bound."""
        import aiohttp_jinja2
        import jinja2
        from aiohttp import web
        from textual_serve.server import Server

        inner = Server(self.command, host=self.host, port=self.port, title="ctxtui")
        self._inner = inner
        app = web.Application(client_max_size=MAX_MESSAGE)
        aiohttp_jinja2.setup(app, loader=jinja2.FileSystemLoader(inner.templates_path))
        app.add_routes(
            [
                web.get("/", self.handle_index, name="index"),
                web.get("/ws/{token}", self.handle_websocket, name="websocket"),
                web.get("/download/{token}/{key}", self.handle_download, name="download"),
                web.get("/download/{key}", self.handle_download),
                web.static("/static", inner.statics_path, name="static"),
            ]
        )
        runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await runner.setup()
        self._runner = runner
        site = web.TCPSite(runner, self.host, self.port)
        self._log.install()
        try:
            await site.start()
        except BaseException:
            await runner.cleanup()
            self._log.remove()
            raise
        if self.port == 0:  # an ephemeral port: say the one the kernel chose
            server = getattr(site, "_server", None)
            sockets = getattr(server, "sockets", None) or []
            if sockets:
                self.port = int(sockets[0].getsockname()[1])
        self.origins = allowed_origins(self.host, self.port, self.public_url_given)

    async def stop(self) -> None:
        """End every app, then the server."""
        await asyncio.gather(*(self._end(service) for service in list(self.apps)))
        if self._runner is not None:
            await self._runner.cleanup()
        self._log.remove()

    # -- handlers --------------------------------------------------------------------------

    async def handle_index(self, request: Any) -> Any:
        import aiohttp_jinja2
        from aiohttp import web

        if not self._token_ok(request.query.get("token")):
            return web.Response(
                status=403,
                content_type="text/html",
                text=_page(
                    "Forbidden",
                    "Open the link 'ctxtui serve' printed when it started: it holds this "
                    "launch's secret token.",
                ),
            )
        if len(self.apps) >= self.max_apps:
            return self._full_page()
        ws_base = "wss:" if self.base_url.startswith("https") else "ws:"
        context = {
            "font_size": clamp(request.query.get("fontsize", "16"), (6, 64), 16),
            "app_websocket_url": ws_base + self.base_url.split(":", 1)[1] + f"/ws/{self.token}",
            "config": {"static": {"url": self.base_url + "/static/"}},
            "application": {"name": "ctxtui"},
        }
        response = aiohttp_jinja2.render_template("app_index.html", request, context)
        response.headers["Referrer-Policy"] = "no-referrer"  # the token stays on this page
        response.headers["Cache-Control"] = "no-store"
        return response

    def _full_page(self) -> Any:
        from aiohttp import web

        return web.Response(
            status=503,
            content_type="text/html",
            text=_page(
                "Too many apps",
                f"{len(self.apps)} ctxtui apps are already running, the most this server "
                f"starts at once (--max-apps {self.max_apps}). Close another tab and reload, "
                "or restart 'ctxtui serve' with a larger --max-apps.",
            ),
        )

    def _refusal(self, request: Any) -> str | None:
        """Why a WebSocket request is refused, or ``None`` to accept it."""
        if not self._token_ok(request.match_info.get("token")):
            return "a wrong or missing token"
        origin = request.headers.get("Origin")
        if origin is None or origin.lower() not in self.origins:
            return "a cross-origin request"
        return None

    async def handle_download(self, request: Any) -> Any:
        """A file an app delivered, only under the launch's token (the key alone is refused)."""
        from aiohttp import web

        if not self._token_ok(request.match_info.get("token")):
            return web.Response(status=403, text="Forbidden: a wrong or missing token\n")
        return await self._inner.handle_download(request)

    def _delivery_under_token(self, text: str) -> str:
        """An app's text message to the browser, a file delivery's key put under the token.

        The browser opens ``/download/<what it was sent>``, so sending ``<token>/<key>`` makes
        it ask for the guarded route.
        """
        if not text.startswith('["deliver_file_start"'):
            return text
        try:
            kind, key = json.loads(text)
        except (ValueError, TypeError):
            return text
        return json.dumps([kind, f"{self.token}/{key}"])

    async def handle_websocket(self, request: Any) -> Any:
        from aiohttp import web
        from textual_serve.app_service import AppService

        why = self._refusal(request)
        if why is not None:
            return web.Response(status=403, text=f"Forbidden: {why}\n")
        if len(self.apps) >= self.max_apps:
            return self._full_page()
        width = clamp(request.query.get("width", "80"), WIDTH, 80)
        height = clamp(request.query.get("height", "24"), HEIGHT, 24)
        websocket = web.WebSocketResponse(heartbeat=15, max_msg_size=MAX_MESSAGE)
        service = AppService(
            self.command,
            write_bytes=websocket.send_bytes,
            write_str=lambda text: websocket.send_str(self._delivery_under_token(text)),
            close=websocket.close,  # type: ignore[arg-type]  # returns a bool, unread
            download_manager=self._inner.download_manager,
        )
        self.apps.add(service)  # before any await: the cap counts this one already
        try:
            await websocket.prepare(request)
            await service.start(width, height)
            await self._process_messages(websocket, service)
        except (asyncio.CancelledError, ConnectionError):
            pass
        finally:
            with contextlib.suppress(Exception):
                await websocket.close()
            await self._end(service)
        return websocket

    async def _process_messages(self, websocket: Any, service: Any) -> None:
        """Keys, resizes and pings from the browser; anything malformed is dropped."""
        from aiohttp import WSMsgType

        handlers: dict[str, Callable[[Any], Awaitable[Any]]] = {
            "stdin": lambda data: service.send_bytes(str(data).encode("utf-8")),
            "resize": lambda data: service.set_terminal_size(
                clamp(data.get("width"), WIDTH, 80), clamp(data.get("height"), HEIGHT, 24)
            ),
            "ping": lambda data: websocket.send_json(["pong", str(data)[:64]]),
            "blur": lambda _data: service.blur(),
            "focus": lambda _data: service.focus(),
        }
        async for message in websocket:
            if message.type != WSMsgType.TEXT:
                continue
            try:
                envelope = json.loads(message.data)
                kind, data = envelope[0], (envelope[1] if len(envelope) > 1 else None)
                if kind == "resize" and not isinstance(data, dict):
                    continue
                handler = handlers.get(kind) if isinstance(kind, str) else None
            except (ValueError, TypeError, IndexError, KeyError):
                continue
            if handler is not None:
                await handler(data)

    async def _end(self, service: Any) -> None:
        """Make sure the app's process is gone: quit, then SIGTERM, then SIGKILL."""
        process = service._process
        try:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(service.stop(), QUIT_GRACE)
            if process is not None and process.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    process.terminate()
                try:
                    await asyncio.wait_for(process.wait(), QUIT_GRACE)
                except TimeoutError:
                    with contextlib.suppress(ProcessLookupError):
                        process.kill()
                    await process.wait()
            task = service._task
            if task is not None and not task.done():
                task.cancel()
                with contextlib.suppress(BaseException):
                    await task
        finally:
            self.apps.discard(service)


def write_dir_env(export_dir: Path | None) -> dict[str, str]:
    """The environment that confines a served app's writes (``output.write_root_refusal``):
    only inside ``export_dir``, or no file at all, not even the count cache."""
    from ctxtui.system.count_cache import ENV_DISABLE
    from ctxtui.system.output import WRITE_ROOT_ENV

    root = str(export_dir.resolve()) if export_dir is not None else ""
    return {WRITE_ROOT_ENV: root, ENV_DISABLE: "1"}
