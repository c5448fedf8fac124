"""``ctxtui serve`` behind its door: a real server process, real HTTP and WebSocket clients.

Each test starts ``ctxtui serve --port 0`` and reads the URL it prints (with the launch's token);
the app processes it starts are counted in ``/proc`` (children of the server's pid). The one
that needs a request handler to fail runs the same server in the test's own event loop.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import aiohttp
import pytest

from ctxtui.system.output import write_root_refusal
from ctxtui.web.server import Bind, GuardedServer

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")

MARKED = ["sh", "-c", 'CTXTUI_TEST_SERVER=$$ exec "$@"', "sh"]
"""Runs a command with its own pid in the environment, which every app it starts inherits."""
URL = re.compile(r"serving on (http://\S+)")


@dataclass
class Served:
    proc: subprocess.Popen[bytes]
    url: str  # the printed URL, token included

    @property
    def base(self) -> str:
        parts = urlsplit(self.url)
        return f"{parts.scheme}://{parts.netloc}"

    @property
    def token(self) -> str:
        return self.url.rsplit("token=", 1)[1]

    def ws(self, token: str | None = None) -> str:
        return "ws" + self.base[4:] + f"/ws/{self.token if token is None else token}"


def children(pid: int) -> list[int]:
    """The live processes started under server ``pid``: its children, and any process that
    inherited its marker variable (an app orphaned by a killed shell still counts)."""
    marker = f"CTXTUI_TEST_SERVER={pid}".encode()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == pid:
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
            environ = Path(f"/proc/{entry}/environ").read_bytes().split(b"\0")
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if fields[0] != "Z" and (int(fields[1]) == pid or marker in environ):
            found.append(int(entry))
    return found


def wait_until(check: object, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():  # type: ignore[operator]
            return True
        time.sleep(0.1)
    return bool(check())  # type: ignore[operator]


def start_serve(*extra: str, cwd: Path) -> Served:
    env = {**os.environ, "HOME": str(cwd), "TEXTUAL_ANIMATIONS": "none"}
    proc = subprocess.Popen(
        [*MARKED, sys.executable, "-m", "ctxtui", "serve", "--port", "0", *extra],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env,
        cwd=cwd,
    )
    assert proc.stderr is not None
    line = proc.stderr.readline().decode()
    match = URL.search(line)
    if match is None:
        proc.kill()
        pytest.fail(f"serve printed no URL: {line!r}")
    return Served(proc, match[1])


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    s = start_serve("--max-apps", "2", cwd=tmp_path)
    try:
        yield s
    finally:
        s.proc.terminate()
        s.proc.wait(timeout=15)


async def _status(url: str, **headers: str) -> int:
    async with aiohttp.ClientSession() as http, http.get(url, headers=headers) as response:
        return response.status


async def _ws_status(url: str, origin: str | None, **query: str) -> int:
    """The status of a WebSocket handshake (101 when accepted, then closed at once)."""
    headers = {"Origin": origin} if origin else {}
    async with aiohttp.ClientSession() as http:
        try:
            ws = await http.ws_connect(url, headers=headers, params=query)
        except aiohttp.WSServerHandshakeError as err:
            return err.status
        await ws.close()
        return 101


def test_the_page_needs_the_printed_token(served: Served) -> None:
    assert asyncio.run(_status(served.url)) == 200
    assert asyncio.run(_status(served.base + "/")) == 403
    assert asyncio.run(_status(served.base + "/?token=wrong")) == 403


def test_a_cross_origin_or_tokenless_socket_is_refused_before_any_app(served: Served) -> None:
    assert asyncio.run(_ws_status(served.ws(), "http://evil.example")) == 403
    assert asyncio.run(_ws_status(served.ws(), None)) == 403
    assert asyncio.run(_ws_status(served.ws("wrong"), served.base)) == 403
    assert asyncio.run(_ws_status(served.base.replace("http", "ws") + "/ws", served.base)) in (
        403,
        404,
    )
    assert children(served.proc.pid) == []  # no app was started for any of them
    assert asyncio.run(_ws_status(served.ws(), served.base)) == 101


async def _hold(served: Served, count: int, width: int = 80, height: int = 24) -> list[object]:
    """Open ``count`` app sockets, wait for each app's first screen, keep them open."""
    http = aiohttp.ClientSession()
    sockets = []
    for _ in range(count):
        ws = await http.ws_connect(
            served.ws(),
            headers={"Origin": served.base},
            params={"width": str(width), "height": str(height)},
            max_msg_size=0,
        )
        sockets.append(ws)
    for ws in sockets:
        got = 0
        while got < 2000:
            msg = await asyncio.wait_for(ws.receive(), 30)
            assert msg.type == aiohttp.WSMsgType.BINARY, msg
            got += len(msg.data)
    return [http, *sockets]


