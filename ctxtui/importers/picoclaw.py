"""PicoClaw sessions: ``<key>.jsonl`` + ``.meta.json``, legacy ``<key>.json``, seahorse."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, ClassVar

from ctxtui.core.errors import SessionLoadError
from ctxtui.core.session.formats import FormatInfo, format_info
from ctxtui.core.session.models import (
    ContentPart,
    Message,
    RecordedCompaction,
    Session,
    SessionMeta,
    ToolCall,
)
from ctxtui.importers._jsonl import Record, iter_records
from ctxtui.importers._parts import as_text, opaque_part, tag, text_part
from ctxtui.importers._picoclaw_items import ROLES, media_part
from ctxtui.importers._reader import SQLITE_MAGIC, json_kind, read_json, read_json_file
from ctxtui.importers._store_files import (
    FoundSession,
    StoreWalk,
    guard,
    read_small_json,
    stat_entry,
    text,
    when,
)
from ctxtui.importers._stream import Dropped, Source, numbered_lines, open_file
from ctxtui.importers._timestamps import parse_timestamp

FORMAT: FormatInfo = format_info("picoclaw")


def sniff(path: Path, head: Any) -> int:
    """Confidence that ``path`` is a PicoClaw session (JSONL line or legacy JSON object)."""
    if not isinstance(head, dict):
        return 0
    if {"key", "messages", "created"} <= head.keys() and isinstance(head["messages"], list):
        return 90
    if tag(head, "role") in ROLES and isinstance(head.get("content"), str) and "uuid" not in head:
        return 70 if _meta_path(path).exists() else 40
    return 0


def load(source: Source) -> Session:
    """Read whichever PicoClaw store ``source`` is: JSONL (+ meta), legacy JSON or seahorse DB.

    A sessions directory stands for the session in it, and a ``.meta.json`` for its JSONL:
    that file is opened as a source of its own.
    """
    path = source.path
    if source.is_dir:
        path = _pick_in_directory(path)
    if path.name.endswith(".meta.json"):
        path = path.with_name(path.name[: -len(".meta.json")] + ".jsonl")
    if path == source.path:
        return _load_file(source, source.dropped)
    with open_file(path) as named:
        return _load_file(named, source.dropped)


def _load_file(source: Source, dropped: Dropped) -> Session:
    if source.magic(16) == SQLITE_MAGIC:
        from ctxtui.importers._picoclaw_sqlite import load_seahorse

        return load_seahorse(source.path, dropped)
    if source.path.suffix == ".json":
        return load_legacy(source)
    return load_jsonl(source)


def protected_paths(path: Path) -> set[Path]:
    """What a load of ``path`` reads: a transcript and its ``.meta.json`` go together, either way
    round; a sessions directory is protected whole (a later load may pick any file in it)."""
    if path.is_dir() or not path.name:
        return {path}
    if path.name.endswith(".meta.json"):
        return {path, path.with_name(path.name[: -len(".meta.json")] + ".jsonl")}
    return {path, _meta_path(path)}


def _meta_path(path: Path) -> Path:
    stem = path.name[: -len(".jsonl")] if path.name.endswith(".jsonl") else path.stem
    return path.with_name(stem + ".meta.json")


def _pick_in_directory(path: Path) -> Path:
    """A sessions directory: its most recently written JSONL session, else ``seahorse.db``."""
    sessions = sorted(path.glob("*.jsonl"), key=lambda p: (p.stat().st_mtime, p.name))
    if sessions:
        return sessions[-1]
    if (path / "seahorse.db").is_file():
        return path / "seahorse.db"
    raise SessionLoadError(str(path), "expected a PicoClaw sessions directory, found no sessions")


# --- JSONL + meta -------------------------------------------------------------------


def load_jsonl(source: Source) -> Session:
    """The active history: the lines after the meta's ``skip``, with its summary kept aside."""
    return _read_jsonl(source, full_history=False)


def load_history(source: Source) -> Session:
    """Every line of a JSONL session, the meta's ``skip`` lines too (for replay and the
    retention audit): the meta's summary stands where the active history begins, as a summary
    message, and the compaction that wrote it is recorded there. Other stores read as ``load``.
    """
    path = source.path
    if source.is_dir or path.name.endswith(".meta.json") or path.suffix != ".jsonl":
        return load(source)
    return _read_jsonl(source, full_history=True)


def _read_jsonl(source: Source, *, full_history: bool) -> Session:
    live = Live(full_history=full_history)
    live.add(iter_records(source, live.warnings))
    live.source = source  # the skip's line is found in the source at hand, not reopened
    return live.session(source.name)


