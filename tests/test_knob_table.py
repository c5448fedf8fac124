"""``ctxtui/cli_knob_table.py`` is the ``Policy`` model written out for the command line: it
must say what the model says, and it is why ``--help`` never imports pydantic."""

from __future__ import annotations

import subprocess
import sys

from tests.tools_loader import load_tool


def test_the_table_says_what_the_model_says() -> None:
    """A knob, range, description or preset default changed in the model without
    ``tools/knob_table.py --write`` would show stale help: this fails first."""
    tool = load_tool("knob_table")
    assert tool.TABLE.read_text(encoding="utf-8") == tool.render(), (
        "ctxtui/cli_knob_table.py is stale: run .venv/bin/python tools/knob_table.py --write"
    )


def test_the_table_matches_the_options_knob_for_knob() -> None:
    from ctxtui.cli_knob_table import CLI_KNOBS, PRESET_NAMES
    from ctxtui.core.policies.policy import PRESETS
    from ctxtui.options import cli_knobs, knob_help

    assert [knob for knob, _help in CLI_KNOBS] == list(cli_knobs())
    assert [text for _knob, text in CLI_KNOBS] == [knob_help(k) for k in cli_knobs()]
    assert tuple(PRESETS) == PRESET_NAMES


def test_help_and_the_command_parsers_never_import_the_model() -> None:
    child = (
        "import sys\n"
        "from ctxtui.cli import build_app_parser, build_command_parsers\n"
        "build_app_parser().format_help()\n"
        "build_command_parsers()\n"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in ('pydantic', 'textual')"
        " or m in ('ctxtui.core.policies.policy', 'ctxtui.core.session.models',"
        " 'ctxtui.importers'))\n"
        "print(heavy)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", child], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout.strip() == "[]"
