"""Claude Code session transcripts: the uuid-chained JSONL under ``~/.claude/projects``."""

from __future__ import annotations

import bisect
from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, ClassVar

from ctxtui.core.errors import SessionLoadError, StopCheck
from ctxtui.core.session.formats import FormatInfo, format_info
from ctxtui.core.session.import_notes import EARLIER_UNREAD
from ctxtui.core.session.models import RecordedCompaction, Session, SessionMeta
from ctxtui.core.wording import plural
from ctxtui.importers._claude_messages import (
    SYNTHETIC_MODEL,
    Body,
    Converter,
    Entry,
    MessageCount,
    is_boundary,
)
from ctxtui.importers._claude_sidechains import AGENT_PREFIX, inline_chains, sidechain_ids
from ctxtui.importers._jsonl import (
    TAIL_BYTES,
    Record,
    iter_records,
    names_every_tool_result,
    read_tail,
    tail_cursor,
)
from ctxtui.importers._parts import HOISTED, as_label, as_text, tag
from ctxtui.importers._store_files import (
    FoundSession,
    StoreWalk,
    guard,
    head_records,
    stat_entry,
    text,
    when,
)
from ctxtui.importers._stream import Dropped, Source, stopping

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


def load(source: Source) -> Session:
    """Read a Claude Code transcript as the context the model sees now (after any compaction)."""
    return _load(source, full_history=False)


def load_history(source: Source) -> Session:
    """Read every message the file holds, through each ``compact_boundary`` (for replay)."""
    return _load(source, full_history=True)


def _load(source: Source, *, full_history: bool) -> Session:
    live = Live(full_history=full_history, should_stop=source.should_stop)
    live.add(iter_records(source, live.warnings, typed=Entry))
    session = live.session(source.name)
    source.dropped.count += live.dropped
    return session


def load_tail(source: Source, budget: int = TAIL_BYTES) -> Session | None:
    """The session ``load`` reads, from the file's last ``budget`` bytes (and up to 16 times
    more) when they hold all of it: the chain from the newest leaf back to the agent's last
    compact boundary, met in them, each tool result naming its tool. For a first screen
    before the whole read (the app), which replaces it.

    What only the earlier part can say is left out: the number of messages the boundary hid
    (its note says the earlier part is still being read), warnings about earlier lines, a
    title written before. One case it cannot see: an entry written earlier with a later
    timestamp (a clock that went back) is the whole read's newest leaf, not the tail's.
    ``None`` where a tail cannot stand for the read: a compressed or short file, no boundary
    in the last 16 budgets, a chain that leaves the tail, a result whose call came before it.
    """
    return read_tail(source, budget, b"compact_boundary", _tail_session)


def _tail_session(source: Source, offset: int) -> Session | None:
    cursor = tail_cursor(source, offset)
    if cursor is None:
        return None
    live = Live(count_hidden=False)  # the note below says the earlier part is being read
    live.add(iter_records(source, live.warnings, cursor=cursor, typed=Entry))
    session = live.session(source.name, cursor.end_warnings())
    chain = live.chain
    if chain is None or not chain.records or chain.walk_notes or chain.missing is not None:
        return None
    boundary = chain.records[0]
    if not is_boundary(boundary.value) or not session.meta.recorded_compactions:
        return None
    if not names_every_tool_result(session):
        return None
    pre = session.meta.recorded_compactions[-1].pre_tokens
    said = f"compact boundary at line {boundary.line:,}"
    if pre is not None:
        said += f", preTokens {pre:,}"
    note = f"{said}: {EARLIER_UNREAD}"
    return session.model_copy(update={"meta": session.meta.model_copy(update={"events": (note,)})})


