"""Codex CLI rollout files: ``{timestamp, type, payload}`` JSONL and the 2025 legacy layout."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, ClassVar

import msgspec

from ctxtui.core.policies.windows import codex_window
from ctxtui.core.session.formats import FormatInfo, format_info
from ctxtui.core.session.import_notes import EARLIER_UNREAD
from ctxtui.core.session.models import (
    ContentPart,
    Message,
    PartKind,
    RecordedCompaction,
    Session,
    SessionMeta,
    ToolCall,
    Usage,
)
from ctxtui.core.wording import plural
from ctxtui.importers._jsonl import (
    TAIL_BYTES,
    Cursor,
    Record,
    iter_records,
    names_every_tool_result,
    read_tail,
    tail_cursor,
)
from ctxtui.importers._parts import (
    HOISTED,
    as_int,
    as_label,
    as_text,
    compact_json,
    join_text,
    opaque_part,
    quoted,
    responses_part,
    short_text,
    tag,
    text_part,
    usage_codex,
)
from ctxtui.importers._reader import loads_field
from ctxtui.importers._store_files import (
    FoundSession,
    StoreWalk,
    guard,
    head_records,
    stat_entry,
    text,
    when,
)
from ctxtui.importers._stream import Dropped, Source
from ctxtui.importers._timestamps import parse_timestamp

FORMAT: FormatInfo = format_info("codex")

ENVELOPE_TYPES = frozenset({"session_meta", "response_item", "event_msg", "turn_context"})
ITEM_TYPES = frozenset(
    {"message", "reasoning", "function_call", "function_call_output", "custom_tool_call",
     "custom_tool_call_output", "local_shell_call", "web_search_call", "compaction",
     "compaction_summary", "context_compaction"}
)  # fmt: skip
INJECTED_PREFIXES = (
    "<environment_context>",
    "<user_instructions>",
    "# AGENTS.md",
    "<permissions instructions>",
    "<developer_instructions>",
    "<user_shell_command>",
)
"""Harness-written context that arrives as user/developer messages: real tokens, not typing."""


class Info(msgspec.Struct, frozen=True):
    """What a ``token_count`` event's ``info`` holds that is read (the running totals and
    the rate limits beside it are skipped unbuilt)."""

    model_context_window: Any = None
    last_token_usage: Any = None


class Item(msgspec.Struct, frozen=True):
    """The fields of a rollout line, of its ``payload`` and of a legacy bare response item
    that the importer reads; whatever else a line holds (``event_msg`` mirrors of the
    messages, rate limits, the running totals) is skipped by the parser without being built.

    Every field takes any JSON value, ``None`` when absent (as a dict's ``get`` would say),
    except the two whose absence is read: ``instructions`` (a legacy header) and ``action``
    (``{}`` when absent), ``UNSET`` then. An item of a ``replacement_history`` (plain JSON)
    is converted to one (``_as_item``), so the readers below take ``Item`` alone.
    """

    type: Any = None
    timestamp: Any = None
    payload: _Payload = None
    record_type: Any = None
    id: Any = None
    session_id: Any = None
    instructions: Any = msgspec.UNSET
    base_instructions: Any = None
    model: Any = None
    role: Any = None
    content: Any = None
    summary: Any = None
    encrypted_content: Any = None
    name: Any = None
    namespace: Any = None
    arguments: Any = None
    input: Any = None
    call_id: Any = None
    action: Any = msgspec.UNSET
    output: Any = None
    message: Any = None
    replacement_history: Any = None
    info: _Info = None
    num_turns: Any = None


_Payload = Item | str | int | float | bool | list[Any] | None
_Info = Info | str | int | float | bool | list[Any] | None


def _as_item(value: dict[str, Any]) -> Item:
    """A plain JSON object (an item of a replacement history) as the decoder would give it;
    every field takes any value, so this cannot fail."""
    return msgspec.convert(value, Item)


def sniff(path: Path, head: Any) -> int:
    """Confidence that ``path`` is a Codex rollout, from its first record."""
    if not isinstance(head, dict):
        return 0
    if tag(head) in ENVELOPE_TYPES | {"compacted"} and isinstance(head.get("payload"), dict):
        return 95
    if head.get("record_type") == "state":
        return 85
    if "type" not in head and "id" in head and "timestamp" in head and "instructions" in head:
        return 85
    return 0


def load(source: Source) -> Session:
    """Read a rollout as the history Codex would replay now (compactions and rollbacks applied)."""
    return _read(source, full_history=False)


def load_history(source: Source) -> Session:
    """Read every message of a rollout, keeping what each ``compacted`` replaced (for replay)."""
    return _read(source, full_history=True)


OPENING_RECORDS = 100
"""The most records ``load_tail`` takes as the rollout's opening (its session_meta and first
turn_context, with the events between): what comes before the first response item."""


def load_tail(source: Source, budget: int = TAIL_BYTES) -> Session | None:
    """The session ``load`` reads, from the rollout's opening records and its last ``budget``
    bytes (up to 16 times more) when they hold its last ``compacted`` record: from there on
    the history is that record's replacement and what followed. For a first screen before
    the whole read (the app).

    The model is the last ``turn_context``'s before the compaction: in the tail, else found
    by searching the part not read for its name, else the opening one's. Only the last
    compaction's event is said, and that the earlier part is still being read; warnings are
    the tail's. ``None`` for a short or compressed file, when no tail up to 16 budgets holds
    a compaction with its replacement history, or when a tool output's call came before it.
    """
    head, after = _opening(source)

    def at(src: Source, offset: int) -> Session | None:
        return _tail_session(src, offset, head, after)

    return read_tail(source, budget, b"compacted", at)


def _opening(source: Source) -> tuple[list[Record], int]:
    """The records before the rollout's first response item (at most ``OPENING_RECORDS``),
    read as a whole read reads them, and the byte where the lines after them start."""
    cursor = Cursor(final=True)
    opening: list[Record] = []
    for record in iter_records(source, [], cursor=cursor, typed=Item):
        value = record.value
        kind = value.type if isinstance(value, Item) else None
        if kind not in ("session_meta", "turn_context", "event_msg"):
            break
        opening.append(record)
        if len(opening) >= OPENING_RECORDS:
            break
    return opening, cursor.offset


_UNSURE = object()
_LINE_WINDOW = 1 << 20


def _last_context(source: Source, start: int, stop: int) -> Record | object | None:
    """The last ``turn_context`` record in bytes ``[start, stop)``, found by searching back
    for its name; ``None`` when there is none, ``_UNSURE`` when a line that names it cannot
    be read as one (too long, not JSON): the tail then gives no first look."""
    marker = b"turn_context"
    end = stop
    while end > start:
        lo = max(start, end - _LINE_WINDOW)
        chunk = source.read_at(end - lo, lo)
        k = chunk.rfind(marker)
        if k < 0:
            if lo == start:
                return None
            end = lo + len(marker) - 1  # the next window back overlaps this one by a marker
            continue
        begin = chunk.rfind(b"\n", 0, k) + 1
        finish = chunk.find(b"\n", k)
        if (begin == 0 and lo > start) or finish < 0:
            return _UNSURE  # a line longer than the window: no turn_context is
        try:
            value = msgspec.json.decode(chunk[begin:finish], type=Item)
        except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
            return _UNSURE
        if value.type == "turn_context":
            return Record(0, value)
        end = lo + begin  # the name stood in another record: look before it
    return None


def _tail_session(source: Source, offset: int, opening: list[Record], after: int) -> Session | None:
    cursor = tail_cursor(source, offset)
    if cursor is None:
        return None
    warnings: list[str] = []
    start = cursor.offset  # the read moves the cursor on to the end
    records = list(iter_records(source, warnings, cursor=cursor, typed=Item))
    kinds = [r.value.type if isinstance(r.value, Item) else None for r in records]
    last = max((k for k, kind in enumerate(kinds) if kind == "compacted"), default=None)
    if last is None:
        return None
    compacted = records[last].value
    assert isinstance(compacted, Item)
    payload = compacted.payload
    if not isinstance(payload, Item) or not isinstance(payload.replacement_history, list):
        return None  # the whole read rebuilds one from what came before
    context = [records[k] for k in range(last) if kinds[k] == "turn_context"][-1:]
    if not context:  # the model in force at the compaction: the last turn_context before it
        found = _last_context(source, after, start)
        if found is _UNSURE:
            return None
        context = [found] if isinstance(found, Record) else []
    live = Live(warnings=warnings)
    live.add(r for r in opening if r.line < records[0].line)
    live.add(context)
    live.add(records[last:])
    session = live.session(source.name, cursor.end_warnings())
    if not names_every_tool_result(session):
        return None
    note = f"compacted at line {records[last].line:,}: {EARLIER_UNREAD}"
    return session.model_copy(update={"meta": session.meta.model_copy(update={"events": (note,)})})


def _read(source: Source, *, full_history: bool) -> Session:
    """The rollout replayed from its lines, each decoded into an ``Item``."""
    live = Live(full_history=full_history, dropped=source.dropped)
    live.add(iter_records(source, live.warnings, typed=Item))
    return live.session(source.name)


BEFORE = -1
"""``_Replay.usage_target`` of a part read on its own when the message a usage report
would describe lies before it (``_codex_settled``)."""


@dataclass
class _Replay:
    """The history as Codex rebuilds it, one rollout record at a time."""

    warnings: list[str]
    dropped: Dropped
    _messages: list[Message] = field(default_factory=list)
    _open: dict[str, Any] | None = None
    """The open assistant message's fields, the last message but not yet a ``Message``: its
    pieces and its usage are folded in here, and it is built once something reads
    ``messages``, instead of being copied for every piece."""
    low: int = 0
    """The first message added or changed since ``low`` was last reset."""
    open_assistant: bool = False  # the last message may still take reasoning/text/calls
    system_prompt: str | None = None
    session_id: str | None = None
    model: str | None = None
    context_window: int | None = None
    tool_names: dict[str, str] = field(default_factory=dict)
    skipped_types: dict[str, int] = field(default_factory=dict)
    usage_target: int | None = None  # the assistant message the next token_count describes
    full_history: bool = False  # a ``compacted`` appends its summary instead of replacing
    compactions: list[RecordedCompaction] = field(default_factory=list)
    events: list[str] = field(default_factory=list)  # each ``compacted`` in words, file order
    reached_back: bool = False
    """A record changed or read what came before the part replayed (a usage report for
    ``BEFORE``, a rollback, a compaction that rebuilds from it or takes its size from it): a
    read of an appended part alone gives up."""

    @property
    def messages(self) -> list[Message]:
        """Every message so far, the open assistant's built first."""
        if self._open is not None:  # its values made here (``assistant``): trusted
            self._messages.append(Message.trusted_from(self._open))
            self._open = None
        return self._messages

    @messages.setter
    def messages(self, value: list[Message]) -> None:
        """Replace every message, the open assistant's included."""
        self._messages, self._open = value, None

    def count(self) -> int:
        """``len(messages)``, without building the open assistant's message."""
        return len(self._messages) + (self._open is not None)

    def add(self, message: Message) -> None:
        self.low = min(self.low, self.count())
        self.messages.append(message)
        self.open_assistant = False

    def assistant(self, line: int, **update: Any) -> None:
        """Fold reasoning, text and calls into one assistant message, as a Chat API would."""
        last_built = self._messages[-1] if self._open is None and self._messages else None
        if self.open_assistant and last_built is not None and last_built.role == "assistant":
            self._open = dict(self._messages.pop())  # built meanwhile (a read): open it again
        fields = self._open
        if self.open_assistant and fields is not None:
            for key in ("content", "reasoning"):
                fields[key] = "\n".join(t for t in (fields.get(key, ""), update.get(key, "")) if t)
            for key in ("parts", "tool_calls"):
                fields[key] = tuple(fields.get(key, ())) + tuple(update.get(key, ()))
            self.low = min(self.low, len(self._messages))
        else:
            self.low = min(self.low, len(self.messages))
            self._open = {"role": "assistant", "model": self.model, "source_line": line, **update}
            self.open_assistant = True
        self.usage_target = self.count() - 1

    def report_usage(self, target: int, usage: Usage) -> None:
        """Set the usage of message ``target`` (the open assistant's, usually)."""
        if self._open is not None and target == len(self._messages):
            self._open["usage"] = usage
        else:
            message = self._messages[target]
            self._messages[target] = message.model_copy(update={"usage": usage})
        self.low = min(self.low, target)


