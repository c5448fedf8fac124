"""The effective policy's layers: preset, the agent's settings, ctxtui's config, the flags."""

from __future__ import annotations

from ctxtui.agent_config.effective import Given, agent_of, effective_policy
from ctxtui.core.tuning.configured import AgentConfig, Setting


def _read(agent: str) -> AgentConfig:
    settings = (
        Setting("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE", "50", "~/.claude/settings.json env.X"),
        Setting("DISABLE_AUTO_COMPACT", "1", "environment DISABLE_AUTO_COMPACT"),
    )
    return AgentConfig(agent, settings if agent == "claude-code" else ())


def test_each_knob_says_which_layer_gave_it() -> None:
    chosen = effective_policy(
        "claude-code",
        given=Given(
            flags={"tail_min_turns": 3},
            flag_names={"tail_min_turns": "--tail-turns"},
            ctxtui_config={"tokenizer": "plan", "auto_compact": True},
        ),
        read=_read,
    )
    origins = chosen.origins
    assert origins["tail_min_turns"] == "--tail-turns"
    assert origins["tokenizer"] == origins["auto_compact"] == "ctxtui config"
    assert origins["trigger_buffer"] == "~/.claude/settings.json env.X"
    assert origins["trigger_output_cap"] == "preset claude-code"
    assert origins["chars_per_token"] == "default"
    # ctxtui's config wins over the agent's DISABLE_AUTO_COMPACT
    assert chosen.policy.auto_compact is True
    assert [c.knob for c in chosen.configured] == ["trigger_buffer"]
    assert chosen.policy.trigger == (200_000 - 20_000) // 2
    assert chosen.preset_policy is not None and chosen.preset_policy.trigger == 167_000
    rows = chosen.rows()
    assert rows[0] == {"knob": "tokenizer", "value": "plan", "origin": "ctxtui config"}


def test_ctxtuis_own_presets_read_no_agent() -> None:
    assert agent_of("plan") is None and agent_of("codex") == "codex"
    chosen = effective_policy("plan", read=_read)
    assert chosen.configured == () and chosen.config is None
    assert chosen.origins["tail_ratio"] == "preset plan"