def load_one(source: Source, chain_id: str, *, full_history: bool = False) -> Session:
    """Read one sub-agent's chain written inline in a parent transcript, as its own session.

    ``chain_id`` is what ``sidechain_ids`` names it (``agent-<agentId>``, or the uuid of its
    first entry when the CLI wrote no agent id); a bare agent id is accepted too.
    """
    path = source.path
    warnings: list[str] = []
    entries = _collect(iter_records(source, warnings, typed=Entry)).whole()
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
        side.by_uuid.setdefault(record.value.uuid, record)
        _note_model_and_tools(side, record.value)
    outside = entries.by_uuid.keys() | entries.side_uuids.keys()
    chain = _build_chain(side, _newest_leaf(side), full_history, outside)
    source.dropped.count += chain.dropped
    return _assemble(side, chain, warnings, str(path), full_history)


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
    hidden: MessageCount | None = None
    """The messages of the last chain a compaction hid, counted (``_boundary_note``): the
    chain a newer compaction hides extends it, so only what came since is counted."""

    def add(self, record: Record) -> bool:
        """Take one record; ``True`` when it joined the main chain's entries."""
        value = record.value
        if not isinstance(value, Entry):
            return False
        kind = value.kind
        if kind == "summary" and isinstance(value.summary, str):
            self.title = value.summary
            return False
        if kind in ("custom-title", "ai-title"):
            title = value.custom_title or value.ai_title or value.title
            if isinstance(title, str):
                self.title = title
            return False
        uuid = value.uuid
        if kind not in CHAINED_TYPES or not isinstance(uuid, str):
            return False
        if value.is_sidechain is True:
            self.sidechain += 1
            self.side_uuids.setdefault(uuid, record)
            return False
        if uuid in self.by_uuid:
            self.duplicates += 1  # a fork or resume copied the prefix; the first copy wins
            return False
        self.by_uuid[uuid] = record
        _note_model_and_tools(self, value)
        return True

    def whole(self) -> _Entries:
        """These entries as a whole file's: when every chained line is a sidechain, the file is
        a sub-agent's own transcript (``subagents/agent-*.jsonl``), its own context window,
        so its chain is the session."""
        if self.by_uuid or not self.side_uuids:
            return self
        own = _Entries(by_uuid=dict(self.side_uuids), duplicates=self.duplicates, title=self.title)
        for record in own.by_uuid.values():
            _note_model_and_tools(own, record.value)
        return own


def _collect(records: Iterable[Record]) -> _Entries:
    entries = _Entries()
    for record in records:
        entries.add(record)
    return entries


def _sidechains(entries: _Entries) -> dict[str, list[Record]]:
    """The sidechain entries set aside from the main chain, by chain, in file order."""
    values = {uuid: _fields(record.value) for uuid, record in entries.side_uuids.items()}
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


def _fields(value: Entry) -> dict[str, Any]:
    """What ``sidechain_ids`` reads of an entry, under the transcript's own keys."""
    return {
        "type": value.type,
        "subtype": value.subtype,
        "agentId": value.agent_id,
        "parentUuid": value.parent,
        "logicalParentUuid": value.logical_parent,
    }


def _note_model_and_tools(entries: _Entries, value: Entry) -> None:
    """The entry's model and the names of the tools it calls; its content blocks are walked
    in place, not copied out (``_claude_messages.blocks``): this runs once per entry."""
    message = value.message
    if not isinstance(message, Body):
        return
    model = message.model
    if isinstance(model, str) and model != SYNTHETIC_MODEL:
        entries.model = model
    content = message.content
    if isinstance(content, list):
        for block in content:
            if (
                isinstance(block, dict)
                and block.get("type") == "tool_use"
                and isinstance(block.get("id"), str)
            ):
                entries.tool_names[block["id"]] = as_text(block.get("name"))


def _newest_leaf(entries: _Entries) -> Record | None:
    """The newest entry nobody points at: by timestamp, then by file order (not always sorted)."""
    parents = {p for r in entries.by_uuid.values() if (p := _string(r.value.parent))}
    leaves = [r for u, r in entries.by_uuid.items() if u not in parents]
    if not leaves:
        return None
    return max(leaves, key=lambda r: (as_label(r.value.timestamp), r.line))


def _string(value: Any) -> str | None:
    return value if isinstance(value, str) else None


@dataclass(frozen=True, slots=True)
class _Ends:
    """Where a walk back ends before a root: quietly at a parent in ``outside`` (a sub-agent's
    spawner in the main chain), or at the entry ``stop``, the last taken (the chain's first)."""

    outside: Collection[str] = ()
    stop: str | None = None


