"""The LLM client's wire: bounded reads of an untrusted HTTP answer, and a watchdog per attempt.

The endpoint is hostile: at most ``MAX_ANSWER_BYTES`` are read, before and after decoding, a
line ``MAX_LINE_BYTES``, an error body ``MAX_ERROR_BYTES``; shown text has its control
characters made visible, a URL no credentials. ``Watchdog`` ends an attempt at its deadline
or on ``Stop`` by shutting its socket.
"""

from __future__ import annotations

import contextlib
import re
import socket
import threading
import zlib
from collections.abc import Callable, Iterator, Mapping
from typing import Any
from urllib.parse import urlsplit

from ctxtui.core.literal import visible

MAX_ANSWER_BYTES = 8 << 20
"""Bytes of one answer read at most, before and after decoding: a summary is a few KB, and
a streamed one a few hundred KB with its JSON framing."""
MAX_ERROR_BYTES = 64 << 10
"""Bytes of an error body read at most: one line of it is shown."""
MAX_LINE_BYTES = 1 << 20
"""Bytes of one server-sent-events line at most."""


class SummarizerError(Exception):
    """An LLM call that did not give a summary; ``str()`` is one line for the user."""


class SummaryCancelledError(SummarizerError):
    """The user stopped the call."""


class Stop:
    """A stop button for a call running in another thread, and its ``should_stop`` check:
    pressing it shuts the call's socket at once, so even a blocked read ends now."""

    def __init__(self) -> None:
        self._pressed = threading.Event()
        self._lock = threading.Lock()
        self._hooks: list[Callable[[], None]] = []

    def __call__(self) -> bool:
        return self._pressed.is_set()

    def press(self) -> None:
        with self._lock:
            self._pressed.set()
            hooks = list(self._hooks)
        for hook in hooks:
            hook()

    def on_press(self, hook: Callable[[], None]) -> Callable[[], None]:
        """Run ``hook`` when pressed (now, if it already was); returns its remover."""
        with self._lock:
            pressed = self._pressed.is_set()
            if not pressed:
                self._hooks.append(hook)
        if pressed:
            hook()

        def remove() -> None:
            with self._lock, contextlib.suppress(ValueError):
                self._hooks.remove(hook)

        return remove


def shown_url(url: str) -> str:
    """A URL as messages show it: no credentials (``user:key@``), query or fragment, controls
    visible; a URL too malformed to parse loses them too (they may hold a key)."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = f":{parts.port}" if parts.port is not None else ""
    except ValueError:
        return visible(_without_secrets(url)[:120])
    host = f"[{host}]" if ":" in host else host
    return visible(f"{parts.scheme}://{host}{port}{parts.path}"[:120])


def _without_secrets(url: str) -> str:
    """``url`` cut by hand, as ``urlsplit`` refused it: its query and fragment left out, and
    the user information before the host's ``@``."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        scheme, rest = "", url
    rest = re.split("[?#]", rest, maxsplit=1)[0]
    authority, slash, path = rest.partition("/")
    return f"{scheme}{sep}{authority.rpartition('@')[2]}{slash}{path}"


def one_line(text: str, limit: int = 160) -> str:
    """``text`` as one short line with its control characters shown (never acted on)."""
    flat = visible(re.sub(r"\s+", " ", text[: limit * 4]).strip())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


class AnswerTooBigError(SummarizerError):
    """The answer passed its cap; reading stopped there."""


def _too_big(what: str, limit: int) -> AnswerTooBigError:
    return AnswerTooBigError(
        f"the endpoint's {what} passed {limit // 1024:,} KB, far more than a summary: "
        "stopped reading"
    )


def _decoder(response: Any) -> Any:
    """A zlib decoder for the body's ``Content-Encoding`` (``None``: as sent)."""
    encoding = response.headers.get("content-encoding", "").strip().lower()
    if encoding in ("", "identity"):
        return None
    if encoding in ("gzip", "x-gzip"):
        return zlib.decompressobj(16 + zlib.MAX_WBITS)
    if encoding == "deflate":
        return zlib.decompressobj()
    raise SummarizerError(
        f"the endpoint's answer is encoded as '{one_line(encoding, 20)}', which ctxtui does "
        "not decode (it asks for gzip or none)"
    )


