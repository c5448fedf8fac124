"""``ctxtui tune --dask``: the replays on a Dask cluster give the document of the pool."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ctxtui.cli.main import main

if os.environ.get("CTXTUI_REQUIRE_DASK"):  # CI: a missing extra is a failure, not a skip
    import distributed
else:
    distributed = pytest.importorskip("distributed")

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=2, processes=True, dashboard_address=None
    ) as local:
        yield local


def test_a_local_cluster_gives_the_document_of_the_process_pool(
    cluster: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("claude_code_replay.jsonl", "claude_code_cache_story.jsonl", "demo.json"):
        shutil.copy(REPO / "sample_sessions" / name, tmp_path / name)

    def doc(*argv: str) -> dict[str, Any]:
        capsys.readouterr()
        assert main(["tune", str(tmp_path), "--agent", "claude-code", "--json", *argv]) == 0
        out: dict[str, Any] = json.loads(capsys.readouterr().out)
        return out

    pooled = doc("--workers", "2")
    on_dask = doc("--dask", cluster.scheduler_address)
    assert len(on_dask["sessions"]) == 3 and on_dask["recommended"] is not None
    assert on_dask == pooled
