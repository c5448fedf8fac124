"""The core and the importers never import Textual: the boundary is enforced, not hoped for."""

from __future__ import annotations

import subprocess
import sys

import pytest

CORE_MODULES = [
    "ctxtui.core",
    "ctxtui.core.models",
    "ctxtui.core.policy",
    "ctxtui.core.plan",
    "ctxtui.core.tokenizers",
    "ctxtui.importers",
    "ctxtui.options",
    "ctxtui.commands",
    "ctxtui.cli",
]


@pytest.mark.parametrize("module", CORE_MODULES)
def test_core_does_not_import_textual(module: str) -> None:
    code = (
        "import importlib, pkgutil, sys\n"
        f"m = importlib.import_module({module!r})\n"
        "if hasattr(m, '__path__'):\n"
        "    for info in pkgutil.walk_packages(m.__path__, m.__name__ + '.'):\n"
        "        importlib.import_module(info.name)\n"
        "bad = sorted(n for n in sys.modules if n == 'textual' or n.startswith('textual.'))\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert out == "", f"{module} pulled in Textual: {out}"
