"""No snapshot file outlives its test.

syrupy fails a run that leaves a snapshot file unused, but only without pytest-xdist: under
xdist (``make test``) no process sees every test, so syrupy skips the check. This test does it
from the files instead: every ``__snapshots__/<module>/<name>.svg`` must belong to a test
function of ``tests/tui/<module>.py``. ``make snapshots`` (one process) still deletes them.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

HERE = Path(__file__).parent
SNAPSHOTS = HERE / "__snapshots__"


def _test_names(module: Path) -> set[str]:
    tree = ast.parse(module.read_text(encoding="utf-8"))
    return {
        node.name
        for node in tree.body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.name.startswith("test_")
    }


def orphans(snapshots: Path, tests: Path) -> list[str]:
    """Snapshot files (relative to ``snapshots``) whose test module or function is gone.

    syrupy names a test's file ``<test>.svg``, ``<test>[<param id>].svg`` when parametrised,
    and ``<test>.<n>.svg`` for its second and later snapshots.
    """
    found: list[str] = []
    for folder in sorted(p for p in snapshots.iterdir() if p.is_dir()):
        module = tests / f"{folder.name}.py"
        names = _test_names(module) if module.exists() else set()
        for svg in sorted(folder.glob("*.svg")):
            test = re.sub(r"(\[.*\])?(\.\d+)?$", "", svg.stem)
            if test not in names:
                found.append(f"{folder.name}/{svg.name}")
    return found


def test_every_snapshot_file_belongs_to_a_test() -> None:
    assert SNAPSHOTS.is_dir() and any(SNAPSHOTS.glob("*/*.svg"))
    assert orphans(SNAPSHOTS, HERE) == []


def test_an_orphan_is_found(tmp_path: Path) -> None:
    (tmp_path / "test_shots.py").write_text(
        "def test_kept(snap_compare):\n    pass\n\nasync def test_async(snap_compare):\n    pass\n"
    )
    shots = tmp_path / "__snapshots__"
    (shots / "test_shots").mkdir(parents=True)
    (shots / "test_gone_module").mkdir()
    for name in ("test_kept", "test_kept[80x24]", "test_kept.1", "test_async", "test_gone"):
        (shots / "test_shots" / f"{name}.svg").write_text("<svg/>")
    (shots / "test_gone_module" / "test_kept.svg").write_text("<svg/>")
    assert orphans(shots, tmp_path) == [
        "test_gone_module/test_kept.svg",
        "test_shots/test_gone.svg",
    ]