class Live:
    """A rollout replayed as it grows (``--watch``): Codex rebuilds its history one record at
    a time, so records appended later are replayed alone, onto the state the earlier left."""

    RECORD: ClassVar[type[Item]] = Item
    """What ``iter_records`` decodes each line into for this importer."""

    def __init__(
        self,
        *,
        full_history: bool = False,
        warnings: list[str] | None = None,
        dropped: Dropped | None = None,
        turns: bool = False,
    ) -> None:
        self.warnings: list[str] = [] if warnings is None else warnings
        """The reader's and the replay's warnings, in file order."""
        self.replay = _Replay(self.warnings, dropped or Dropped(), full_history=full_history)
        self.turns = turns
        """Whether the records since the last user prompt are kept (a read to settle)."""
        self.turn: list[Record] = []
        """The records since the last user prompt, that one first (``_codex_settled``)."""
        self.turn_start: TurnStart | None = None

    @property
    def dropped(self) -> int:
        return self.replay.dropped.count

    def changed_from(self) -> int:
        """The first message that may differ from the session built before (then from now)."""
        low, self.replay.low = self.replay.low, len(self.replay.messages)
        return low

    def add(self, records: Iterable[Record]) -> None:
        replay = self.replay
        for record in records:
            value = record.value
            if not isinstance(value, Item) or value.record_type == "state":
                continue
            kind = value.type if isinstance(value.type, str) else None
            payload = value.payload
            if not self.turns:
                self._dispatch(record, value, kind, payload)
                continue
            said = _user_says(kind, value, payload)
            self._dispatch(record, value, kind, payload)
            if said and _prompt(replay, record):
                # a user message leaves the model, window and usage target as they were
                state = TurnStart(replay.model, replay.context_window, replay.usage_target)
                self.turn, self.turn_start = [record], state
            elif self.turn_start is not None:
                self.turn.append(record)
                if len(self.turn) > TURN_RECORDS:
                    self.turn, self.turn_start = [], None

    def _dispatch(self, record: Record, value: Item, kind: str | None, payload: Any) -> None:
        """One record replayed: an envelope, a legacy bare item, or a legacy header."""
        replay = self.replay
        if kind in _ENVELOPES and isinstance(payload, Item):
            _envelope(replay, record, kind, payload, value.timestamp)
        elif kind in ITEM_TYPES:
            _item(replay, record, value, None)  # legacy: a bare response item
        elif kind is None and value.instructions is not msgspec.UNSET and replay.session_id is None:
            replay.session_id = as_text(value.id) or None
            instructions = value.instructions
            replay.system_prompt = (
                instructions if isinstance(instructions, str) and instructions else None
            )
        elif isinstance(kind, str):
            replay.skipped_types[kind] = replay.skipped_types.get(kind, 0) + 1

    def session(self, source_path: str | None, end_warnings: Iterable[str] = ()) -> Session:
        """The session replayed so far; ``end_warnings`` follow the reader's."""
        replay = self.replay
        warnings = [*self.warnings, *end_warnings]
        if replay.skipped_types:
            found = sorted(replay.skipped_types.items())
            listed = ", ".join(f"{short_text(k)} ×{n:,}" for k, n in found)
            warnings.append(f"record types not read: {listed}")
        meta = SessionMeta(
            source_path=source_path,
            format=FORMAT.name,
            model=replay.model,
            context_window=codex_window(replay.context_window, replay.model),
            warnings=tuple(warnings),
            events=tuple(replay.events),
            recorded_compactions=tuple(replay.compactions),
            full_history=replay.full_history,
        )
        # The messages are validated as they are made: set, not validated again.
        session = Session(system_prompt=replay.system_prompt, meta=meta)
        return session.model_copy(update={"messages": tuple(replay.messages)})