class Live:
    """A PicoClaw JSONL session read as it grows (``--watch``, ``importers.resume``): the
    lines appended later are converted alone. The meta (``skip``, ``summary``) is read again
    at each ``session``, as a whole read reads it; a new ``skip`` converts the lines again
    (a PicoClaw compaction rewrites the JSONL anyway, which is read whole)."""

    RECORD: ClassVar[None] = None
    """Lines are read as plain JSON values."""

    def __init__(self, *, full_history: bool = False, warnings: list[str] | None = None) -> None:
        self.full_history = full_history
        self.warnings: list[str] = [] if warnings is None else warnings
        """The reader's warnings, in file order (``iter_records`` appends to them)."""
        self.records: list[Record] = []
        self.said: list[int] = []
        """How many reader warnings came before each record: a full history's notes on its
        lines are placed among the reader's by line, as a whole read places them."""
        self._built = _Converted(1)
        self._active: tuple[int, int] | None = None
        """``(skip, its first active line)``, once the file holds that many lines."""
        self._scan: _SkipScan | None = None
        """How far the search for the skip's line got, while the file holds fewer lines."""
        self.source: Source | None = None
        """The source being read whole, if so; a read as it grows opens the file again."""

    dropped: ClassVar[int] = 0
    """No token count is read from a PicoClaw line."""

    @staticmethod
    def follows(source: Source) -> bool:
        """Only a JSONL file is read as it grows (not a directory, a legacy JSON or a DB)."""
        path = source.path
        return path.suffix == ".jsonl" and source.magic(16) != SQLITE_MAGIC

    def add(self, records: Iterable[Record]) -> None:
        for record in records:
            self.records.append(record)
            self.said.append(len(self.warnings))

    def changed_from(self) -> int:
        """The first message that may differ from the session built before: any (a
        changed ``skip`` moves every message)."""
        return 0

    def session(self, source_path: str | None, end_warnings: Iterable[str] = ()) -> Session:
        """The session of the lines added so far; ``end_warnings`` follow the reader's."""
        path = Path(source_path or "")
        warnings: list[str] = []
        meta = _read_meta(path, warnings)
        raw_skip = meta.get("skip")
        skip = raw_skip if isinstance(raw_skip, int) and raw_skip > 0 else 0
        first_active = self._first_active(path, skip)
        summary = meta.get("summary")
        summary = summary if isinstance(summary, str) else ""
        key = as_text(meta.get("key")) or None
        if self.full_history and skip:
            warnings.append(
                f"meta skip {skip:,}: the first {skip:,} lines are kept before the summary"
            )
            notes = self._convert(1).placed(self.warnings)
            warnings += [*notes, *end_warnings]
            return self._history(warnings, _Stored(str(path), key), first_active, summary)
        warnings += [*self.warnings, *end_warnings]
        if skip:
            warnings.append(
                f"meta skip {skip:,}: the first {skip:,} lines are no longer active history"
            )
        stored = _Stored(str(path), key, summary or None, skip)
        return self._convert(first_active).session(warnings, stored)

    def _history(
        self, warnings: list[str], stored: _Stored, first_active: int, summary: str
    ) -> Session:
        whole = self._convert(1).session(warnings, stored, placed=True)
        messages = list(whole.messages)
        at = next(
            (i for i, m in enumerate(messages) if (m.source_line or 0) >= first_active),
            len(messages),
        )
        if summary:
            messages.insert(
                at, Message(role="user", content=summary, is_summary=True, injected=True)
            )
        recorded = RecordedCompaction(message_index=at, source_line=first_active)
        update = {"recorded_compactions": (recorded,), "full_history": True}
        return Session(messages=tuple(messages), meta=whole.meta.model_copy(update=update))

    def _convert(self, first_active: int) -> _Converted:
        """The lines from ``first_active`` on converted, those added since the last call
        alone."""
        if self._built.first_active != first_active:
            self._built = _Converted(first_active)
        built = self._built
        for record, said in zip(self.records[built.done :], self.said[built.done :], strict=True):
            built.add(record, said)
        built.done = len(self.records)
        return built

    def _first_active(self, path: Path, skip: int) -> int:
        """The line where active history starts (``_line_after_skip``), found once the file
        holds ``skip`` lines: an append does not move it."""
        if not skip:
            return 1
        if self._active is not None and self._active[0] == skip:
            return self._active[1]
        if self.source is not None:
            line, found, scan = _line_after_skip(self.source, skip, self._scan)
        else:
            with open_file(path) as source:
                line, found, scan = _line_after_skip(source, skip, self._scan)
        if found:
            self._active = (skip, line)
        else:
            self._scan = scan  # the next search goes on from the last complete line
        return line


