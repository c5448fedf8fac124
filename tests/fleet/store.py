"""A store of sessions of four agents under a temporary HOME, for the fleet's tests."""

from __future__ import annotations

import shutil
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SAMPLES = REPO / "sample_sessions"
EXAMPLES = Path("/work/shared/reference/examples")


def make_store(root: Path) -> dict[str, str]:
    """Claude Code, Codex, OpenCode and PicoClaw sessions; the environment that finds them."""
    home = root / "home"
    claude = home / ".claude" / "projects" / "-home-me-proj"
    claude.mkdir(parents=True)
    shutil.copy(SAMPLES / "claude_code_compacted.jsonl", claude / "a1b2-compacted.jsonl")
    shutil.copy(SAMPLES / "claude_code_replay.jsonl", claude / "c3d4-replay.jsonl")
    agents = claude / "c3d4-replay" / "subagents"
    agents.mkdir(parents=True)
    shutil.copy(SAMPLES / "claude_code_compacted.jsonl", agents / "agent-e5f6.jsonl")
    codex = home / ".codex" / "sessions" / "2026" / "11" / "02"
    codex.mkdir(parents=True)
    shutil.copy(SAMPLES / "codex_replay.jsonl", codex / "rollout-2026-11-02T10-00-00-a.jsonl")
    shutil.copy(SAMPLES / "codex_rollout.jsonl", codex / "rollout-2026-11-02T11-00-00-b.jsonl")
    opencode = home / ".local" / "share" / "opencode"
    opencode.mkdir(parents=True)
    shutil.copy(EXAMPLES / "opencode_demo.db", opencode / "opencode.db")
    pico = home / ".picoclaw" / "workspace" / "sessions"
    pico.mkdir(parents=True)
    for name in ("picoclaw_long_chat.jsonl", "picoclaw_long_chat.meta.json"):
        shutil.copy(SAMPLES / name, pico / name)
    return {
        "HOME": str(home),
        "CLAUDE_CONFIG_DIR": "",
        "CODEX_HOME": "",
        "XDG_DATA_HOME": "",
        "PICOCLAW_HOME": "",
        "CTXTUI_CACHE_DIR": str(root / "cache"),
    }
