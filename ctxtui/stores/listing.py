"""The agents' session stores: where Claude Code, Codex, OpenCode and PicoClaw keep sessions.

``list_sessions()`` lists what is there, newest first, without parsing any transcript: each
entry is built from the file system and a bounded head of the file (the first records name the
working directory, the model and the start time), so listing thousands of sessions stays
fast. Claude Code sub-agents written inline are found by a bounded search of the bytes that
parses only their lines. Counting messages opens the session as the app does and is done on
request (``count_messages``). A file that cannot be read is listed with its error, and a
directory that cannot be read, or a FIFO named like a session, is passed over and counted
(``Listing.skipped``), instead of stopping the listing. Nothing is opened in a way that can
block. Where each agent keeps its sessions is its format's row (``FormatInfo.stores``, which
honours ``CLAUDE_CONFIG_DIR``, ``CODEX_HOME``, ``XDG_DATA_HOME`` and ``PICOCLAW_HOME``), and
what is there is read by its importer's ``list_store``. The layouts are described in
docs/formats.md ("Where agents keep their sessions").
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ctxtui.core.session import formats
from ctxtui.importers import IMPORTERS, FoundSession, Skipped, StoreWalk, hoist_system_prompt

COUNT_LIMIT_BYTES = 256 * 1024 * 1024
"""``count_messages`` answers ``None`` for transcripts larger than this rather than open them."""


def store_roots(env: Mapping[str, str]) -> list[tuple[formats.FormatInfo, Path]]:
    """Every agent's store directory with its format's row, in the formats' order."""
    return [
        (info, root)
        for info in formats.FORMATS
        for root in dict.fromkeys(store.path(env) for store in info.stores)
    ]


@dataclass(frozen=True)
class Listing:
    """The sessions found, newest first, and the paths passed over on the way."""

    sessions: list[FoundSession]
    skipped: list[Skipped]


def list_sessions(env: Mapping[str, str] | None = None) -> Listing:
    """Every session in the agents' stores, newest first; sub-agents under their parent.

    A directory that cannot be read, and anything named like a session that is not a regular
    file, is passed over and noted in ``skipped``; everything else is still listed.
    """
    env = os.environ if env is None else env
    walk = StoreWalk()
    found: list[FoundSession] = []
    for info, root in store_roots(env):
        lister = getattr(IMPORTERS.get(info.name), "list_store", None)
        if lister is not None:
            found.extend(lister(walk, root))
    found.sort(key=lambda f: f.sort_key, reverse=True)
    return Listing(found, walk.skipped)


def find_sessions(env: Mapping[str, str] | None = None) -> list[FoundSession]:
    """``list_sessions(env).sessions``: the sessions alone."""
    return list_sessions(env).sessions


def count_messages(found: FoundSession) -> int | None:
    """How many messages the app shows when it opens ``found``: the session is imported, as
    opening it would, and its messages counted. ``None`` for a file larger than
    ``COUNT_LIMIT_BYTES`` (counting it would cost what opening it costs). Raises
    ``SessionLoadError`` when the session cannot be opened."""
    if found.messages is not None:
        return found.messages
    database_counts = getattr(IMPORTERS.get(found.agent), "database_counts", None)
    if database_counts is not None and found.session_id is not None:
        counts = database_counts(found.path, hoist_system_prompt)
        if found.session_id in counts:
            return int(counts[found.session_id])
    if found.path.suffix != ".db" and found.path.stat().st_size > COUNT_LIMIT_BYTES:
        return None
    from ctxtui.importers import load_session

    return len(load_session(found.open_target).messages)