def test_apps_are_capped_and_one_more_gets_a_page(served: Served) -> None:
    async def scenario() -> tuple[int, int, str, int]:
        http, *sockets = await _hold(served, 2)
        apps = children(served.proc.pid)
        running = len(apps)
        for pid in apps:  # each app is told it may write nowhere (no --export-dir given)
            environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
            assert b"CTXTUI_WRITE_ROOT=" in environ and b"CTXTUI_NO_CACHE=1" in environ
        refused = await _ws_status(served.ws(), served.base)
        async with aiohttp.ClientSession() as other, other.get(served.url) as page:
            text = await page.text()
            status = page.status
        for ws in sockets:
            await ws.close()  # type: ignore[attr-defined]
        await http.close()  # type: ignore[attr-defined]
        return running, refused, text, status

    running, refused, text, status = asyncio.run(scenario())
    assert running == 2
    assert refused == 503
    assert status == 503 and "--max-apps 2" in text


def test_every_app_ends_within_seconds_of_its_socket_closing(served: Served) -> None:
    """A huge announced terminal, a client that reads nothing for seconds, then vanishes
    without a close frame (the app, blocked writing its screen, used to live forever)."""

    async def scenario() -> int:
        http = aiohttp.ClientSession()
        sockets = [
            await http.ws_connect(
                served.ws(),
                headers={"Origin": served.base},
                params={"width": "4000", "height": "2000"},
            )
            for _ in range(2)
        ]
        for _ in range(600):  # the apps start (slowly on a loaded machine) and write
            if len(children(served.proc.pid)) == 2:
                break
            await asyncio.sleep(0.1)
        await asyncio.sleep(2)  # nobody reads: each app blocks writing its screen
        alive = len(children(served.proc.pid))
        for ws in sockets:
            transport = ws._response.connection.transport  # type: ignore[union-attr]
            assert transport is not None
            transport.abort()  # the TCP connection drops, as when a laptop lid closes
        await http.close()
        return alive

    assert asyncio.run(scenario()) == 2
    # "Within seconds", not for ever: the bound leaves room for a loaded machine.
    assert wait_until(lambda: children(served.proc.pid) == [], 30), children(served.proc.pid)


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_a_stop_signal_exits_128_plus_it_and_closes_the_socket(
    signum: signal.Signals, tmp_path: Path
) -> None:
    """Ctrl+C, SIGTERM and SIGHUP stop the server as they stop ``fleet`` and ``tune``: exit
    130, 143, 129 (a supervisor told a stopped server from one that finished), nothing more
    on stderr, and the port free again."""
    served = start_serve(cwd=tmp_path)
    port = urlsplit(served.url).port
    assert port is not None and asyncio.run(_status(served.url)) == 200
    served.proc.send_signal(signum)
    _, rest = served.proc.communicate(timeout=30)
    assert served.proc.returncode == 128 + signum, rest
    assert rest == b""  # no traceback, no warning: the URL line was all it said
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", port), timeout=5).close()


MALFORMED = [
    b"GET / HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n",
    b"GET / HTTP/1.1\r\nHost: x\r\nX: " + b"a" * 20_000 + b"\r\n\r\n",
    b"GET / HTTP/1.1\r\nHost: x\r\nX: \x1b[31m\x00\r\n\r\n",
    b"GET / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
]
"""Requests aiohttp's parser refuses with 400: a bad length, a header past its limit, control
characters in a header, a bad chunk size."""