@dataclass(frozen=True, slots=True)
class TurnStart:
    """The replay's state just before the last user prompt was read."""

    model: str | None
    context_window: int | None
    usage_target: int | None


def _user_says(kind: str | None, value: Item, payload: Any) -> bool:
    """Whether a record is a user's message (wrapped, or a legacy bare item)."""
    item = payload if kind == "response_item" and isinstance(payload, Item) else value
    return (
        (kind == "response_item" or kind == "message")
        and item.type == "message"
        and (item.role == "user")
    )


def _prompt(replay: _Replay, record: Record) -> bool:
    """Whether ``record`` made the last message, a user prompt (not injected, no summary)."""
    last = replay._messages[-1] if replay._open is None and replay._messages else None
    return (
        last is not None
        and last.source_line == record.line
        and last.role == "user"
        and not last.injected
        and not last.is_summary
    )


TURN_RECORDS = 50_000
"""The most records a turn is kept for (``Live.turn``): a longer one settles nowhere."""


_ENVELOPES = ENVELOPE_TYPES | {"compacted"}


def _envelope(replay: _Replay, record: Record, kind: str, payload: Item, timestamp: Any) -> None:
    if kind == "session_meta":
        _session_meta(replay, record, payload)
    elif kind == "turn_context":
        model = payload.model
        if isinstance(model, str) and model:
            replay.model = model
    elif kind == "response_item":
        _item(replay, record, payload, timestamp)
    elif kind == "compacted":
        _compacted(replay, record, payload)
    elif kind == "event_msg":
        _event(replay, record, payload)


