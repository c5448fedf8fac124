"""Each agent's settings read from a fake home, with where each value came from."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from ctxtui.agent_config import read_agent_config
from ctxtui.core.policies.policy import preset
from ctxtui.core.tuning.configured import configured_values, overlay


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def _values(agent: str, tmp_path: Path, env: dict[str, str] | None = None, **changes: object):
    config = read_agent_config(agent, home=tmp_path / "home", env=env or {}, project=tmp_path / "p")
    base = preset(agent, **changes)
    values = configured_values(config, base)
    return config, {v.knob: v for v in values}, overlay(base, values)


def test_claude_code_override_below_the_default_lowers_the_trigger(tmp_path: Path) -> None:
    settings = {"env": {"CLAUDE_AUTOCOMPACT_PCT_OVERRIDE": "60"}}
    _write(tmp_path / "home/.claude/settings.json", json.dumps(settings))
    _, values, policy = _values("claude-code", tmp_path)
    # effective = 200,000 − min(32,000, 20,000) = 180,000; 60 % of it = 108,000
    assert policy.trigger == 108_000
    assert values["trigger_buffer"].origin == (
        "~/.claude/settings.json env.CLAUDE_AUTOCOMPACT_PCT_OVERRIDE"
    )
    assert "capped" not in values["trigger_buffer"].note


def test_claude_code_override_above_the_default_is_capped(tmp_path: Path) -> None:
    _write(
        tmp_path / "home/.claude/settings.json",
        json.dumps({"env": {"CLAUDE_AUTOCOMPACT_PCT_OVERRIDE": "95"}}),
    )
    _, values, policy = _values("claude-code", tmp_path)
    assert policy.trigger == preset("claude-code").trigger == 167_000
    assert "capped at the default threshold 167,000" in values["trigger_buffer"].note


def test_claude_code_project_settings_win_over_the_user_and_the_environment(
    tmp_path: Path,
) -> None:
    _write(
        tmp_path / "home/.claude/settings.json", json.dumps({"env": {"DISABLE_AUTO_COMPACT": "0"}})
    )
    _write(
        tmp_path / "p/.claude/settings.local.json",
        json.dumps(
            {"env": {"CLAUDE_AUTOCOMPACT_PCT_OVERRIDE": "50"}, "autoCompactWindow": 150_000}
        ),
    )
    env = {"CLAUDE_AUTOCOMPACT_PCT_OVERRIDE": "70", "CLAUDE_CODE_AUTO_COMPACT_WINDOW": "50000"}
    _, values, policy = _values("claude-code", tmp_path, env)
    # the smaller of the two windows, clamped up to 100,000
    assert values["context_window"].value == 100_000
    assert values["context_window"].origin == "environment CLAUDE_CODE_AUTO_COMPACT_WINDOW"
    assert "clamped" in values["context_window"].note
    assert values["trigger_buffer"].origin.endswith(
        "p/.claude/settings.local.json env.CLAUDE_AUTOCOMPACT_PCT_OVERRIDE"
    )
    assert policy.trigger == (100_000 - 20_000) // 2
    assert "auto_compact" not in values


def test_claude_code_disabled_by_the_environment_or_the_global_config(tmp_path: Path) -> None:
    _, values, policy = _values("claude-code", tmp_path, {"DISABLE_AUTO_COMPACT": "true"})
    assert policy.trigger is None
    assert values["auto_compact"].origin == "environment DISABLE_AUTO_COMPACT"
    _write(tmp_path / "home/.claude.json", json.dumps({"autoCompactEnabled": False}))
    _, values, policy = _values("claude-code", tmp_path)
    assert policy.auto_compact is False
    assert values["auto_compact"].origin == "~/.claude.json autoCompactEnabled"


def test_claude_code_ignores_a_percentage_it_refuses(tmp_path: Path) -> None:
    _, values, _ = _values("claude-code", tmp_path, {"CLAUDE_AUTOCOMPACT_PCT_OVERRIDE": "150"})
    assert values == {}


def test_codex_limit_is_capped_at_ninety_percent_of_the_configured_window(tmp_path: Path) -> None:
    _write(
        tmp_path / "home/.codex/config.toml",
        "model_context_window = 200000\nmodel_auto_compact_token_limit = 190000\n",
    )
    _, values, policy = _values("codex", tmp_path)
    assert values["context_window"].origin == "~/.codex/config.toml model_context_window"
    assert policy.trigger == 180_000
    assert "capped at 90 %" in values["trigger_buffer"].note


def test_codex_limit_below_the_ceiling_and_a_profile(tmp_path: Path) -> None:
    _write(
        tmp_path / "codexhome/config.toml",
        'profile = "tight"\nmodel_auto_compact_token_limit = 200000\n'
        "[profiles.tight]\nmodel_auto_compact_token_limit = 150000\n",
    )
    env = {"CODEX_HOME": str(tmp_path / "codexhome")}
    _, values, policy = _values("codex", tmp_path, env)
    assert policy.trigger == 150_000
    assert values["trigger_buffer"].origin.endswith(
        "config.toml profiles.tight.model_auto_compact_token_limit"
    )


def test_opencode_compaction_block_in_both_schema_versions(tmp_path: Path) -> None:
    _write(
        tmp_path / "home/.config/opencode/opencode.json",
        json.dumps(
            {"compaction": {"auto": True, "prune": True, "tail_turns": 3, "reserved": 10_000}}
        ),
    )
    _write(
        tmp_path / "p/opencode.jsonc",
        '{\n // newer names\n "compaction": {"buffer": 30000, "keep": {"tokens": 9000},},\n}\n',
    )
    _, values, policy = _values("opencode", tmp_path)
    assert policy.prune_mode == "tokens"
    assert policy.tail_max_turns == 3
    assert policy.tail_min_tokens == policy.tail_max_tokens == 9_000
    assert values["tail_max_tokens"].origin.endswith("p/opencode.jsonc compaction.keep.tokens")
    # usable = window − out − reserved: 200,000 − 32,000 − 30,000
    assert policy.trigger == 138_000
    assert values["trigger_buffer"].origin.endswith("compaction.buffer")


def test_opencode_environment_opt_outs(tmp_path: Path) -> None:
    env = {"OPENCODE_DISABLE_AUTOCOMPACT": "1", "OPENCODE_DISABLE_PRUNE": "true"}
    _write(
        tmp_path / "home/.config/opencode/opencode.json",
        json.dumps({"compaction": {"prune": True}}),
    )
    _, values, policy = _values("opencode", tmp_path, env)
    assert policy.auto_compact is False and policy.prune_mode == "off"
    assert values["prune_mode"].origin == "environment OPENCODE_DISABLE_PRUNE"


def test_picoclaw_file_and_environment(tmp_path: Path) -> None:
    _write(
        tmp_path / "home/.picoclaw/config.json",
        json.dumps(
            {"agents": {"defaults": {"max_tokens": 16384, "summarize_message_threshold": 30}}}
        ),
    )
    env = {"PICOCLAW_AGENTS_DEFAULTS_SUMMARIZE_TOKEN_PERCENT": "60"}
    _, values, policy = _values("picoclaw", tmp_path, env)
    assert policy.max_tokens == 16_384
    assert policy.context_window == 65_536  # no window: max_tokens × 4
    assert "max_tokens × 4" in values["context_window"].note
    assert policy.summarize_message_threshold == 30
    assert values["summarize_token_percent"].origin == (
        "environment PICOCLAW_AGENTS_DEFAULTS_SUMMARIZE_TOKEN_PERCENT"
    )
    assert policy.summarize_token_percent == 60


def test_a_bad_file_is_a_problem_line_and_a_fifo_is_never_waited_on(tmp_path: Path) -> None:
    _write(tmp_path / "home/.codex/config.toml", "model_context_window = [")
    config = read_agent_config("codex", home=tmp_path / "home", env={}, project=tmp_path)
    assert config.settings == () and "config.toml" in config.problems[0]
    fifo = tmp_path / "home/.picoclaw/config.json"
    fifo.parent.mkdir(parents=True)
    os.mkfifo(fifo)
    config = read_agent_config("picoclaw", home=tmp_path / "home", env={}, project=tmp_path)
    assert config.problems == ("~/.picoclaw/config.json: not a regular file",)


@pytest.mark.parametrize("agent", ["claude-code", "codex", "opencode", "picoclaw"])
def test_nothing_configured_changes_nothing(agent: str, tmp_path: Path) -> None:
    _, values, policy = _values(agent, tmp_path)
    assert values == {} and policy == preset(agent)


@pytest.mark.parametrize(
    ("agent", "relative", "text"),
    [
        ("claude-code", ".claude/settings.json", '{"a":' + "[" * 200_000 + "]" * 200_000 + "}"),
        ("codex", ".codex/config.toml", "a = " + "[" * 200_000 + "]" * 200_000),
    ],
)
def test_a_settings_file_nested_too_deep_is_a_problem_line(
    tmp_path: Path, agent: str, relative: str, text: str
) -> None:
    """Both parsers recurse per level: the file is said to be unreadable, never a crash."""
    _write(tmp_path / "home" / relative, text)
    config = read_agent_config(agent, home=tmp_path / "home", env={}, project=tmp_path / "p")
    assert any("nested too deep to read" in p for p in config.problems)
