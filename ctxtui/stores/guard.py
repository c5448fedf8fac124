"""Never write into an agent's own session store: the agent reads every file there as its own.

An export there would replace or join the agent's own sessions. The stores are those
``ctxtui sessions`` lists (``ctxtui.stores.listing``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from ctxtui.stores.listing import store_roots
from ctxtui.system.output import protected_clash


def agent_stores(env: Mapping[str, str]) -> list[tuple[str, Path]]:
    """Each agent's store directory, by agent name (the formats' rows)."""
    return [(info.agent, root) for info, root in store_roots(env)]


def store_refusal(
    target: str | os.PathLike[str], env: Mapping[str, str] = os.environ
) -> str | None:
    """Why ``target`` may not be written (it lies in an agent's store), or ``None``; compared
    resolved and by identity, as protected paths are, and ``--force`` does not lift it."""
    path = Path(target)
    for agent, root in agent_stores(env):
        if protected_clash(path, [root]) is not None:
            return (
                f"{path}: refusing to write inside {agent}'s session store {root}, which the "
                "agent reads as its own (write elsewhere)"
            )
    return None