def _raw_status(port: int, request: bytes) -> bytes:
    """The status line the server answers ``request`` (sent as raw bytes) with."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as raw:
        raw.sendall(request)
        return raw.makefile("rb").readline().strip()


def test_a_malformed_request_gets_400_and_at_most_one_line_on_stderr(tmp_path: Path) -> None:
    """Anyone who reaches the port can send these: each is answered 400, the server goes on
    serving, and stderr gets a short line per request, never aiohttp's traceback."""
    served = start_serve(cwd=tmp_path)
    port = urlsplit(served.url).port
    assert port is not None
    try:
        for request in MALFORMED:
            assert _raw_status(port, request).startswith(b"HTTP/1.0 400"), request[:60]
        assert asyncio.run(_status(served.url)) == 200
    finally:
        served.proc.terminate()
        _, rest = served.proc.communicate(timeout=30)
    lines = rest.decode().splitlines()
    assert b"Traceback" not in rest, rest.decode()
    assert len(lines) <= len(MALFORMED), rest.decode()
    for line in lines:
        assert line.startswith("ctxtui serve: ") and "400" in line and len(line) <= 240, line
        assert "\x1b" not in line and "aaaaaaaaaa" * 10 not in line, line


class _Failing(GuardedServer):
    """A server whose page handler has a bug: the error a user must still see."""

    async def handle_index(self, request: object) -> object:
        raise RuntimeError("the page handler broke")


