"""A real OpenAI-compatible chat-completions server on 127.0.0.1, for the summariser's tests.

It answers ``POST /v1/chat/completions`` with a fixed, template-shaped summary, streamed as
server-sent events (or as one JSON document when asked), and can be told to fail, stall or
send garbage, so the client is tested against real sockets rather than a mock of itself.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

SUMMARY = (
    "# Summary of Previous Conversation\n\n## Goal\nFix the failing test.\n\n"
    "## Constraints\n(none)\n\n## Progress\n- ran pytest\n\n## Key Decisions\n- use a fixture\n\n"
    "## Next Steps\n- rerun\n\n## Critical Context\ntests/test_x.py\n"
)


@dataclass
class Behaviour:
    """What the next requests get; ``script`` is consumed one mode per request, then ``mode``."""

    mode: str = "stream"  # stream | json | status | stall | badjson | stall-mid | badgzip
    status: int = 500
    text: str = SUMMARY
    stall_seconds: float = 5.0
    # A stall ends early once ``release`` is set (``serve`` sets it on the way out, so no test
    # waits for a stall nobody reads), and ``stall_over`` is set when a stall has ended.
    release: threading.Event = field(default_factory=threading.Event)
    stall_over: threading.Event = field(default_factory=threading.Event)
    script: list[str] = field(default_factory=list)
    requests: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)


class _Handler(BaseHTTPRequestHandler):
    behaviour: Behaviour

    def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
        return

    def do_POST(self) -> None:
        b = self.behaviour
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
        b.requests.append(body)
        b.headers.append(dict(self.headers))
        mode = b.script.pop(0) if b.script else b.mode
        if mode == "status":
            payload = json.dumps({"error": {"message": f"refused with {b.status}"}}).encode()
            self.send_response(b.status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)
            return
        if mode == "json":
            doc = {
                "model": "served-model",
                "choices": [{"message": {"role": "assistant", "content": b.text}}],
                "usage": {"prompt_tokens": 100, "completion_tokens": 40},
            }
            payload = json.dumps(doc).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        if mode == "badgzip":
            self.send_header("Content-Encoding", "gzip")
        self.end_headers()
        if mode == "badgzip":
            self.wfile.write(b"this is not gzip data at all\n")
            return
        if mode == "stall":
            self._stall()
            return
        if mode == "badjson":
            self.wfile.write(b"data: {not json\n\n")
            return
        pieces = [b.text[i : i + 40] for i in range(0, len(b.text), 40)]
        for n, piece in enumerate(pieces):
            chunk = {"model": "served-model", "choices": [{"delta": {"content": piece}}]}
            self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
            self.wfile.flush()
            if mode == "stall-mid" and n == 1:
                self._stall()
                return
        usage = {"prompt_tokens": 100, "completion_tokens": 40}
        self.wfile.write(f"data: {json.dumps({'choices': [], 'usage': usage})}\n\n".encode())
        self.wfile.write(b"data: [DONE]\n\n")

    def _stall(self) -> None:
        self.behaviour.release.wait(self.behaviour.stall_seconds)
        self.behaviour.stall_over.set()


@contextmanager
def serve(behaviour: Behaviour | None = None) -> Iterator[tuple[str, Behaviour]]:
    """A running server; yields its base URL (``http://127.0.0.1:PORT/v1``) and behaviour."""
    b = behaviour or Behaviour()
    handler = type("Handler", (_Handler,), {"behaviour": b})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", b
    finally:
        b.release.set()
        server.shutdown()
        server.server_close()
