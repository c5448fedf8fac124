"""Claude Code session transcripts: the uuid-chained JSONL under ``~/.claude/projects``."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ctxtui.core.errors import SessionLoadError
from ctxtui.core.session.formats import FormatInfo, format_info
from ctxtui.core.session.models import Message, RecordedCompaction, Session, SessionMeta
from ctxtui.importers._claude_messages import SYNTHETIC_MODEL, blocks, convert, is_boundary
from ctxtui.importers._claude_sidechains import AGENT_PREFIX, sidechain_ids
from ctxtui.importers._jsonl import Record, iter_records
from ctxtui.importers._parts import as_label, as_text, tag

FORMAT: FormatInfo = format_info("claude-code")

CHAINED_TYPES = frozenset({"user", "assistant", "system", "attachment", "progress"})
"""Entry types that sit in the ``parentUuid`` chain; everything else is bookkeeping."""

BOOKKEEPING_TYPES = frozenset(
    {"summary", "file-history-snapshot", "queue-operation", "last-prompt", "custom-title",
     "ai-title", "tag", "agent-name", "mode", "permission-mode", "pr-link", "worktree-state",
     "content-replacement"}
)  # fmt: skip


def sniff(path: Path, head: Any) -> int:
    """Confidence that ``path`` is a Claude Code transcript, from its first record."""
    score = 0
    if ".claude" in path.parts and "projects" in path.parts and path.suffix == ".jsonl":
        score = 40
    if not isinstance(head, dict):
        return score
    kind = tag(head)
    if "uuid" in head and "sessionId" in head and kind in CHAINED_TYPES:
        return 95
    if kind == "summary" and "leafUuid" in head:
        return 90
    if kind in BOOKKEEPING_TYPES and ("messageId" in head or "snapshot" in head or score):
        return 80
    return score


def load(path: Path) -> Session:
    """Read a Claude Code transcript as the context the model sees now (after any compaction)."""
    warnings: list[str] = []
    records = list(iter_records(path, warnings))
    return build_session(records, warnings, source_path=str(path))


def load_history(path: Path) -> Session:
    """Read every message the file holds, through each ``compact_boundary`` (for replay)."""
    warnings: list[str] = []
    records = list(iter_records(path, warnings))
    return build_session(records, warnings, source_path=str(path), full_history=True)


def load_sidechain(path: Path, chain_id: str, *, full_history: bool = False) -> Session:
    """Read one sub-agent's chain written inline in a parent transcript, as its own session.

    ``chain_id`` is what ``sidechain_ids`` names it (``agent-<agentId>``, or the uuid of its
    first entry when the CLI wrote no agent id); a bare agent id is accepted too.
    """
    warnings: list[str] = []
    entries = _collect(iter_records(path, warnings))
    chains = _sidechains(entries)
    found = next((c for c in (chain_id, f"{AGENT_PREFIX}{chain_id}") if c in chains), None)
    if found is None:
        held = ", ".join(list(chains)[:5]) or "none"
        raise SessionLoadError(
            f"{path}#{chain_id}", f"no such sub-agent in this transcript (it holds: {held})"
        )
    records = chains[found]
    parent = f" of {entries.title}" if entries.title else ""
    side = _Entries(title=f"sub-agent {found}{parent}")
    for record in records:
        side.by_uuid.setdefault(record.value["uuid"], record)
        _note_model_and_tools(side, record.value)
    outside = entries.by_uuid.keys() | entries.side_uuids.keys()
    return _session(side, warnings, str(path), full_history, outside)


@dataclass
class _Entries:
    """The chained entries of one file, indexed by uuid, plus what was set aside."""

    by_uuid: dict[str, Record] = field(default_factory=dict)
    sidechain: int = 0
    side_uuids: dict[str, Record] = field(default_factory=dict)  # a sub-agent's own chain
    duplicates: int = 0
    title: str | None = None
    model: str | None = None
    tool_names: dict[str, str] = field(default_factory=dict)


def _collect(records: Iterable[Record]) -> _Entries:
    entries = _Entries()
    for record in records:
        value = record.value
        if not isinstance(value, dict):
            continue
        kind = tag(value)
        if kind == "summary" and isinstance(value.get("summary"), str):
            entries.title = value["summary"]
            continue
        if kind in ("custom-title", "ai-title"):
            title = value.get("customTitle") or value.get("aiTitle") or value.get("title")
            if isinstance(title, str):
                entries.title = title
            continue
        uuid = value.get("uuid")
        if kind not in CHAINED_TYPES or not isinstance(uuid, str):
            continue
        if value.get("isSidechain") is True:
            entries.sidechain += 1
            entries.side_uuids.setdefault(uuid, record)
            continue
        if uuid in entries.by_uuid:
            entries.duplicates += 1  # a fork or resume copied the prefix; the first copy wins
            continue
        entries.by_uuid[uuid] = record
        _note_model_and_tools(entries, value)
    if not entries.by_uuid and entries.side_uuids:
        # Every chained line is a sidechain: this file is a sub-agent's own transcript
        # (``subagents/agent-*.jsonl``), its own context window, so its chain is the session.
        entries.by_uuid, entries.side_uuids, entries.sidechain = entries.side_uuids, {}, 0
        for record in entries.by_uuid.values():
            _note_model_and_tools(entries, record.value)
    return entries


def _sidechains(entries: _Entries) -> dict[str, list[Record]]:
    """The sidechain entries set aside from the main chain, by chain, in file order."""
    values = {uuid: record.value for uuid, record in entries.side_uuids.items()}
    chains: dict[str, list[Record]] = {}
    for uuid, chain_id in sidechain_ids(values).items():
        chains.setdefault(chain_id, []).append(entries.side_uuids[uuid])
    for records in chains.values():
        records.sort(key=lambda r: r.line)
    return chains


def _sidechain_note(entries: _Entries, source_path: str | None) -> str:
    """Say what was left out and how to open it, since each sub-agent is a session of its own."""
    chains = list(_sidechains(entries))
    agents = f"{len(chains):,} sub-agent{'s' if len(chains) != 1 else ''}"
    source = source_path or "FILE"
    shown = ", ".join(f"{source}#{c}" for c in chains[:3])
    more = f" and {len(chains) - 3:,} more" if len(chains) > 3 else ""
    records = f"{entries.sidechain:,} sub-agent record{'s' if entries.sidechain != 1 else ''}"
    return (
        f"{records} ({agents}) left out; "
        f"open {'it' if len(chains) == 1 else 'them'} as {shown}{more}"
    )


def _note_model_and_tools(entries: _Entries, value: Mapping[str, Any]) -> None:
    message = value.get("message")
    model = message.get("model") if isinstance(message, dict) else None
    if isinstance(model, str) and model != SYNTHETIC_MODEL:
        entries.model = model
    for block in blocks(value):
        if block.get("type") == "tool_use" and isinstance(block.get("id"), str):
            entries.tool_names[block["id"]] = as_text(block.get("name"))


def _newest_leaf(entries: _Entries) -> Record | None:
    """The newest entry nobody points at: by timestamp, then by file order (not always sorted)."""
    parents = {p for r in entries.by_uuid.values() if (p := tag(r.value, "parentUuid"))}
    leaves = [r for u, r in entries.by_uuid.items() if u not in parents]
    if not leaves:
        return None
    return max(leaves, key=lambda r: (as_label(r.value.get("timestamp")), r.line))


def _walk(
    entries: _Entries,
    start: str | None,
    warnings: list[str],
    through: bool,
    outside: Collection[str] = (),
) -> list[Record]:
    """Entries from ``start`` back to a root, oldest first; ``through`` crosses compactions.

    A parent in ``outside`` (a sub-agent's spawner in the main chain) ends the chain quietly.
    """
    chain: list[Record] = []
    seen: set[str] = set()
    uuid = start
    while uuid is not None:
        if uuid in seen:
            warnings.append(f"parentUuid cycle at {uuid}: the chain was cut there")
            break
        seen.add(uuid)
        record = entries.by_uuid.get(uuid)
        if record is None:
            if uuid not in outside:
                warnings.append(f"parentUuid {uuid} not found: the chain starts after it")
            break
        chain.append(record)
        parent = record.value.get("parentUuid")
        if parent is None and through and is_boundary(record.value):
            parent = record.value.get("logicalParentUuid")
        uuid = parent if isinstance(parent, str) else None
    chain.reverse()
    return chain


def build_session(
    records: Iterable[Record],
    warnings: list[str],
    *,
    source_path: str | None = None,
    full_history: bool = False,
) -> Session:
    """Thread, merge and normalise the records of one transcript into a ``Session``.

    By default the chain stops at the newest ``compact_boundary``: the summary and what
    follows are what the model sees now. ``full_history`` continues through
    ``logicalParentUuid`` to show everything the file holds.
    """
    entries = _collect(records)
    if entries.sidechain:
        warnings.append(_sidechain_note(entries, source_path))
    if entries.duplicates:
        warnings.append(f"{entries.duplicates:,} repeated uuids ignored (copied by a fork)")
    return _session(entries, warnings, source_path, full_history)


def _session(
    entries: _Entries,
    warnings: list[str],
    source_path: str | None,
    full_history: bool,
    outside: Collection[str] = (),
) -> Session:
    """The chain ending at the newest leaf of ``entries``, as a ``Session``."""
    leaf = _newest_leaf(entries)
    chain = _walk(entries, leaf.value["uuid"], warnings, full_history, outside) if leaf else []
    compactions: list[RecordedCompaction] = []
    messages = convert(chain, entries.tool_names, warnings, compactions)
    if chain and is_boundary(chain[0].value) and not full_history:
        warnings.append(_boundary_note(entries, chain[0], warnings, outside))
    model = next((m.model for m in reversed(messages) if m.model and not m.injected), None)
    model = model or entries.model  # a fresh compaction may leave no assistant in view
    meta = SessionMeta(
        source_path=source_path,
        format=FORMAT.name,
        model=model,
        title=entries.title,
        warnings=tuple(warnings),
        recorded_compactions=tuple(compactions),
        full_history=full_history,
    )
    return Session(messages=tuple(messages), meta=meta)


def _boundary_note(
    entries: _Entries, boundary: Record, warnings: list[str], outside: Collection[str] = ()
) -> str:
    """Say what the compaction hid, so the pre-boundary size is not lost from view."""
    logical = boundary.value.get("logicalParentUuid")
    hidden: list[Message] = []
    if isinstance(logical, str):
        scratch: list[str] = []
        walked = _walk(entries, logical, scratch, True, outside)
        hidden = convert(walked, entries.tool_names, scratch)
    metadata = boundary.value.get("compactMetadata")
    pre = metadata.get("preTokens") if isinstance(metadata, dict) else None
    note = f"compact boundary at line {boundary.line:,}: {len(hidden):,} earlier messages hidden"
    if isinstance(pre, int):
        note += f", preTokens {pre:,}"
    return note