@pytest.mark.parametrize("debug", [False, True])
def test_a_handler_error_is_one_line_and_its_traceback_only_when_debugging(
    debug: bool, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bug in a handler is answered 500 and named in one line on stderr (what it was and how
    to see more); ``CTXTUI_DEBUG=1`` adds the traceback, as it does for the commands."""
    monkeypatch.setenv("CTXTUI_DEBUG", "1" if debug else "0")

    async def scenario() -> int:
        server = _Failing("exec true", Bind("127.0.0.1", 0), max_apps=1)
        await server.start()
        try:
            return await _status(server.url)
        finally:
            await server.stop()

    assert asyncio.run(scenario()) == 500
    err = capsys.readouterr().err
    first = err.splitlines()[0]
    assert first.startswith("ctxtui serve: Error handling request from 127.0.0.1"), err
    if debug:
        assert "Traceback" in err and 'raise RuntimeError("the page handler broke")' in err
    else:
        assert err.count("\n") == 1, err
        assert "RuntimeError: the page handler broke" in first and "CTXTUI_DEBUG=1" in first
    assert logging.getLogger("aiohttp").propagate  # stopped: the libraries' logs are theirs


def _serve_fails(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ctxtui", "serve", *args],
        capture_output=True,
        text=True,
        timeout=30,
        cwd=cwd,
    )


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--port", "70000"], "expected a port from 0 to 65535"),
        (["--host", "999.1.1.1", "--port", "0"], "999.1.1.1': cannot bind there"),
        (["--host", "no-such-host.invalid", "--port", "0"], "cannot bind there"),
        (["--max-apps", "0"], "expected a number ≥ 1"),
        (["--export-dir", "/no/such/dir", "--port", "0"], "expected a directory"),
        (["--public-url", "http://[::1:80/", "--port", "0"], "expected an http(s) URL"),
        (["--public-url", "ftp://example.org", "--port", "0"], "expected an http(s) URL"),
        (["--format", "bogus", "--port", "0"], "--format: unknown format 'bogus'"),
    ],
)
def test_bad_serve_arguments_are_one_line_and_exit_2(
    args: list[str], words: str, tmp_path: Path
) -> None:
    result = _serve_fails(*args, cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    assert words in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr


@pytest.mark.parametrize(
    ("given", "words"),
    [
        ("a-file", "--export-dir 'a-file': expected a directory, found a regular file"),
        ("a-fifo", "--export-dir 'a-fifo': expected a directory, found a FIFO (named pipe)"),
        ("dangling", "--export-dir 'dangling': expected a directory, found a broken symbolic"),
        ("a-file/sub", "--export-dir 'a-file/sub': cannot check the path (Not a directory)"),
        ("x" * 300, "cannot check the path (File name too long)"),
        ("", "--export-dir: expected a directory, found an empty string"),
    ],
    ids=["file", "fifo", "dangling-link", "under-a-file", "long-name", "empty"],
)
def test_an_export_dir_that_is_no_directory_says_what_is_there(
    given: str, words: str, tmp_path: Path
) -> None:
    """Whatever stands at the path instead of a directory is named in one line, exit 2: a
    file used to read "found none", a long name was an internal error, and an empty value
    served with the working directory as the place apps write."""
    (tmp_path / "a-file").write_text("not a directory\n")
    os.mkfifo(tmp_path / "a-fifo")
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    result = _serve_fails("--export-dir", given, "--port", "0", cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    assert words in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr


def test_a_port_in_use_is_one_line_and_exit_2(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = _serve_fails("--port", str(port), cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    assert f"cannot serve on 127.0.0.1:{port}" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr


def test_a_served_app_writes_only_inside_the_named_directory(tmp_path: Path) -> None:
    root = tmp_path / "exports"
    root.mkdir()
    outside = tmp_path / "victim.txt"
    (root / "escape").symlink_to(tmp_path)
    env = {"CTXTUI_WRITE_ROOT": str(root)}
    assert write_root_refusal(root / "ok.json", env) is None
    assert write_root_refusal(outside, env) is not None
    assert write_root_refusal(root / ".." / "victim.txt", env) is not None
    assert write_root_refusal(root / "escape" / "victim.txt", env) is not None
    nowhere = write_root_refusal(root / "ok.json", {"CTXTUI_WRITE_ROOT": ""})
    assert nowhere is not None and "writes no file" in nowhere
    assert write_root_refusal(outside, {}) is None  # not served: the usual rules only


async def _deliver_screenshot(served: Served) -> tuple[str, int, int, int, str]:
    """Save a screenshot through a served app's palette, then ask for it as a browser would:
    the key it was sent, the statuses of the bare key and of a wrong token, and the file."""
    http, ws = (await _hold(served, 1))[:2]
    try:
        for text in ("\x10", "screenshot", "\r"):  # ctrl+p, the command's name, Enter
            await ws.send_str(json.dumps(["stdin", text]))  # type: ignore[attr-defined]
            await asyncio.sleep(1.0)
        while True:
            msg = await asyncio.wait_for(ws.receive(), 30)  # type: ignore[attr-defined]
            if msg.type == aiohttp.WSMsgType.TEXT and "deliver_file_start" in msg.data:
                sent = str(json.loads(msg.data)[1])
                break
        key = sent.rpartition("/")[2]
        bare = await _status(f"{served.base}/download/{key}")
        wrong = await _status(f"{served.base}/download/wrong/{key}")
        async with http.get(f"{served.base}/download/{sent}") as response:  # type: ignore[attr-defined]
            return sent, bare, wrong, response.status, await response.text()
    finally:
        await ws.close()  # type: ignore[attr-defined]
        await http.close()  # type: ignore[attr-defined]


def test_a_delivered_file_is_served_only_under_the_token(served: Served) -> None:
    """The browser opens ``/download/<what it was sent>``: the token is part of it, and the
    bare key (or a wrong token) is refused with 403 before anything is sent."""
    sent, bare, wrong, status, body = asyncio.run(_deliver_screenshot(served))
    assert sent.startswith(served.token + "/")
    assert (bare, wrong) == (403, 403)
    assert status == 200 and "<svg" in body


def test_a_policy_flag_of_zero_reaches_every_app() -> None:
    """``--max-tokens 0`` and the other zeros were dropped on the way to the app processes
    (``0 == False``): each app opened under the preset's own values, silently."""
    from ctxtui.cli.main import build_command_parsers
    from ctxtui.commands.serve import _app_flags

    _, parsers = build_command_parsers()
    args = parsers["serve"].parse_args(
        ["--tail-turns", "0", "--prune-keep", "0", "--tail-ratio", "0", "demo.json"]
    )
    flags = _app_flags(args)
    for flag in ("--tail-turns", "--prune-keep", "--tail-ratio"):
        assert flag in flags and flags[flags.index(flag) + 1] in ("0", "0.0"), flags


@pytest.mark.parametrize("stderr", ["full", "closed"])
def test_a_server_whose_url_reaches_no_one_stops_with_exit_2(stderr: str, tmp_path: Path) -> None:
    """The URL and its token are printed on stderr only: with stderr full or closed the
    server ran on, silent, and no one could open it."""
    env = {**os.environ, "HOME": str(tmp_path)}
    argv = [sys.executable, "-m", "ctxtui", "serve", "--port", "0"]
    if stderr == "full":
        with open("/dev/full", "wb") as full:
            done = subprocess.run(argv, stderr=full, env=env, timeout=60)
    else:
        done = subprocess.run(argv, env=env, timeout=60, preexec_fn=lambda: os.close(2))
    assert done.returncode == 2
