"""A hostile chat-completions server on 127.0.0.1, raw sockets: every bad answer in the book.

Modes: ``huge-json`` (a 256 MB JSON answer), ``gzip-bomb`` (a small gzip body that inflates to
hundreds of MB), ``endless`` (a stream that never ends), ``huge-error`` (a 256 MB error body),
``drip-body`` / ``drip-headers`` (one byte at a time, every ``drip`` seconds, forever),
``hang`` (reads the request, never answers), ``endless-empty`` (framing without text),
``escapes`` (a summary holding ESC, BEL and OSC 52,
and an error body with the same). It records when each connection opened and closed, so a
test measures how long the client kept it, not how long a process took to start.
"""

from __future__ import annotations

import contextlib
import json
import select
import socket
import socketserver
import threading
import time
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache

HOSTILE_TEXT = (
    "# Summary\n\x1b]52;c;ZXZpbA==\x07\x1b]0;pwned\x07\x1b[2J## Goal\nring \x07 the bell\n"
)


@cache
def bomb() -> bytes:
    """A gzip body of ~1 MB that inflates to 200 MB of a JSON string.

    Made a megabyte at a time: a test process holding 200 MB would lend that to the resident
    size of every child it forks, and the child's peak is what the tests measure.
    """
    packer = zlib.compressobj(1, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    parts = [packer.compress(b'{"x": "')]
    zeros = b"0" * (1 << 20)
    parts += [packer.compress(zeros) for _ in range(200)]
    parts.append(packer.compress(b'"}') + packer.flush())
    return b"".join(parts)


@dataclass
class Log:
    opened: list[float] = field(default_factory=list)
    closed: list[float] = field(default_factory=list)

    def held(self) -> float:
        """Seconds from the first connection to the last one closing (waits a moment for
        the server's threads to see the last close)."""
        deadline = time.monotonic() + 2
        while len(self.closed) < len(self.opened) and time.monotonic() < deadline:
            time.sleep(0.01)
        return max(self.closed) - min(self.opened)


class _Handler(socketserver.BaseRequestHandler):
    mode = ""
    drip = 0.3
    log: Log

    def handle(self) -> None:
        self.log.opened.append(time.monotonic())
        sock: socket.socket = self.request
        try:
            self._read_request(sock)
            self._answer(sock)
            # A client that stops reading leaves the answer half sent: wait for it to go.
            sock.settimeout(30)
            while sock.recv(65536):
                pass
        except OSError:
            pass
        finally:
            self.log.closed.append(time.monotonic())

    def _read_request(self, sock: socket.socket) -> None:
        data = b""
        while b"\r\n\r\n" not in data:
            data += sock.recv(65536)
        head, body = data.split(b"\r\n\r\n", 1)
        self.head = head
        length = 0
        for line in head.split(b"\r\n"):
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        while len(body) < length:
            body += sock.recv(65536)

    def _answer(self, sock: socket.socket) -> None:
        mode = self.mode
        mb = b"0" * (1 << 20)
        if mode == "huge-json":
            sock.sendall(_head(200, "application/json", length=256 << 20 + 8))
            sock.sendall(b'{"x": "')
            for _ in range(256):
                sock.sendall(mb)
        elif mode == "gzip-bomb":
            body = bomb()
            sock.sendall(
                _head(200, "application/json", length=len(body), extra="Content-Encoding: gzip")
            )
            sock.sendall(body)
        elif mode == "endless":
            sock.sendall(_head(200, "text/event-stream"))
            chunk = json.dumps({"choices": [{"delta": {"content": "x" * 1000}}]})
            line = f"data: {chunk}\n\n".encode() * 64
            while True:
                sock.sendall(line)
        elif mode == "endless-empty":  # no text at all, only framing: the byte cap ends it
            sock.sendall(_head(200, "text/event-stream"))
            chunk = json.dumps({"choices": [{"delta": {}}], "pad": "x" * 1000})
            line = f"data: {chunk}\n\n".encode() * 64
            while True:
                sock.sendall(line)
        elif mode == "endless-line":
            sock.sendall(_head(200, "text/event-stream"))
            while True:
                sock.sendall(mb)
        elif mode == "huge-error":
            sock.sendall(_head(500, "text/plain", length=256 << 20))
            for _ in range(256):
                sock.sendall(mb)
        elif mode == "drip-body":
            sock.sendall(_head(200, "text/event-stream"))
            while True:
                sock.sendall(b":")
                if _gone(sock, self.drip):
                    return
        elif mode == "drip-headers":
            for byte in b"HTTP/1.1 200 OK\r\n" + b"X-Slow: " + b"a" * 100_000:
                sock.sendall(bytes([byte]))
                if _gone(sock, self.drip):
                    return
        elif mode == "hang":
            pass  # the caller waits for the client to go
        elif mode == "escapes":
            delta = {"content": HOSTILE_TEXT}
            chunk = json.dumps({"model": "m\x1b[31m", "choices": [{"delta": delta}]})
            body = f"data: {chunk}\n\ndata: [DONE]\n\n".encode()
            sock.sendall(_head(200, "text/event-stream", length=len(body)) + body)
        elif mode == "echo-key":  # as servers do: "Incorrect API key provided: sk-..."
            auth = [h for h in self.head.split(b"\r\n") if h.lower().startswith(b"authorization")]
            body = b"Incorrect API key provided: " + (auth[0].split(b" ")[-1] if auth else b"")
            sock.sendall(_head(401, "text/plain", length=len(body)) + body)
        elif mode == "escapes-error":
            body = b"\x1b]52;c;ZXZpbA==\x07\x1b]0;pwned\x07 bad \x1b[31mred"
            sock.sendall(_head(400, "text/plain", length=len(body)) + body)


def _gone(sock: socket.socket, wait: float) -> bool:
    """Whether the client closed its end within ``wait`` seconds."""
    ready, _, _ = select.select([sock], [], [], wait)
    return bool(ready) and not sock.recv(65536)


def _head(status: int, kind: str, *, length: int | None = None, extra: str = "") -> bytes:
    lines = [f"HTTP/1.1 {status} X", f"Content-Type: {kind}", "Connection: close"]
    if length is not None:
        lines.append(f"Content-Length: {length}")
    if extra:
        lines.append(extra)
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


@contextlib.contextmanager
def hostile(mode: str, drip: float = 0.3) -> Iterator[tuple[str, Log]]:
    """A running server in ``mode``; yields its base URL and its connection log."""
    if mode == "gzip-bomb":
        bomb()  # made before the clock starts
    log = Log()
    handler = type("Handler", (_Handler,), {"mode": mode, "drip": drip, "log": log})
    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", log
    finally:
        server.shutdown()
        server.server_close()
