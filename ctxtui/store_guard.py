"""Never write into an agent's own session store: the agent reads every file there as its own.

``compact -o ~/.claude/projects/x/other.jsonl --force`` would replace another session of the
agent's with ctxtui's JSON; an export there would show up in the agent's history. The stores
are the ones ``ctxtui sessions`` lists (``ctxtui.stores``, with each agent's variable).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from ctxtui.stores import claude_roots, codex_root, opencode_root, picoclaw_sessions_dir
from ctxtui.system.output import protected_clash


def agent_stores(env: Mapping[str, str]) -> list[tuple[str, Path]]:
    """Each agent's store directory, by agent name."""
    return [
        *(("Claude Code", root) for root in claude_roots(env)),
        ("Codex", codex_root(env)),
        ("OpenCode", opencode_root(env)),
        ("PicoClaw", picoclaw_sessions_dir(env)),
    ]


def store_refusal(
    target: str | os.PathLike[str], env: Mapping[str, str] = os.environ
) -> str | None:
    """Why ``target`` may not be written (it lies in an agent's store), or ``None``.

    Compared as ``ctxtui.system.output`` compares protected paths: resolved, and by identity, so a
    symlink or ``..`` does not lead in by another name. ``--force`` does not lift it.
    """
    path = Path(target)
    for agent, root in agent_stores(env):
        if protected_clash(path, [root]) is not None:
            return (
                f"{path}: refusing to write inside {agent}'s session store {root}, which the "
                "agent reads as its own (write elsewhere)"
            )
    return None