_AT_A_ROOT = _Ends()


def _walk(
    entries: _Entries,
    start: str | None,
    warnings: list[str],
    through: bool,
    ends: _Ends = _AT_A_ROOT,
) -> list[Record]:
    """Entries from ``start`` back to a root (or where ``ends`` says), oldest first;
    ``through`` crosses compactions."""
    outside, stop = ends.outside, ends.stop
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
        if uuid == stop:
            break
        uuid = _parent(record.value, through)
    chain.reverse()
    return chain


class Live:
    """A transcript read as it grows (``--watch``): records appended later cost what they hold.

    Entries are indexed as they come; the newest leaf is kept in a heap; the chain shown is
    extended from its leaf when new entries hang from it, and only those are converted. Any
    other change (a rewind to an earlier entry, a new compaction, a parent that turns up
    late) builds the chain again from the entries, as a whole read does, so ``session()``
    is the same whether the records came at once or in pieces.
    """

    RECORD: ClassVar[type[Entry]] = Entry
    """What ``iter_records`` decodes each line into for this importer."""

    def __init__(
        self,
        *,
        full_history: bool = False,
        warnings: list[str] | None = None,
        count_hidden: bool = True,
        should_stop: StopCheck | None = None,
    ) -> None:
        self.full_history = full_history
        self.should_stop = should_stop
        """Asked while the chain is converted: a stopped read ends there (``Source``)."""
        self.count_hidden = count_hidden
        """Whether the boundary note counts what the last compaction hid (a first look from
        the file's end cannot, and says so in a note of its own)."""
        self.warnings: list[str] = [] if warnings is None else warnings
        """The reader's warnings, in file order (``iter_records`` appends to them)."""
        self.entries = _Entries()
        self._parents: set[str] = set()
        self._leaves: list[tuple[str, int, int, str]] = []
        """Every main entry as ``(timestamp, line, -order, uuid)``, sorted: the newest leaf is
        the last that is no one's parent (ties go to the first added, as ``max`` does)."""
        self._chain: _Chain | None = None
        self._rebuilt = True

    def add(self, records: Iterable[Record]) -> None:
        for record in records:
            if self.entries.add(record):
                value = record.value
                parent = value.parent
                if parent and isinstance(parent, str):
                    self._parents.add(parent)
                order = len(self.entries.by_uuid)
                key = (as_label(value.timestamp), record.line, -order, value.uuid)
                leaves = self._leaves
                if not leaves or key >= leaves[-1]:  # in time order, as entries mostly come
                    leaves.append(key)
                else:
                    bisect.insort(leaves, key)

    @property
    def dropped(self) -> int:
        """Token counts dropped as out of range by the session as last built."""
        return 0 if self._chain is None else self._chain.dropped

    def session(self, source_path: str | None, end_warnings: Iterable[str] = ()) -> Session:
        """The session of the records added so far; ``end_warnings`` follow the reader's."""
        entries = self.entries.whole()
        warnings = [*self.warnings, *end_warnings]
        if entries is not self.entries:  # a sub-agent's own transcript: no leaf heap for it
            leaf = _newest_leaf(entries)
            build = _Build(stop=self.should_stop)
            self._chain = _build_chain(entries, leaf, self.full_history, build=build)
            self._rebuilt = True
        else:
            leaf = self.newest_leaf()
            chain = self._chain
            if chain is None or not chain.extend(entries, leaf, self.full_history):
                build = _Build(self.count_hidden, self.should_stop)
                self._chain = _build_chain(entries, leaf, self.full_history, build=build)
                self._rebuilt = True
        assert self._chain is not None
        if entries.sidechain:
            warnings.append(_sidechain_note(entries, source_path))
        if entries.duplicates:
            warnings.append(f"{entries.duplicates:,} repeated uuids ignored (copied by a fork)")
        return _assemble(entries, self._chain, warnings, source_path, self.full_history)

    def changed_from(self) -> int:
        """The first message that may differ from the session built before (then from now)."""
        converter = None if self._chain is None else self._chain.converter
        low = 0 if self._rebuilt or converter is None else converter.low
        if converter is not None:
            converter.low = len(converter.out)
        self._rebuilt = False
        return low

    @property
    def chain(self) -> _Chain | None:
        """The chain shown as last built (``None`` before the first ``session``)."""
        return self._chain

    def newest_other_leaf(self, leaf: str) -> tuple[str, int] | None:
        """The newest entry that no entry hangs from, other than ``leaf``: its
        ``(timestamp, line)``."""
        for key in reversed(self._leaves):
            uuid = key[3]
            if uuid != leaf and uuid not in self._parents:
                return key[0], key[1]
        return None

    def newest_leaf(self) -> Record | None:
        """``_newest_leaf`` of the entries, from the sorted list: an entry that became a
        parent never becomes a leaf again, so it is dropped for good."""
        leaves = self._leaves
        while leaves and leaves[-1][3] in self._parents:
            leaves.pop()
        return self.entries.by_uuid[leaves[-1][3]] if leaves else None


