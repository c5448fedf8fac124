"""The fleet index's file is read as untrusted: a FIFO, a device or another program's database
under its name costs one warning, never a hang, a huge read or the other file."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from ctxtui.fleet.index import FleetIndex, is_index

OPEN_IN_A_CHILD = (
    "import sys\n"
    "from pathlib import Path\n"
    "from ctxtui.fleet.index import FleetIndex\n"
    "warnings = []\n"
    "index = FleetIndex(Path(sys.argv[1]), warnings.append)\n"
    "print(index.usable, len(warnings))\n"
    "print(warnings[0] if warnings else '')\n"
)


@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "wal-fifo"])
def test_a_special_file_as_the_index_is_one_warning(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "fleet.sqlite3"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "dev-zero":
        path.symlink_to("/dev/zero")
    else:
        os.mkfifo(tmp_path / "fleet.sqlite3-wal")
    child = subprocess.run(
        [sys.executable, "-c", OPEN_IN_A_CHILD, str(path)],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert child.returncode == 0, child.stderr[-400:]
    usable, count = child.stdout.splitlines()[0].split()
    assert (usable, count) == ("False", "1")
    assert "not a regular file" in child.stdout
    if kind == "dev-zero":
        assert path.is_symlink()
    assert not list(tmp_path.glob("*.unusable-*"))  # nothing renamed: it was never ours


def test_an_index_is_known_by_its_application_id(tmp_path: Path) -> None:
    ours = tmp_path / "fleet.sqlite3"
    with FleetIndex(ours, lambda _w: None) as index:
        assert index.usable
    assert is_index(ours)
    other = tmp_path / "other.sqlite3"
    con = sqlite3.connect(other)
    con.execute("CREATE TABLE t (x)")
    con.close()
    assert not is_index(other)
    link = tmp_path / "link.sqlite3"
    link.symlink_to(ours)
    assert not is_index(link)  # a symlink is never deleted as ours
    assert not is_index(tmp_path / "missing.sqlite3")