def capped_body(response: Any, limit: int, what: str = "answer") -> Iterator[bytes]:
    """The decoded body in pieces, never more than ``limit`` bytes read or produced: decoding
    here, with ``max_length``, stops a gzip bomb at the cap."""
    decoder = _decoder(response)
    raw = produced = 0
    for chunk in response.iter_raw():
        raw += len(chunk)
        if raw > limit:
            raise _too_big(what, limit)
        if decoder is None:
            produced += len(chunk)
            if produced > limit:
                raise _too_big(what, limit)
            yield chunk
            continue
        data = chunk
        while data:
            try:
                piece = decoder.decompress(data, limit - produced + 1)
            except zlib.error as err:
                raise SummarizerError(
                    f"the endpoint's answer could not be decoded: {one_line(str(err), 60)}"
                ) from None
            produced += len(piece)
            if produced > limit:
                raise _too_big(what, limit)
            if piece:
                yield piece
            data = decoder.unconsumed_tail
            if not piece and data:  # no progress: a corrupt stream
                break


def read_capped(response: Any, limit: int, what: str) -> bytes:
    return b"".join(capped_body(response, limit, what))


def lines_of(pieces: Iterator[bytes]) -> Iterator[str]:
    """Lines of a byte stream, each at most ``MAX_LINE_BYTES``."""
    pending = b""
    for piece in pieces:
        pending += piece
        *whole, pending = pending.split(b"\n")
        for line in whole:
            yield line.rstrip(b"\r").decode("utf-8", "replace")
        if len(pending) > MAX_LINE_BYTES:
            raise SummarizerError(
                f"the endpoint sent a stream line over {MAX_LINE_BYTES // 1024:,} KB: "
                "stopped reading"
            )
    if pending:
        yield pending.rstrip(b"\r").decode("utf-8", "replace")


def error_body(response: Any) -> bytes:
    """At most ``MAX_ERROR_BYTES`` of an error body; the rest is left unread."""
    parts: list[bytes] = []
    size = 0
    with contextlib.suppress(AnswerTooBigError):
        for piece in capped_body(response, MAX_ERROR_BYTES * 64, "error body"):
            parts.append(piece)
            size += len(piece)
            if size >= MAX_ERROR_BYTES:
                break
    return b"".join(parts)[:MAX_ERROR_BYTES]


class Watchdog:
    """Ends one attempt at its deadline, or when the user stops it, by shutting its socket
    (learnt from httpcore's ``trace`` extension), so a blocked read returns at once."""

    def __init__(self, seconds: float, stop: Callable[[], bool]) -> None:
        self.reason: str | None = None
        self.fired = threading.Event()
        self._lock = threading.Lock()
        self._sockets: list[socket.socket] = []
        self._timer = threading.Timer(seconds, self.fire, ("timeout",))
        self._timer.daemon = True
        self._unhook = (
            stop.on_press(lambda: self.fire("stopped")) if isinstance(stop, Stop) else None
        )

    def __enter__(self) -> Watchdog:
        self._timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._timer.cancel()
        if self._unhook is not None:
            self._unhook()

    def trace(self, name: str, info: Mapping[str, Any]) -> None:
        if not name.endswith((".connect_tcp.complete", ".start_tls.complete")):
            return
        stream = info.get("return_value")
        sock = stream.get_extra_info("socket") if stream is not None else None
        if not isinstance(sock, socket.socket):
            return
        with self._lock:
            self._sockets.append(sock)
            fired = self.reason is not None
        if fired:
            _shut(sock)

    def fire(self, reason: str) -> None:
        with self._lock:
            if self.reason is not None:
                return
            self.reason = reason
            sockets = list(self._sockets)
        self.fired.set()
        for sock in sockets:
            _shut(sock)


def _shut(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)
