"""The sub-agents a Claude Code session spawned, as paths ``load_session`` reads.

A sub-agent runs in its own context window and its requests are billed like its parent's, so
a session's cost with its sub-agents adds theirs: the ``subagents/agent-*.jsonl`` files beside
the transcript (``<session>/subagents/``), then the chains an older CLI wrote inline
(``PATH#ID``). Other formats keep no sub-agent files.
"""

from __future__ import annotations

from contextlib import suppress
from pathlib import Path

from ctxtui.core.errors import SessionLoadError
from ctxtui.core.session.models import Session
from ctxtui.importers._claude_sidechains import inline_chains
from ctxtui.importers._store_files import StoreWalk

SUBAGENT_FORMATS = frozenset({"claude-code"})


def subagent_paths(path: str | Path, format: str) -> list[str]:
    """Where the sub-agents of the session at ``path`` are, files first; none when unknown."""
    if format not in SUBAGENT_FORMATS or "#" in str(path):
        return []
    file = Path(path)
    if not file.is_file():
        return []
    # a sub-agent directory that cannot be read, or a FIFO in it, is passed over
    found = StoreWalk().files(file.parent / file.stem / "subagents", "agent-*.jsonl")
    out = [str(p) for p in found]
    # the parent reads fine; a sub-agent chain that cannot be found is not counted
    with suppress(OSError, ValueError):
        out.extend(f"{file}#{chain_id}" for chain_id in inline_chains(file))
    return out


def read_subagents(path: str | Path, format: str) -> tuple[list[tuple[str, Session]], list[str]]:
    """The sub-agents of the session at ``path`` (where each is, and it read whole), and a
    line for each one that could not be read (it is left out of the totals)."""
    from ctxtui.importers import load_session

    sessions: list[tuple[str, Session]] = []
    problems: list[str] = []
    for sub_path in subagent_paths(path, format):
        try:
            read = load_session(sub_path, format="claude-code", full_history=True)
            sessions.append((sub_path, read))
        except SessionLoadError as err:
            problems.append(f"sub-agent not counted: {err}")
    return sessions, problems