@dataclass
class _Chain:
    """The chain shown, newest leaf back to its root, with its messages converted so far."""

    records: list[Record]
    converter: Converter
    compactions: list[RecordedCompaction]
    walk_notes: list[str]
    missing: str | None
    """A parent the walk did not find: should it turn up, the chain is built again."""
    boundary_note: str | None
    note_dropped: Dropped
    _positions: dict[str, int] | None = None

    @property
    def positions(self) -> dict[str, int]:
        """Each entry's place in the chain by uuid, indexed on the first ``extend`` only: a
        whole read never extends."""
        if self._positions is None:
            self._positions = {r.value.uuid: i for i, r in enumerate(self.records)}
        return self._positions

    @property
    def dropped(self) -> int:
        return self.converter.dropped.count + self.note_dropped.count

    def extend(self, entries: _Entries, leaf: Record | None, through: bool) -> bool:
        """Take the entries from ``leaf`` back to this chain's last one; ``False`` when the
        leaf does not hang from it (then the chain must be built again)."""
        if not self.records or leaf is None:
            return False
        if self.missing is not None and self.missing in entries.by_uuid:
            return False
        last = self.records[-1].value.uuid
        walked: list[Record] = []
        uuid: str | None = leaf.value.uuid
        while uuid is not None and uuid != last:
            record = entries.by_uuid.get(uuid)
            if record is None or uuid in self.positions:
                return False  # a missing parent, a cycle, or a rewind into the chain
            walked.append(record)
            uuid = _parent(record.value, through)
            if len(walked) > len(entries.by_uuid):
                return False
        if uuid is None:
            return False
        for record in reversed(walked):
            self.positions[record.value.uuid] = len(self.records)
            self.records.append(record)
            self.converter.add(record)
        return True


def _parent(value: Entry, through: bool) -> str | None:
    """The uuid an entry hangs from; ``through`` crosses a compaction to what it replaced."""
    parent = value.parent
    if parent is None and through and is_boundary(value):
        parent = value.logical_parent
    return parent if isinstance(parent, str) else None


@dataclass(frozen=True, slots=True)
class _Build:
    """What a build of the chain is asked: whether its note counts what the last compaction
    hid (a first look from the file's end cannot), and when to stop (``Source``)."""

    note: bool = True
    stop: StopCheck | None = None


_WHOLE = _Build()


def _build_chain(
    entries: _Entries,
    leaf: Record | None,
    full_history: bool,
    outside: Collection[str] = (),
    *,
    build: _Build = _WHOLE,
) -> _Chain:
    """The chain ending at ``leaf``, converted, with what a whole read says about it (what
    ``build`` asks)."""
    note, stop = build.note, build.stop
    walk_notes: list[str] = []
    records = (
        _walk(entries, leaf.value.uuid, walk_notes, full_history, _Ends(outside)) if leaf else []
    )
    compactions: list[RecordedCompaction] = []
    converter = Converter(entries.tool_names, Dropped(), compactions)
    for record in stopping(records, stop):
        converter.add(record)
    note_dropped = Dropped()
    boundary_note = None
    if note and records and is_boundary(records[0].value) and not full_history:
        boundary_note = _boundary_note(entries, records[0], note_dropped, outside, stop)
    root = _parent(records[0].value, full_history) if records else None
    missing = root if root is not None and root not in entries.by_uuid else None
    return _Chain(records, converter, compactions, walk_notes, missing, boundary_note, note_dropped)


