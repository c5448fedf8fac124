"""The app tests' surroundings: an empty home and no agent settings in the environment.

The app lays the compaction settings of the agent that wrote a session over its preset
(``jobs.read_configured`` reads them from the home directory and the environment), so a
snapshot must not depend on what the machine running the tests has configured.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

AGENT_VARIABLES = (
    "CLAUDE_CONFIG_DIR",
    "CLAUDE_AUTOCOMPACT_PCT_OVERRIDE",
    "CLAUDE_CODE_AUTO_COMPACT_WINDOW",
    "DISABLE_AUTO_COMPACT",
    "CODEX_HOME",
    "XDG_CONFIG_HOME",
    "OPENCODE_CONFIG",
    "OPENCODE_DISABLE_AUTOCOMPACT",
    "OPENCODE_DISABLE_PRUNE",
    "PICOCLAW_CONFIG",
    "PICOCLAW_HOME",
)


@pytest.fixture(autouse=True)
def empty_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``HOME`` an empty directory, and no agent's settings variable set."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    for name in AGENT_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    for name in [n for n in os.environ if n.startswith("PICOCLAW_AGENTS_DEFAULTS_")]:
        monkeypatch.delenv(name, raising=False)
    return home
