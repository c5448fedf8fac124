"""Claude Code sub-agents written inline in their parent's transcript (``isSidechain``).

Older CLIs wrote each sub-agent's chain into the parent's own file, interleaved when several
ran at once. ``sidechain_ids`` names each chain, for the importer (which opens one as
``PATH#ID``) and for the listing, which finds them with ``inline_chains``: a search of the
file's bytes that parses only the matching lines, never the whole transcript.
"""

from __future__ import annotations

import json
import mmap
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ctxtui.importers._claude_messages import is_boundary

SIDECHAIN_SCAN_BYTES = 64 * 1024 * 1024
"""How much of a Claude Code transcript is searched for sub-agents written inline."""
SIDECHAIN_MARKER = re.compile(rb'"isSidechain": ?true')
"""A sidechain line's flag; inside a JSON string its quotes are escaped, so it cannot match."""
CHAINED_MARKER = re.compile(rb'"uuid"')
"""Each chained entry has one ``uuid`` key (``parentUuid`` does not match)."""

AGENT_PREFIX = "agent-"
"""A sub-agent chain with an ``agentId`` is named like its ``subagents/agent-<id>.jsonl`` file."""


def sidechain_ids(entries: Mapping[str, Mapping[str, Any]]) -> dict[str, str]:
    """Name the sub-agent chain of each sidechain entry (``entries``: uuid → entry).

    Several sub-agents may run at once, so their lines interleave: each chain is named by
    its ``agentId`` (``agent-<id>``) or, for CLIs that wrote none, by the uuid of its first
    entry, found by following ``parentUuid`` (and a boundary's ``logicalParentUuid``) until
    it leaves the sidechain entries.
    """
    ids: dict[str, str] = {}
    for start in entries:
        path: list[str] = []
        uuid = start
        while uuid not in ids:
            value = entries[uuid]
            agent = value.get("agentId")
            if isinstance(agent, str) and agent:
                ids[uuid] = f"{AGENT_PREFIX}{agent}"
                break
            parent = value.get("parentUuid")
            if parent is None and is_boundary(value):
                parent = value.get("logicalParentUuid")
            path.append(uuid)
            if not isinstance(parent, str) or parent not in entries or parent in path:
                ids[uuid] = uuid
                break
            uuid = parent
        for walked in path:
            ids[walked] = ids[uuid]
    return ids


def inline_chains(path: Path) -> dict[str, list[dict[str, Any]]]:
    """The sub-agent chains written inline in ``path``, by id, each oldest first (every record
    with its line's size as ``"_bytes"``); none for a file that is all one sub-agent's."""
    lines, others = _scan(path)
    if not lines or not others:
        return {}
    records: dict[str, dict[str, Any]] = {}
    for line in lines:
        records.setdefault(line["uuid"], line)  # the first copy of a uuid wins, as on load
    chains: dict[str, list[dict[str, Any]]] = {}
    for uuid, chain_id in sidechain_ids(records).items():
        chains.setdefault(chain_id, []).append(records[uuid])
    return chains


def _scan(path: Path) -> tuple[list[dict[str, Any]], int]:
    """The sidechain records in a transcript's first ``SIDECHAIN_SCAN_BYTES`` (each with its
    line's size as ``"_bytes"``) and how many other chained entries it holds.

    The file is mapped, not copied, and searched by one expression; only the lines that
    match are parsed, so a file without sub-agents costs one pass over its bytes.
    """
    with path.open("rb") as fh:
        if os.fstat(fh.fileno()).st_size == 0:
            return [], 0
        with mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as data:
            limit = min(len(data), SIDECHAIN_SCAN_BYTES)
            records: list[dict[str, Any]] = []
            end = -1
            for match in SIDECHAIN_MARKER.finditer(data, 0, limit):
                if match.start() < end:
                    continue  # the marker again on a line already read
                start = data.rfind(b"\n", 0, match.start()) + 1
                end = data.find(b"\n", match.end())
                end = len(data) if end < 0 else end
                records.extend(_sidechain_record(data[start:end]))
            if not records:
                return [], 0
            chained = sum(1 for _ in CHAINED_MARKER.finditer(data, 0, limit))
    return records, chained - len(records)


def _sidechain_record(raw: bytes) -> list[dict[str, Any]]:
    try:
        value = json.loads(raw)
    except (ValueError, RecursionError):
        return []  # corrupt, or cut by a crash: the importer reports it
    sidechain = isinstance(value, dict) and value.get("isSidechain") is True
    if sidechain and isinstance(value.get("uuid"), str):
        return [{**value, "_bytes": len(raw) + 1}]
    return []