def _session_meta(replay: _Replay, record: Record, payload: Item) -> None:
    """The first ``session_meta`` is this session; a later one is a fork's replayed parent."""
    session_id = as_label(payload.id or payload.session_id)
    if replay.session_id is not None:
        replay.warnings.append(
            f"line {record.line:,}: a second session_meta ({session_id or 'no id'}; a fork or "
            "subagent replaying its parent) was ignored; its items are read as this history"
        )
        return
    replay.session_id = session_id or None
    base = payload.base_instructions
    text = base.get("text") if isinstance(base, dict) else payload.instructions
    replay.system_prompt = text if isinstance(text, str) and text else None


def _item(replay: _Replay, record: Record, item: Item, timestamp: Any) -> None:
    """One response item (what the model sees) → messages."""
    kind = item.type
    when = parse_timestamp(timestamp)
    line = record.line
    if kind == "message":
        _message(replay, line, item, when)
    elif kind == "reasoning":
        texts = [as_text(s.get("text")) for s in _dicts(item.summary)]
        if not texts:
            texts = [as_text(c.get("text")) for c in _dicts(item.content)]
        blob = item.encrypted_content
        parts = (opaque_part(blob, "reasoning.encrypted_content"),) if blob else ()
        replay.assistant(line, reasoning="\n".join(texts), parts=parts, created_at=when)
    elif kind in ("function_call", "custom_tool_call", "local_shell_call", "web_search_call"):
        call = _tool_call(item, line)
        replay.tool_names[call.id] = call.name
        replay.assistant(line, tool_calls=(call,), created_at=when)
    elif kind in ("function_call_output", "custom_tool_call_output"):
        replay.add(_tool_output(replay, line, item, when))
    elif kind in ("compaction", "compaction_summary", "context_compaction"):
        blob = item.encrypted_content
        part = opaque_part(blob or "", f"{kind}.encrypted_content")
        replay.add(
            Message(role="user", parts=(part,), is_summary=True, created_at=when, source_line=line)
        )
    elif isinstance(kind, str):
        replay.skipped_types[kind] = replay.skipped_types.get(kind, 0) + 1


