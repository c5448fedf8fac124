"""Each agent's session opens on that agent's preset, said to come from the transcript; a
preset the user named wins; a transcript of no known agent opens on ``plan``."""

from __future__ import annotations

import pytest

from ctxtui.core.policies.preset_choice import (
    DEFAULT,
    FROM_CONFIG,
    FROM_TRANSCRIPT,
    PresetChoice,
    agent_preset,
    resolve_preset,
)
from ctxtui.core.policies.presets import PRESETS
from ctxtui.core.session.formats import FORMATS
from ctxtui.core.session.models import Session, SessionMeta


def _session(format: str, path: str | None = "x.jsonl") -> Session:
    return Session(meta=SessionMeta(format=format, source_path=path))


@pytest.mark.parametrize(
    ("format", "path", "preset"),
    [
        ("claude-code", "a.jsonl", "claude-code"),
        ("codex", "rollout.jsonl", "codex"),
        ("opencode", "opencode.db", "opencode"),
        ("picoclaw", "sessions/chat.jsonl", "picoclaw"),
        ("picoclaw", "sessions/chat.json", "picoclaw"),
        ("picoclaw", "workspace/seahorse.db", "picoclaw-seahorse"),
        ("openai-chat", "chat.json", None),
        ("sharegpt", "x.json", None),
        ("native", "x.json", None),
    ],
)
def test_each_agent_names_its_own_preset(format: str, path: str, preset: str | None) -> None:
    assert agent_preset(_session(format, path)) == preset


def test_every_format_row_names_a_real_preset() -> None:
    for info in FORMATS:
        assert info.preset in PRESETS
        assert all(name in PRESETS for _, name in info.store_presets)


def test_the_user_wins_then_the_transcript_then_plan() -> None:
    codex = _session("codex")
    assert resolve_preset(codex) == PresetChoice("codex", FROM_TRANSCRIPT)
    assert resolve_preset(codex, "plan", FROM_CONFIG) == PresetChoice("plan", FROM_CONFIG)
    assert resolve_preset(_session("openai-chat")) == PresetChoice("plan", DEFAULT)
    assert resolve_preset(None) == PresetChoice("plan", DEFAULT)
    assert resolve_preset(codex).words() == "codex, from the transcript"