def _assemble(
    entries: _Entries,
    chain: _Chain,
    warnings: list[str],
    source_path: str | None,
    full_history: bool,
) -> Session:
    """The session of ``chain``: its messages, model, compactions and every warning."""
    messages = chain.converter.out
    warnings = [*warnings, *chain.walk_notes, *chain.converter.notes()]
    events = (chain.boundary_note,) if chain.boundary_note is not None else ()
    model = next((m.model for m in reversed(messages) if m.model and not m.injected), None)
    model = model or entries.model  # a fresh compaction may leave no assistant in view
    meta = SessionMeta(
        source_path=source_path,
        format=FORMAT.name,
        model=model,
        title=entries.title,
        warnings=tuple(warnings),
        events=events,
        recorded_compactions=tuple(chain.compactions),
        full_history=full_history,
    )
    # The messages are validated as they are made: set, not validated again.
    return Session(meta=meta).model_copy(update={"messages": tuple(messages)})


def _hidden(
    entries: _Entries,
    logical: str,
    dropped: Dropped,
    outside: Collection[str],
    stop: StopCheck | None = None,
) -> int:
    """The messages of the chain ending at ``logical`` (what a compaction hid), its dropped
    token counts added to ``dropped``; counted on from ``entries.hidden`` when this chain
    extends the one counted there. Only a chain that reached its root cleanly is kept to
    count on from: a parent that turns up late would make it longer at its start."""
    kept, notes = entries.hidden, list[str]()
    walked: list[Record] = []
    if kept is not None and not outside:
        walked = _walk(entries, logical, notes, True, _Ends(stop=kept.last))
        if walked and walked[0].value.uuid == kept.last and not notes:
            walked = walked[1:]
        else:
            kept = None
    if kept is None:
        notes = []
        walked = _walk(entries, logical, notes, True, _Ends(outside))
        kept = MessageCount()
    for record in stopping(walked, stop):
        kept.add(record)
    dropped.count += kept.dropped.count
    entries.hidden = kept if not notes and not outside else None
    return kept.count


def _boundary_note(
    entries: _Entries,
    boundary: Record,
    dropped: Dropped,
    outside: Collection[str] = (),
    stop: StopCheck | None = None,
) -> str:
    """Say what the compaction hid, so the pre-boundary size is not lost from view."""
    logical = boundary.value.logical_parent
    hidden = 0
    if isinstance(logical, str):
        hidden = _hidden(entries, logical, dropped, outside, stop)
    metadata = boundary.value.compact_metadata
    pre = metadata.get("preTokens") if isinstance(metadata, dict) else None
    return _boundary_words(boundary.line, hidden, pre if isinstance(pre, int) else None)


def _boundary_words(line: int, hidden: int, pre_tokens: int | None) -> str:
    note = f"compact boundary at line {line:,}: {plural(hidden, 'earlier message')} hidden"
    if pre_tokens is not None:
        note += f", preTokens {pre_tokens:,}"
    return note


def shown_from(history: Session) -> Session | None:
    """The session ``load`` reads, cut from what ``load_history`` read of the same file, so a
    command that needs both reads the file once; ``None`` where the cut could differ.

    The history holds the normal read as its last messages, from the last boundary's
    summary on, and what that boundary hid is every message before it. A history with
    warnings (lines skipped, a broken chain, counts dropped) is not cut: the normal read's
    walk may meet only some of them. Nor is one whose view has no model of its own (the
    normal read then takes the file's).
    """
    meta = history.meta
    recorded = meta.recorded_compactions
    if not recorded:
        return history.model_copy(update={"meta": meta.model_copy(update={"full_history": False})})
    last = recorded[-1]
    start = last.message_index
    messages = history.messages[start:]
    if meta.warnings or meta.events or not 0 < start < len(history):
        return None
    if messages[0].role in HOISTED:
        return None  # the normal read would take a leading system message as the prompt
    if last.source_line is None or not any(m.model and not m.injected for m in messages):
        return None
    note = _boundary_words(last.source_line, start, last.pre_tokens)
    kept = meta.model_copy(
        update={
            "full_history": False,
            "events": (note,),
            "recorded_compactions": (last.model_copy(update={"message_index": 0}),),
        }
    )
    return history.model_copy(update={"messages": messages, "meta": kept})


