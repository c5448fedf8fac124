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

from ctxtui.importers._stream import open_regular

SIDECHAIN_SCAN_BYTES = 16 * 1024 * 1024
"""How much of a Claude Code transcript the listing searches for sub-agents written inline:
its read budget (``_store_files.SCAN_BYTES``), so listing a directory stays quick."""
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
            if parent is None and _is_boundary(value):
                parent = value.get("logicalParentUuid")
            path.append(uuid)
            if not isinstance(parent, str) or parent not in entries or parent in path:
                ids[uuid] = uuid
                break
            uuid = parent
        for walked in path:
            ids[walked] = ids[uuid]
    return ids


def _is_boundary(value: Mapping[str, Any]) -> bool:
    return value.get("type") == "system" and value.get("subtype") == "compact_boundary"


def inline_chains(path: Path) -> dict[str, list[dict[str, Any]]]:
    """The sub-agent chains written inline in ``path``, by id, each oldest first; none for a
    file that is all one sub-agent's. Each record keeps only what a listing shows and what
    names its chain (``LISTED_KEYS``), its assistant's ``model``, and its line's size as
    ``"_bytes"``."""
    lines = _scan(path)
    if not lines:
        return {}
    records: dict[str, dict[str, Any]] = {}
    for line in lines:
        records.setdefault(line["uuid"], line)  # the first copy of a uuid wins, as on load
    chains: dict[str, list[dict[str, Any]]] = {}
    for uuid, chain_id in sidechain_ids(records).items():
        chains.setdefault(chain_id, []).append(records[uuid])
    return chains


LISTED_KEYS = (
    "uuid",
    "parentUuid",
    "logicalParentUuid",
    "agentId",
    "type",
    "subtype",
    "timestamp",
    "cwd",
)
"""What a listing keeps of an inline sub-agent's record: a line may hold megabytes."""

LONG_LINE_BYTES = 1024 * 1024
"""A sidechain line longer than this is not parsed by the listing: its fields are read from
its first and last ``LINE_END_BYTES`` (a pasted image's line is megabytes)."""
LINE_END_BYTES = 16 * 1024

_FIELD = re.compile(
    rb'"(uuid|parentUuid|logicalParentUuid|agentId|type|subtype|timestamp|cwd|model)"'
    rb'\s*:\s*(null|"(?:[^"\\]|\\.){0,1024}")'
)


def _scan(path: Path) -> list[dict[str, Any]]:
    """The sidechain records in a transcript's first ``SIDECHAIN_SCAN_BYTES``, if it also
    holds other chained entries (else none: the file is all one sub-agent's).

    The file is mapped, not copied, and searched by expression; the markers are counted
    before any line is parsed, so a file of sub-agent lines alone, or one without any, costs
    a pass over its bytes, and only the matching lines are parsed.
    """
    with open_regular(path) as fh:
        if os.fstat(fh.fileno()).st_size == 0:
            return []
        with mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as data:
            limit = min(len(data), SIDECHAIN_SCAN_BYTES)
            whole = len(data)  # the markers are counted in whole lines: a cut one has half
            if whole > limit:
                whole = data.rfind(b"\n", 0, limit) + 1
            sidechain = SIDECHAIN_MARKER.search(data, 0, limit)
            if sidechain is None or not _has_others(data, whole):
                return []
            records: list[dict[str, Any]] = []
            end = -1
            for match in SIDECHAIN_MARKER.finditer(data, sidechain.start(), limit):
                if match.start() < end:
                    continue  # the marker again on a line already read
                start = data.rfind(b"\n", 0, match.start()) + 1
                end = data.find(b"\n", match.end(), match.end() + LONG_LINE_BYTES)
                if end < 0:  # a long line: its end is looked for without mapping it in
                    end = _line_end(fh.fileno(), match.end() + LONG_LINE_BYTES, len(data))
                records.extend(_sidechain_record(data, start, end))
    return records


def _line_end(fd: int, start: int, size: int) -> int:
    """Where the line holding ``start`` ends (its newline, or the end of the file), read a
    mebibyte at a time with ``pread``: searched through the map, every page of a 300 MB line
    would count in the process's resident memory."""
    position = start
    while position < size:
        chunk = os.pread(fd, _READ_CHUNK, position)
        if not chunk:
            break
        newline = chunk.find(b"\n")
        if newline >= 0:
            return position + newline
        position += len(chunk)
    return size


_READ_CHUNK = 1024 * 1024


def _has_others(data: mmap.mmap, limit: int) -> bool:
    """Whether a chained entry that is not a sidechain's lies in ``data[:limit]``: more
    ``uuid`` keys than sidechain markers (each chained line has one of each)."""
    chained = sum(1 for _ in CHAINED_MARKER.finditer(data, 0, limit))
    return chained > sum(1 for _ in SIDECHAIN_MARKER.finditer(data, 0, limit))


def _sidechain_record(data: mmap.mmap, start: int, end: int) -> list[dict[str, Any]]:
    if end - start > LONG_LINE_BYTES:
        value: Any = _long_record(
            data[start : start + LINE_END_BYTES], data[end - LINE_END_BYTES : end]
        )
    else:
        try:
            value = json.loads(data[start:end])
        except (ValueError, RecursionError):
            return []  # corrupt, or cut by a crash: the importer reports it
    if not (isinstance(value, dict) and value.get("isSidechain") is True):
        return []
    if not isinstance(value.get("uuid"), str):
        return []
    slim = {k: value[k] for k in LISTED_KEYS if k in value}
    message = value.get("message")
    model = message.get("model") if isinstance(message, dict) else value.get("model")
    if model is not None:
        slim["model"] = model
    slim["_bytes"] = end - start + 1
    return [slim]


def _long_record(head: bytes, tail: bytes) -> dict[str, Any]:
    """What the listing needs of a line too long to parse: the fields before its ``message``
    (first of each) and the rest from its end (last of each, where uuid and time are)."""
    cut = head.find(b'"message"')
    record: dict[str, Any] = {"isSidechain": True}
    for match in _FIELD.finditer(head if cut < 0 else head[:cut]):
        record.setdefault(match[1].decode(), _value(match[2]))
    late = {m[1].decode(): _value(m[2]) for m in _FIELD.finditer(tail)}
    return {**late, **record}


def _value(raw: bytes) -> Any:
    try:
        return json.loads(raw)
    except ValueError:
        return None