def _dicts(value: Any) -> list[dict[str, Any]]:
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def _content_parts(content: Any) -> list[ContentPart]:
    """Responses content parts → parts (``responses_part``); unknown types are dropped."""
    if isinstance(content, str):
        return [text_part(content)]
    return [p for block in _dicts(content) if (p := responses_part(block)) is not None]


def _message(replay: _Replay, line: int, item: Item, when: Any) -> None:
    role = item.role
    parts = _content_parts(item.content)
    text = join_text(parts)
    only_text = all(p.kind is PartKind.TEXT for p in parts)
    kept = () if only_text and len(parts) <= 1 else tuple(parts)
    if role == "assistant":
        replay.assistant(line, content=text, parts=kept, created_at=when)
        return
    if role not in ("user", "developer", "system"):
        key = "message/" + (role if isinstance(role, str) else quoted(role))
        replay.skipped_types[key] = replay.skipped_types.get(key, 0) + 1
        return
    injected = role != "system" and text.lstrip().startswith(INJECTED_PREFIXES)
    replay.add(
        Message.trusted_from(
            {
                "role": role,
                "content": text,
                "parts": kept,
                "injected": injected,
                "created_at": when,
                "source_line": line,
            }
        )
    )


def _tool_call(item: Item, line: int) -> ToolCall:
    kind = item.type
    call_id = as_text(item.call_id or item.id) or f"{kind}@{line}"
    if kind == "function_call":
        name = as_text(item.name)
        namespace = item.namespace
        if isinstance(namespace, str) and namespace:
            name = f"{namespace}.{name}"
        return ToolCall.trusted_from(
            {"id": call_id, "name": name, "arguments": as_text(item.arguments)}
        )
    if kind == "custom_tool_call":
        return ToolCall.trusted(
            id=call_id, name=as_text(item.name), arguments=as_text(item.input), type="custom"
        )
    name = "local_shell" if kind == "local_shell_call" else "web_search"
    action = {} if item.action is msgspec.UNSET else item.action
    return ToolCall.trusted(id=call_id, name=name, arguments=compact_json(action))


