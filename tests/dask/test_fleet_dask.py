"""``ctxtui fleet --dask``: the same jobs on a Dask cluster give the same rows as the pool.

Run by ``make test-dask`` (a cluster takes seconds to start and mostly waits).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ctxtui.cli import main
from tests.fleet.store import make_store

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
    assert err.count("\n") == 1 and "--dask tcp://127.0.0.1:9" in err
