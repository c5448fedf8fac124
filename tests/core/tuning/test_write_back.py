"""A recommended point written as the agent's own settings reads back as the same point."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from ctxtui.agent_config import read_agent_config
from ctxtui.core.tuning.space import SPACES, configured_point, grid
from ctxtui.core.tuning.write_back import TARGETS, MergeError, words, write_back


@pytest.mark.parametrize("agent", list(TARGETS))
def test_every_candidate_round_trips_through_the_agents_reader(agent: str, tmp_path: Path) -> None:
    home = tmp_path / "home"
    path = home / TARGETS[agent].removeprefix("~/")
    path.parent.mkdir(parents=True)
    for candidate in grid(SPACES[agent]):
        existing = path.read_text() if path.exists() else None
        path.write_text(write_back(agent, candidate, None, existing).text)
        config = read_agent_config(agent, home=home, env={}, project=tmp_path / "project")
        assert configured_point(agent, config) == candidate


def test_an_existing_file_keeps_its_other_keys(tmp_path: Path) -> None:
    settings = {"model": "opus", "env": {"FOO": "1", "CLAUDE_AUTOCOMPACT_PCT_OVERRIDE": "80"}}
    text = write_back(
        "claude-code", (("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE", 60),), None, json.dumps(settings)
    ).text
    assert json.loads(text) == {
        "model": "opus", "env": {"FOO": "1", "CLAUDE_AUTOCOMPACT_PCT_OVERRIDE": "60"}
    }  # fmt: skip
    toml = 'model = "gpt-5"\nmodel_auto_compact_token_limit = 1\n\n[profiles.x]\nmodel = "o3"\n'
    merged = write_back("codex", (("model_auto_compact_token_limit", 200_000),), None, toml).text
    assert tomllib.loads(merged) == {
        "model": "gpt-5",
        "model_auto_compact_token_limit": 200_000,
        "profiles": {"x": {"model": "o3"}},
    }
    with pytest.raises(MergeError):
        write_back("opencode", (("prune", True),), None, '{"compaction": 3}')


def test_current_values_beside_and_ctxtuis_own_knobs_never_written(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".codex").mkdir(parents=True)
    (home / ".codex/config.toml").write_text("model_auto_compact_token_limit = 100000\n")
    config = read_agent_config("codex", home=home, env={}, project=tmp_path)
    result = write_back("codex", (("model_auto_compact_token_limit", 190_400),), config)
    assert result.beside == (
        "model_auto_compact_token_limit: 190400 (now 100000 from "
        "~/.codex/config.toml model_auto_compact_token_limit)",
    )
    assert words(result)[0] == "# ~/.codex/config.toml, merged:"
    plan = write_back("plan", (("compact_trigger_ratio", 0.8),), None)
    assert plan.text == "" and plan.target is None
    assert words(plan) == [
        "not written: compact_trigger_ratio = 0.8: no agent reads it (ctxtui's own knob)"
    ]


@pytest.mark.parametrize(
    "toml",
    [
        '"model_auto_compact_token_limit" = 5000\n',  # a quoted key: a line edit adds a second
        'notes = """\nmodel_auto_compact_token_limit = 1\n"""\n',  # inside a string: not the key
        "model_auto_compact_token_limit = \n",  # not TOML at all
    ],
    ids=["quoted-key", "multi-line-string", "invalid"],
)
def test_a_toml_a_line_edit_would_break_is_refused_not_written(toml: str) -> None:
    """Codex's config is merged line by line; where that cannot give the old document with
    the key set (a duplicate key, a string's text changed), nothing is written."""
    with pytest.raises(MergeError):
        write_back("codex", (("model_auto_compact_token_limit", 9000),), None, toml)


def test_a_merged_json_file_escapes_what_a_terminal_acts_on() -> None:
    raw = "status\u202e \u2028 \x7f \u2066"
    settings = {"statusLine": raw, "env": {}}
    text = write_back(
        "claude-code",
        (("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE", 60),),
        None,
        json.dumps(settings, ensure_ascii=False),
    ).text
    assert "\\u202e \\u2028 \\u007f \\u2066" in text and "\u202e" not in text
    assert json.loads(text)["statusLine"] == raw