def _tool_output(replay: _Replay, line: int, item: Item, when: Any) -> Message:
    """A call's output, whatever JSON value it is: the string the model saw is kept verbatim."""
    call_id = as_text(item.call_id)
    output = item.output
    parts: tuple[ContentPart, ...] = ()
    is_error = False
    if isinstance(output, list):
        parts = tuple(_content_parts(output))
        text = join_text(parts)
    elif isinstance(output, dict) and "content" in output:
        text = as_text(output.get("content"))  # very old {content, success}
        is_error = output.get("success") is False
    else:
        text = as_text(output)
        is_error = _shell_failed(text)
    return Message.trusted_from(
        {
            "role": "tool",
            "content": text,
            "parts": parts,
            "tool_call_id": call_id,
            "tool_name": replay.tool_names.get(call_id),
            "is_error": is_error,
            "created_at": when,
            "source_line": line,
        }
    )


def _shell_failed(text: str) -> bool:
    """Old shell outputs are JSON strings with ``metadata.exit_code``; non-zero is a failure."""
    if not text.startswith("{") or '"exit_code"' not in text:
        return False
    try:
        value = loads_field(text)
    except ValueError:
        return False
    metadata = value.get("metadata") if isinstance(value, dict) else None
    code = metadata.get("exit_code") if isinstance(metadata, dict) else None
    return isinstance(code, int) and code != 0