@dataclass
class _Converted:
    """PicoClaw lines from ``first_active`` on, converted one at a time (``build_session``'s
    rule, transient thought lines dropped as PicoClaw does)."""

    first_active: int
    done: int = 0
    messages: list[Message] = field(default_factory=list)
    notes: list[tuple[int, str]] = field(default_factory=list)
    """Each note on a line, after how many of the reader's warnings it came."""
    tool_names: dict[str, str] = field(default_factory=dict)
    transient: int = 0

    def add(self, record: Record, said: int = 0) -> None:
        if record.line < self.first_active:
            return
        value = record.value
        if not isinstance(value, dict) or tag(value, "role") not in ROLES:
            self.notes.append((said, f"line {record.line:,}: not a PicoClaw message, skipped"))
            return
        if _is_transient(value):
            self.transient += 1
            return
        message = message_from_line(value, record.line or None, self.tool_names)
        for call in message.tool_calls:
            self.tool_names[call.id] = call.name
        self.messages.append(message)

    def placed(self, reader: list[str]) -> list[str]:
        """The reader's warnings with the notes among them, each after those before its line."""
        out: list[str] = []
        taken = 0
        for said, note in self.notes:
            out += reader[taken:said]
            taken = max(taken, said)
            out.append(note)
        return out + reader[taken:]

    def session(self, warnings: list[str], stored: _Stored, *, placed: bool = False) -> Session:
        """The session of the lines converted; their notes follow ``warnings`` unless they
        were ``placed`` among them already."""
        notes = [*warnings] if placed else [*warnings, *(note for _, note in self.notes)]
        if self.transient:
            notes.append(f"{self.transient:,} transient thought lines dropped (reasoning only)")
        return _session(self.messages, notes, stored)


def _read_meta(path: Path, warnings: list[str]) -> dict[str, Any]:
    meta_path = _meta_path(path)
    if not meta_path.is_file():
        warnings.append(f"no {meta_path.name} beside the session: skip and summary unknown")
        return {}
    try:
        meta = read_json_file(meta_path)
    except SessionLoadError as exc:
        warnings.append(f"{meta_path.name} ignored: {exc.problem}")
        return {}
    return dict(meta) if isinstance(meta, dict) else {}


@dataclass(frozen=True, slots=True)
class _SkipScan:
    """How far a search for the skip's line got: the complete lines up to ``offset``, the
    last numbered ``number``, of which ``seen`` held something."""

    skip: int
    offset: int = 0
    seen: int = 0
    number: int = 0


def _line_after_skip(
    source: Source, skip: int, scan: _SkipScan | None = None
) -> tuple[int, bool, _SkipScan]:
    """The physical line where active history starts: ``skip`` counts non-empty lines only;
    with whether the file held that many (else the line after its last), and how far the
    search got, to go on from (``scan``, of the same ``skip``) once the file grew."""
    scan = scan if scan is not None and scan.skip == skip else _SkipScan(skip)
    seen, number, kept = scan.seen, scan.number, scan
    with source.stream(scan.offset) as fh:  # bounded lines: a line too long still counts
        for number, raw, complete in numbered_lines(fh, first=scan.number):
            if raw is None or raw.strip():
                seen += 1
                if seen == skip:
                    return number + 1, True, kept
            if complete:
                kept = _SkipScan(skip, fh.tell(), seen, number)
    return number + 1, False, kept


# --- legacy JSON --------------------------------------------------------------------


def load_legacy(source: Source) -> Session:
    """``{key, messages, summary, created, updated}``: written before the JSONL store."""
    path = source.path
    value = read_json(source)
    if not isinstance(value, dict) or not isinstance(value.get("messages"), list):
        raise SessionLoadError(
            str(path), f"expected a PicoClaw session with messages[], found {json_kind(value)}"
        )
    warnings: list[str] = []
    records = [Record(0, m) for m in value["messages"]]
    summary = value.get("summary") if isinstance(value.get("summary"), str) else ""
    stored = _Stored(str(path), as_text(value.get("key")) or None, summary or None)
    session = build_session(records, warnings, stored)
    messages = tuple(m.model_copy(update={"source_line": None}) for m in session.messages)
    return session.model_copy(update={"messages": messages})


# --- shared message conversion ------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Stored:
    """What the store says of a session beside its message lines: the file's path, the
    session's key (its title), the summary it carries and how many lines the meta's skip hid."""

    source_path: str
    title: str | None
    summary: str | None = None
    hidden: int = 0


def build_session(records: Iterable[Record], warnings: list[str], stored: _Stored) -> Session:
    """PicoClaw message lines → a ``Session``; transient thought lines are dropped as PicoClaw does.

    Orphan tool results (their call was skipped) are kept: the session reports them.
    """
    converted = _Converted(0)
    for record in records:
        converted.add(record)
    return converted.session(warnings, stored)


def _session(messages: list[Message], warnings: list[str], stored: _Stored) -> Session:
    model = next((m.model for m in reversed(messages) if m.model), None)
    meta = SessionMeta(
        source_path=stored.source_path,
        format=FORMAT.name,
        model=model,
        title=stored.title,
        summary=stored.summary,
        hidden_messages=stored.hidden,
        warnings=tuple(warnings),
    )
    return Session(messages=tuple(messages), meta=meta)


