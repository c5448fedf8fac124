"""``ctxtui fleet --dask``: the same jobs on a Dask cluster give the same rows as the pool.

Run by ``make test-dask`` (a cluster takes seconds to start and mostly waits).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ctxtui.cli.main import main
from tests.fleet.store import make_store

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "sample_sessions" / "claude_code_replay.jsonl"

if os.environ.get("CTXTUI_REQUIRE_DASK"):  # CI: a missing extra is a failure, not a skip
    import distributed
else:
    distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=2, processes=True, dashboard_address=None
    ) as local:
        yield local


def _rows(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    capsys.readouterr()
    assert main(["fleet", "--json", "--no-cache", "--compare", "plan,codex", *argv]) == 0
    doc: dict[str, Any] = json.loads(capsys.readouterr().out)
    return doc


def test_a_local_cluster_gives_the_rows_of_the_process_pool(
    cluster: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    for name, value in make_store(tmp_path).items():
        if value:
            monkeypatch.setenv(name, value)
        else:
            monkeypatch.delenv(name, raising=False)
    pooled = _rows(capsys, "--workers", "2")
    on_dask = _rows(capsys, "--dask", cluster.scheduler_address)
    assert len(on_dask["sessions"]) >= 5
    assert not any(row["error"] for row in on_dask["sessions"])
    assert on_dask == pooled


def test_an_unreachable_scheduler_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("ctxtui.fleet.run.DASK_CONNECT_SECONDS", 1)
    (tmp_path / "s.json").write_text('{"messages": [{"role": "user", "content": "hi"}]}')
    (tmp_path / "t.json").write_text('{"messages": [{"role": "user", "content": "yo"}]}')
    code = main(["fleet", "--no-cache", "--dask", "tcp://127.0.0.1:9", str(tmp_path)])
    assert code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--dask 'tcp://127.0.0.1:9'" in err


def _two_sessions(tmp_path: Path) -> Path:
    (tmp_path / "s.json").write_text('{"messages": [{"role": "user", "content": "hi"}]}')
    (tmp_path / "t.json").write_text('{"messages": [{"role": "user", "content": "yo"}]}')
    return tmp_path


def test_a_silent_listener_is_one_line_after_the_timeout(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A TCP listener that never says a word kept ``--dask`` waiting for ever (500 s)."""
    monkeypatch.setattr("ctxtui.fleet.run.DASK_CONNECT_SECONDS", 1)
    with socket.create_server(("127.0.0.1", 0)) as silent:
        port = silent.getsockname()[1]
        code = main(
            [
                "fleet",
                "--no-cache",
                "--dask",
                f"tcp://127.0.0.1:{port}",
                str(_two_sessions(tmp_path)),
            ]
        )
    assert code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no Dask scheduler greeted within 1 s" in err


def test_an_http_server_is_not_a_scheduler(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """An HTTP server as ``--dask``: its reply read as a frame's length asked for 3.07 EiB
    (a MemoryError). A server that greets with anything but a Dask handshake is refused."""
    monkeypatch.setattr("ctxtui.fleet.run.DASK_CONNECT_SECONDS", 1)
    with socket.create_server(("127.0.0.1", 0)) as server:
        port = server.getsockname()[1]

        def serve() -> None:
            with contextlib.suppress(OSError):
                conn, _ = server.accept()
                with conn:
                    conn.sendall(b"HTTP/1.0 400 Bad request\r\n\r\n")
                    conn.recv(1024)

        thread = threading.Thread(target=serve, daemon=True)
        thread.start()
        code = main(
            ["fleet", "--no-cache", "--dask", f"127.0.0.1:{port}", str(_two_sessions(tmp_path))]
        )
    assert code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not a Dask scheduler" in err
    with socket.create_server(("127.0.0.1", 0)) as quiet_http:  # waits for a request
        port = quiet_http.getsockname()[1]
        assert main(["fleet", "--no-cache", "--dask", f"127.0.0.1:{port}", str(tmp_path)]) == 2


def _stored(index: Path) -> int:
    if not index.exists():
        return 0
    try:
        con = sqlite3.connect(f"file:{index}?mode=ro", uri=True, timeout=1)
        try:
            return int(con.execute("SELECT count(*) FROM files").fetchone()[0])
        finally:
            con.close()
    except sqlite3.Error:
        return 0


def _fleet_on(address: str, tmp_path: Path, n: int) -> tuple[subprocess.Popen[bytes], Path]:
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    for k in range(n):
        os.link(SAMPLE, sessions / f"s{k:03d}.jsonl")
    env = {**os.environ, "PYTHONPATH": str(REPO), "CTXTUI_CACHE_DIR": str(tmp_path / "cache")}
    argv = [sys.executable, "-m", "ctxtui", "fleet", "--json", "--dask", address, str(sessions)]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    index = tmp_path / "cache" / "fleet.sqlite3"
    deadline = time.monotonic() + 120
    while _stored(index) < 2 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.2)
    return proc, index


@pytest.mark.slow
def test_a_killed_scheduler_keeps_what_finished_and_ends_with_one_line(tmp_path: Path) -> None:
    """A scheduler killed mid-run hung the fleet after 11 KB of tracebacks."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    address = f"tcp://127.0.0.1:{port}"
    cli = [sys.executable, "-c", "from distributed.cli.dask_scheduler import main; main()"]
    scheduler = subprocess.Popen(
        [*cli, "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"],
        env=env,
        stderr=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
    )
    worker_cli = [sys.executable, "-c", "from distributed.cli.dask_worker import main; main()"]
    worker = subprocess.Popen(
        [*worker_cli, address, "--nworkers", "1", "--nthreads", "1", "--no-dashboard"],
        env=env,
        stderr=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
    )
    try:
        proc, index = _fleet_on(address, tmp_path, 200)
        scheduler.kill()
        out, err = proc.communicate(timeout=60)
    finally:
        for p in (scheduler, worker):
            p.kill()
            p.wait()
    text = err.decode()
    assert proc.returncode == 1, text
    assert len(text.splitlines()) == 1 and "was lost" in text and "Traceback" not in text
    doc = json.loads(out)
    assert doc["complete"] is False and 2 <= len(doc["sessions"]) < 200
    assert not any(row["error"] for row in doc["sessions"])
    assert _stored(index) >= len(doc["sessions"])


@pytest.mark.slow
def test_ctrl_c_on_a_cluster_keeps_what_finished(cluster: Any, tmp_path: Path) -> None:
    """Ctrl+C during ``--dask`` was a ``cancel_futures`` TypeError, exit 3."""
    proc, _ = _fleet_on(cluster.scheduler_address, tmp_path, 200)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err.decode()
    assert "Traceback" not in err.decode() and "interrupted;" in err.decode()
    assert json.loads(out)["complete"] is False