NO_REPLACEMENT = "no replacement history"
"""How a compaction's event begins when Codex wrote no replacement history: the normal read
then rebuilds one that the full history does not hold."""


def shown_from(history: Session) -> Session | None:
    """The session ``load`` reads, cut from what ``load_history`` read of the same file, so a
    command that needs both reads the file once; ``None`` where the cut could differ.

    From the last compaction on, the history holds what the normal read does: the
    replacement history Codex wrote, then what followed. Not where a compaction had no
    replacement history (the normal read rebuilds one), nor with warnings (lines skipped,
    counts dropped) that the normal read's words may place differently.
    """
    meta = history.meta
    recorded = meta.recorded_compactions
    if not recorded:
        return history.model_copy(update={"meta": meta.model_copy(update={"full_history": False})})
    if meta.warnings or any(NO_REPLACEMENT in e for e in meta.events):
        return None
    last = recorded[-1]
    start = last.message_index
    if not 0 <= start < len(history) or history.messages[start].role in HOISTED:
        return None  # the normal read would take a leading system message as the prompt
    kept = meta.model_copy(
        update={
            "full_history": False,
            "recorded_compactions": (last.model_copy(update={"message_index": 0}),),
        }
    )
    return history.model_copy(update={"messages": history.messages[start:], "meta": kept})


def _compacted(replay: _Replay, record: Record, payload: Item) -> None:
    """``replacement_history`` replaces everything before it; without it, rebuild as Codex did.

    In full-history mode nothing is replaced: what the model saw next (the replacement
    history, or the summary alone) is appended, and the compaction is recorded at it.
    """
    before = len(replay.messages)
    live = before - (replay.compactions[-1].message_index if replay.compactions else 0)
    reported = next((m.usage for m in reversed(replay.messages) if m.usage), None)
    summary = as_text(payload.message)
    history = payload.replacement_history
    if reported is None or not isinstance(history, list):
        replay.reached_back = True  # the last usage, or the messages to rebuild from, before
    pre = reported.prompt_total if reported is not None else None
    summary_message = Message(
        role="user", content=summary, is_summary=True, source_line=record.line
    )
    if isinstance(history, list):
        fresh = _Replay(
            replay.warnings, replay.dropped, model=replay.model, tool_names=replay.tool_names
        )
        for item in _dicts(history):
            _item(fresh, record, _as_item(item), None)
        replacement = [
            m.model_copy(update={"is_summary": True})
            if m.role == "user" and summary and m.content == summary
            else m
            for m in fresh.messages
        ]
        for kind, n in fresh.skipped_types.items():
            replay.skipped_types[kind] = replay.skipped_types.get(kind, 0) + n
        how = f"Codex's replacement history of {plural(len(replacement), 'message')}"
    elif replay.full_history:
        replacement = [summary_message]
        how = f"{NO_REPLACEMENT}: the summary follows"
    else:
        initial: list[Message] = []
        for m in replay.messages:
            if m.role == "user" and not m.injected:
                break
            initial.append(m)
        users = [m for m in replay.messages[len(initial) :] if m.role == "user" and not m.injected]
        replacement = [*initial, *users, summary_message]
        how = (
            f"{NO_REPLACEMENT}: rebuilt from the initial context, "
            f"{plural(len(users), 'user message')} and the summary (Codex's user-message budget is "
            "not reproduced)"
        )
    recorded = RecordedCompaction(message_index=0, pre_tokens=pre, source_line=record.line)
    if replay.full_history:
        replay.compactions.append(recorded.model_copy(update={"message_index": before}))
        replay.low = min(replay.low, len(replay.messages))
        replay.messages.extend(replacement)
    else:
        # the replacement starts the history afresh: earlier compactions are out of view
        replay.compactions = [recorded]
        replay.messages, replay.low = replacement, 0
    replay.open_assistant = False
    replay.usage_target = None
    # One wording for the event, whether the replay keeps the replaced messages or not: what
    # was live then (since the previous compaction's replacement) is what this one replaced.
    replaced = plural(live, "earlier message")
    note = f"compacted at line {record.line:,}: {replaced} replaced ({how})"
    if reported is not None and reported.prompt_total is not None:
        note += f"; last reported prompt before it: {reported.prompt_total:,} tokens"
    replay.events.append(note)


