"""The Makefile's Python version guard asks for what ``pyproject.toml`` requires."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_makefile_guard_matches_requires_python() -> None:
    requires = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"]
    wanted = re.fullmatch(r">=(\d+)\.(\d+)", requires)
    assert wanted is not None, requires
    major, minor = wanted.groups()
    guard = re.search(
        r"sys\.version_info >= \((\d+), (\d+)\), \"ctxtui needs Python (\d+)\.(\d+) or newer\"",
        (ROOT / "Makefile").read_text(),
    )
    assert guard is not None
    assert guard.groups() == (major, minor, major, minor)