def path_hint(path: Path) -> bool:
    """A JSONL file under a ``.claude/projects`` directory is Claude Code's."""
    return path.name.endswith(".jsonl") and "/.claude/projects/" in path.as_posix()


# --- the store: ~/.claude/projects/<project>/<session>.jsonl (docs/formats.md) -------------


def _fill(found: FoundSession) -> FoundSession:
    project = started = model = None
    for record in head_records(found.path):
        project = project or text(record.get("cwd"))
        started = started or when(record.get("timestamp"))
        if record.get("type") == "assistant":
            message = record.get("message")
            said = message.get("model") if isinstance(message, dict) else record.get("model")
            model = model or text(said)
        if project and started and model:
            break
    return replace(found, project=project, started=started, model=model)


def _inline_agents(parent: FoundSession) -> tuple[FoundSession, ...]:
    """Sub-agents an older CLI wrote into the parent's own file, one entry per chain, to be
    opened as ``PATH#ID`` (``load_one``)."""
    chains = inline_chains(parent.path)
    return tuple(_inline_agent(parent, cid, chain) for cid, chain in chains.items())


def _inline_agent(parent: FoundSession, chain_id: str, chain: list[dict[str, Any]]) -> FoundSession:
    """One inline sub-agent as a listing entry, from its own records (oldest first)."""
    first = chain[0]
    models = (r.get("model") for r in chain if r.get("type") == "assistant")
    return replace(
        parent,
        size=sum(r["_bytes"] for r in chain),
        started=when(first.get("timestamp")),
        project=text(first.get("cwd")) or parent.project,
        model=next((m for m in models if text(m) and m != "<synthetic>"), None),
        title=None,
        session_id=chain_id,
    )


def _children(walk: StoreWalk, parent: FoundSession, has_dir: bool) -> tuple[FoundSession, ...]:
    """A session's sub-agents: its ``subagents/`` files, then those written inline."""
    file = parent.path
    subs = walk.files(file.parent / file.stem / "subagents", "agent-*.jsonl") if has_dir else []
    children = tuple(guard(stat_entry(FORMAT.name, s), _fill) for s in subs)
    if parent.error is not None:
        return children
    try:
        return children + _inline_agents(parent)
    except Exception:  # the parent lists fine; its own load says what is wrong inside
        return children


def _loose_agents(files: Iterable[Path]) -> dict[str, list[FoundSession]]:
    """An older CLI's ``agent-*.jsonl`` files beside the sessions, by the ``sessionId`` of
    the session that spawned them (read from their head)."""
    by_parent: dict[str, list[FoundSession]] = {}
    for file in files:
        found = guard(stat_entry(FORMAT.name, file), _fill)
        parent = ""
        if found.error is None:
            try:
                ids = (text(r.get("sessionId")) for r in head_records(file))
                parent = next((i for i in ids if i), "")
            except Exception:  # swapped or broken since the fill: it stays an orphan
                parent = ""
        by_parent.setdefault(parent, []).append(found)
    return by_parent


def list_store(walk: StoreWalk, root: Path) -> Iterator[FoundSession]:
    """The sessions under a ``projects`` root, each with its sub-agents as children."""
    for project_dir in walk.dirs(root):
        files = walk.files(project_dir, "*.jsonl")
        session_dirs = {p.name for p in walk.dirs(project_dir)}
        loose = _loose_agents(f for f in files if f.name.startswith("agent-"))
        for file in files:
            if file.name.startswith("agent-"):
                continue  # a sub-agent: listed under the session that spawned it
            parent = guard(stat_entry(FORMAT.name, file), _fill)
            children = (
                *_children(walk, parent, file.stem in session_dirs),
                *loose.pop(file.stem, ()),
            )
            yield replace(parent, children=children) if children else parent
        for orphans in loose.values():
            yield from orphans  # their session is gone; each is still a context window