def _event(replay: _Replay, record: Record, payload: Item) -> None:
    """UI events are mirrors, except usage reports and rollbacks, which change what we show."""
    kind = payload.type
    if kind == "token_count":
        info = payload.info
        if not isinstance(info, Info):
            return  # rate limits only
        window = as_int(info.model_context_window, replay.dropped)
        if window:
            replay.context_window = window
        last = info.last_token_usage
        target = replay.usage_target
        if isinstance(last, dict) and target == BEFORE:
            replay.reached_back = True
        elif isinstance(last, dict) and target is not None and target < replay.count():
            replay.report_usage(target, usage_codex(last, replay.dropped))
    elif kind == "thread_rolled_back":
        _roll_back(replay, record, as_int(payload.num_turns, replay.dropped) or 0)


def _roll_back(replay: _Replay, record: Record, turns: int) -> None:
    """Drop the last ``turns`` user turns, as ``thread_rolled_back`` tells Codex to."""
    replay.reached_back = True
    starts = [i for i, m in enumerate(replay.messages) if m.role == "user" and not m.injected]
    if turns <= 0 or not starts:
        return
    cut = starts[-turns] if turns <= len(starts) else starts[0]
    dropped = len(replay.messages) - cut
    replay.messages, replay.low = replay.messages[:cut], min(replay.low, cut)
    replay.compactions = [c for c in replay.compactions if c.message_index < cut]
    replay.open_assistant = False
    replay.usage_target = None
    replay.warnings.append(
        f"line {record.line:,}: thread rolled back {plural(turns, 'turn')} "
        f"({plural(dropped, 'message')} dropped)"
    )


_ROLLOUT = re.compile(r"^rollout-.*\.jsonl(\.zst)?$")


def path_hint(path: Path) -> bool:
    """A file named like a rollout (``rollout-*.jsonl``, or ``.jsonl.zst``) is Codex's."""
    return _ROLLOUT.match(path.name) is not None


# --- the store: $CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl (docs/formats.md) ---------


def _fill(found: FoundSession) -> FoundSession:
    project = started = model = None
    for record in head_records(found.path):
        payload = record.get("payload")
        if record.get("_sketch"):
            payload = record  # a sketch holds the fields it found at every depth
        if not isinstance(payload, dict):
            continue
        if record.get("type") == "session_meta":
            project = project or text(payload.get("cwd"))
            started = started or when(payload.get("timestamp") or record.get("timestamp"))
        elif record.get("type") == "turn_context":
            model = model or text(payload.get("model"))
            project = project or text(payload.get("cwd"))
        if project and started and model:
            break
    return replace(found, project=project, started=started, model=model)


def list_store(walk: StoreWalk, root: Path) -> Iterator[FoundSession]:
    """The rollouts under ``sessions`` and ``archived_sessions``; a ``.zst`` beside its plain
    file is left out (Codex reads the plain sibling when both exist)."""
    files = walk.tree(root / "sessions", "rollout-*.jsonl*")
    files += walk.files(root / "archived_sessions", "rollout-*.jsonl*")
    plain = {f for f in files if f.name.endswith(".jsonl")}
    for file in sorted(files):
        if not file.name.endswith((".jsonl", ".jsonl.zst")):
            continue
        if file.name.endswith(".zst") and file.with_suffix("") in plain:
            continue
        yield guard(stat_entry(FORMAT.name, file), _fill)
