"""The core and the importers never import Textual: the boundary is enforced, not hoped for."""

from __future__ import annotations

import subprocess
import sys

import pytest

CORE_MODULES = [
    "ctxtui.core",
    "ctxtui.core.session.models",
    "ctxtui.core.policies.policy",
    "ctxtui.core.planning.plan",
    "ctxtui.core.tokens.tokenizers",
    "ctxtui.importers",
    "ctxtui.options",
    "ctxtui.commands",
    "ctxtui.cli.main",
]


def _python(code: str) -> str:
    """What ``code`` prints in a fresh interpreter (nothing imported before it)."""
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout


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
    out = _python(code).strip()
    assert out == "", f"{module} pulled in Textual: {out}"


def test_the_report_document_is_built_without_rich() -> None:
    """``core/simulation/report.py`` returns data; the table is rendered by
    ``commands/render_report.py``."""
    code = (
        "import sys\n"
        "import ctxtui.core.simulation.report, ctxtui.core.compacting.compaction\n"
        "import ctxtui.commands.report\n"
        "print(','.join(sorted(n for n in sys.modules if n.split('.')[0] == 'rich')))\n"
        "import ctxtui.commands.render_report\n"
        "print('rich' in sys.modules)\n"
    )
    out = _python(code).split("\n")
    assert out[0] == "", f"the report pulled in rich: {out[0]}"
    assert out[1] == "True"  # the check can see rich when it is there


def test_the_price_table_is_loaded_when_a_price_is_first_looked_up() -> None:
    """genai-prices takes a tenth of the app's imports: the app, the commands and the pricing
    modules load it only when a request is priced."""
    code = (
        "import sys\n"
        "import ctxtui.tui.app, ctxtui.commands.report, ctxtui.core.pricing.cost\n"
        "print('genai_prices' in sys.modules)\n"
        "from ctxtui.core.pricing.prices import table_for\n"
        "table_for('claude-sonnet-4-5', 'anthropic', None)\n"
        "print('genai_prices' in sys.modules)\n"
    )
    assert _python(code).split() == ["False", "True"]