def _is_transient(value: Mapping[str, Any]) -> bool:
    """An assistant line with only reasoning: PicoClaw filters these on read and write."""
    return (
        value.get("role") == "assistant"
        and bool(value.get("reasoning_content"))
        and not value.get("content")
        and not value.get("tool_calls")
        and not value.get("media")
        and not value.get("tool_call_id")
    )


def message_from_line(
    value: Mapping[str, Any], line: int | None, tool_names: Mapping[str, str]
) -> Message:
    """One PicoClaw message object (JSONL line or legacy entry) → a ``Message``."""
    content = as_text(value.get("content"))
    calls: list[ToolCall] = []
    opaque: list[ContentPart] = []
    raw_calls = value.get("tool_calls")
    for raw in raw_calls if isinstance(raw_calls, list) else ():
        if not isinstance(raw, dict):
            continue
        function = raw.get("function")
        if not isinstance(function, dict):
            function = {}
        calls.append(
            ToolCall(
                id=as_text(raw.get("id")),
                name=as_text(function.get("name")),
                arguments=as_text(function.get("arguments")),
                type=as_text(raw.get("type")) or "function",
            )
        )
        if function.get("thought_signature"):
            opaque.append(opaque_part(function["thought_signature"], "thought_signature"))
    media = media_parts(value.get("media"), value.get("attachments"))
    parts: tuple[ContentPart, ...] = ()
    if media or opaque:
        parts = ((text_part(content),) if content else ()) + tuple(media) + tuple(opaque)
    role = value["role"]
    call_id = value.get("tool_call_id")
    model = value.get("model_name")
    return Message(
        role=role,
        content=content,
        parts=parts,
        tool_calls=tuple(calls),
        tool_call_id=as_text(call_id) if call_id else None,
        tool_name=tool_names.get(as_text(call_id)) if call_id else None,
        reasoning=as_text(value.get("reasoning_content")),
        created_at=parse_timestamp(value.get("created_at")),
        model=model if isinstance(model, str) and model else None,
        source_line=line,
    )


def media_parts(media: Any, attachments: Any = None) -> list[ContentPart]:
    """``media://`` references (no bytes on disk): one part each, at PicoClaw's flat estimate."""
    types: dict[str, str] = {}
    if isinstance(attachments, list):
        for item in attachments:
            if isinstance(item, dict) and item.get("ref"):
                types[as_text(item["ref"])] = as_text(item.get("content_type"))
    refs = [as_text(m) for m in media] if isinstance(media, list) else []
    refs += [r for r in types if r not in refs]
    return [media_part(ref, types.get(ref) or None) for ref in refs]


SQLITE_TABLES = frozenset({"context_items", "message_parts"})
"""The tables of PicoClaw's seahorse database, by which detection knows it."""


def path_hint(path: Path) -> bool:
    """``seahorse.db``, a ``.meta.json``, a JSONL beside its meta, or anything under
    ``.picoclaw/…/sessions``."""
    name, parts = path.name, path.parts
    if name == "seahorse.db" or name.endswith(".meta.json"):
        return True
    if name.endswith(".jsonl") and path.with_name(name[: -len(".jsonl")] + ".meta.json").exists():
        return True
    return ".picoclaw" in parts and "sessions" in parts


def is_session_dir(path: Path) -> bool:
    """A PicoClaw sessions directory: it holds a meta file, or it is ``.picoclaw/…/sessions``."""
    return any(path.glob("*.meta.json")) or (path.name == "sessions" and ".picoclaw" in path.parts)


# --- the store: $PICOCLAW_HOME/workspace/sessions (docs/formats.md) -------------------------


def _fill(found: FoundSession) -> FoundSession:
    meta_path = found.path.with_name(found.path.stem + ".meta.json")
    if not meta_path.is_file():
        return found
    meta = read_small_json(meta_path)
    if not isinstance(meta, dict):
        return found
    scope = meta.get("scope")
    channel = text(scope.get("channel")) if isinstance(scope, dict) else None
    return replace(found, started=when(meta.get("created_at")), project=channel)


def list_store(walk: StoreWalk, directory: Path) -> Iterator[FoundSession]:
    """The JSONL sessions (with their meta), the legacy JSON ones and the seahorse database."""
    for file in walk.files(directory, "*.jsonl"):
        yield guard(stat_entry(FORMAT.name, file), _fill)
    for file in walk.files(directory, "*.json"):
        if not file.name.endswith(".meta.json"):
            yield stat_entry(FORMAT.name, file)
    for seahorse in walk.files(directory, "seahorse.db"):
        yield stat_entry(FORMAT.name, seahorse)
