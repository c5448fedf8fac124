"""The session model: what an agent's model saw, as immutable pydantic objects.

Every importer turns its format into these types, and nothing else reaches the planner. The
shape is OpenAI Chat's (the common denominator) plus reasoning, typed content parts (an image
is counted as an image, never as its base64 text), reported usage and provenance flags.

Normalisation rules every importer follows, so the core never has to know the source format:

* tool results are always separate ``role="tool"`` messages with ``tool_call_id`` set, even
  where the source nests them in a user message (Anthropic, Claude Code) or in the same part as
  the call (OpenCode);
* ``content`` is the text the model saw, with text parts joined by ``"\\n"``; ``parts`` lists
  the parts in order when the source had parts (empty when the content was a plain string);
* opaque blobs (encrypted reasoning, signatures) are ``PartKind.OPAQUE`` parts carrying only
  their byte size; they are never text.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from functools import cached_property
from typing import Any, Literal, Self

from pydantic import BaseModel, ConfigDict, Field

Role = Literal["system", "developer", "user", "assistant", "tool"]
ROLES: tuple[Role, ...] = ("system", "developer", "user", "assistant", "tool")


class _Frozen(BaseModel):
    """Base of every session type: immutable, strict about unknown fields."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    @classmethod
    def trusted(cls, **fields: Any) -> Self:
        """An instance of values already of the field's types, made without validation.

        For an importer's hot loop, whose values it made itself (strings, ints, tuples of
        these types): validating each was a quarter of reading a large transcript. Equal to
        ``cls(**fields)`` for such values; anything read from outside is still validated
        where it is checked (``cls(...)``).
        """
        return cls.trusted_from(fields)

    @classmethod
    def trusted_from(cls, fields: Mapping[str, Any]) -> Self:
        """``trusted`` with the fields in one mapping, which is copied: where an importer
        has them as a dict already, keywords would pack and unpack them again (about half
        the cost of the call)."""
        made = _new(cls)
        values = (_DEFAULTS.get(cls) or _defaults(cls)).copy()
        values.update(fields)
        _set(made, "__dict__", values)
        _set(made, "__pydantic_fields_set__", set(fields))
        _set(made, "__pydantic_extra__", None)
        _set(made, "__pydantic_private__", None)
        return made


_DEFAULTS: dict[type[BaseModel], dict[str, Any]] = {}
_new = object.__new__
_set = object.__setattr__


def _defaults(cls: type[BaseModel]) -> dict[str, Any]:
    """Every field's default (``trusted`` fills those not given), found once per class."""
    found = _DEFAULTS.get(cls)
    if found is None:
        found = {
            name: field.get_default(call_default_factory=True)
            for name, field in cls.model_fields.items()
            if not field.is_required()
        }
        _DEFAULTS[cls] = found
    return found


class PartKind(StrEnum):
    """What a content part is, which decides how a tokenizer counts it."""

    TEXT = "text"
    IMAGE = "image"
    OTHER = "other"  # audio, files, documents: counted as media, not as text
    OPAQUE = "opaque"  # encrypted reasoning, signatures: cost unknown, never tokenised


class ContentPart(_Frozen):
    """One part of a message's content, in source order."""

    kind: PartKind
    text: str = ""
    media_type: str | None = None
    byte_size: int = Field(default=0, ge=0, description="payload bytes (decoded) for media/opaque")
    token_estimate: int | None = Field(
        default=None, ge=0, description="the source's own image token estimate, if it had one"
    )
    label: str = Field(default="", description="file name, URL (never a data: URL) or block type")
    width: int | None = Field(default=None, gt=0, description="image pixels, from its header")
    height: int | None = Field(default=None, gt=0, description="image pixels, from its header")


class ToolCall(_Frozen):
    """A tool call made by an assistant message; ``arguments`` is the raw string as sent."""

    id: str
    name: str
    arguments: str = ""
    type: str = "function"


class Usage(_Frozen):
    """Token usage a source reported for the request that produced a message; ``prompt_total``
    is the whole prompt, cache reads and writes included, whatever the source's field names."""

    prompt_total: int | None = None
    cached_read: int | None = None
    cache_write: int | None = None
    cache_write_1h: int | None = Field(
        default=None, description="the part of ``cache_write`` written with the 1-hour lifetime"
    )
    output: int | None = None
    reasoning: int | None = None
    source: str = Field(default="", description="which field this came from, for the detail pane")


class Message(_Frozen):
    """One message the model saw."""

    role: Role
    content: str = ""
    parts: tuple[ContentPart, ...] = ()
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None
    tool_name: str | None = Field(default=None, description="for tool results: the tool's name")
    reasoning: str = ""
    name: str | None = None
    created_at: datetime | None = None
    model: str | None = None
    usage: Usage | None = None
    injected: bool = Field(default=False, description="harness-injected text, not typed by a user")
    sidechain: bool = False
    is_summary: bool = Field(
        default=False, description="a compaction summary standing in for history"
    )
    is_error: bool = False
    source_line: int | None = Field(default=None, description="1-based line in the source file")

    @property
    def media_parts(self) -> tuple[ContentPart, ...]:
        """Images and other media: counted per item, never as text."""
        return tuple(p for p in self.parts if p.kind in (PartKind.IMAGE, PartKind.OTHER))

    @property
    def opaque_bytes(self) -> int:
        """Bytes of opaque blobs whose token cost is unknown."""
        return sum(p.byte_size for p in self.parts if p.kind is PartKind.OPAQUE)

    @property
    def calls_tools(self) -> bool:
        return self.role == "assistant" and bool(self.tool_calls)


class ToolDefinition(_Frozen):
    """A tool schema sent with every request; it costs prompt tokens."""

    name: str
    description: str = ""
    parameters: Mapping[str, Any] = Field(default_factory=dict)


class RecordedCompaction(_Frozen):
    """A compaction the agent itself ran, as its transcript recorded it (docs/replay.md).
    ``message_index`` is the first message after it (the agent's summary, when present)."""

    message_index: int = Field(ge=0)
    trigger: str | None = Field(default=None, description="auto, manual, ... when recorded")
    pre_tokens: int | None = Field(
        default=None, description="the prompt size the agent recorded (or last reported) before"
    )
    source_line: int | None = None


class SessionMeta(_Frozen):
    """Where a session came from and what the source said about its model."""

    source_path: str | None = None
    format: str = "native"
    model: str | None = None
    context_window: int | None = Field(default=None, gt=0)
    title: str | None = None
    summary: str | None = Field(
        default=None, description="a compaction summary the source keeps outside the messages"
    )
    hidden_messages: int = Field(
        default=0,
        ge=0,
        description="messages before the active history the source no longer sends "
        "(PicoClaw meta skip); not in ``messages``",
    )
    warnings: tuple[str, ...] = ()
    events: tuple[str, ...] = Field(
        default=(),
        description="the agent's own compactions as the importer read them, in file order "
        "and in words: what the agent did, not a problem with the file",
    )
    recorded_compactions: tuple[RecordedCompaction, ...] = ()
    full_history: bool = Field(
        default=False, description="messages from before recorded compactions are included"
    )


class Session(_Frozen):
    """An ordered list of messages plus what else the model was sent. Turns and tool pairs
    are derived on first use and cached: the session is immutable."""

    messages: tuple[Message, ...] = ()
    system_prompt: str | None = None
    tools: tuple[ToolDefinition, ...] = ()
    meta: SessionMeta = Field(default_factory=SessionMeta)

    def __len__(self) -> int:
        return len(self.messages)

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Session:
        """A copy whose derived indices are recomputed: pydantic copies ``__dict__``, cached
        properties included, which would keep the old messages' indices."""
        copy = super().model_copy(update=update, deep=deep)
        for name in _DERIVED:
            copy.__dict__.pop(name, None)
        return copy

    @cached_property
    def index(self) -> SessionIndex:
        """Roles, turn starts and call/result pairs, found in one pass over the messages."""
        return SessionIndex.of(self.messages)

    @property
    def turn_starts(self) -> tuple[int, ...]:
        """Indices of the user messages that start turns (a turn runs to the next one)."""
        return self.index.turn_starts

    @property
    def call_of_result(self) -> Mapping[int, int]:
        """Tool-result index → the latest earlier assistant message carrying its
        ``tool_call_id``; orphans are absent."""
        return self.index.call_of_result

    @cached_property
    def results_of_call(self) -> Mapping[int, tuple[int, ...]]:
        """Assistant message index → indices of its tool results, in order."""
        acc: dict[int, list[int]] = {}
        for result, call in self.call_of_result.items():
            acc.setdefault(call, []).append(result)
        return {k: tuple(sorted(v)) for k, v in acc.items()}

    @cached_property
    def orphan_results(self) -> tuple[int, ...]:
        """Tool results whose call is not in the session (e.g. cut off by a PicoClaw ``skip``)."""
        paired = self.call_of_result
        return tuple(i for i in self.index.tool_results if i not in paired)


@dataclass(frozen=True, slots=True)
class SessionIndex:
    """What the planner looks up by position, derived once per (immutable) session."""

    turn_starts: tuple[int, ...]
    """User messages, which start turns."""
    tool_results: tuple[int, ...]
    """Messages with ``role="tool"``, ascending."""
    tool_callers: tuple[int, ...]
    """Assistant messages that make at least one tool call, ascending."""
    call_of_result: Mapping[int, int]
    """See ``Session.call_of_result``."""
    requests: tuple[int, ...] = ()
    """Assistant messages the harness did not inject: each is one call to the model."""

    @classmethod
    def of(cls, messages: tuple[Message, ...]) -> SessionIndex:
        users: list[int] = []
        results: list[int] = []
        callers: list[int] = []
        requests: list[int] = []
        pending: dict[str, int] = {}
        paired: dict[int, int] = {}
        for i, m in enumerate(messages):
            role = m.role
            if role == "user":
                users.append(i)
            elif role == "assistant":
                if not m.injected:
                    requests.append(i)
                calls = m.tool_calls
                if calls:
                    callers.append(i)
                    for call in calls:
                        pending[call.id] = i
            elif role == "tool":
                results.append(i)
                call_id = m.tool_call_id
                if call_id is not None:
                    j = pending.get(call_id)
                    if j is not None:
                        paired[i] = j
        return cls(tuple(users), tuple(results), tuple(callers), paired, tuple(requests))


_DERIVED = tuple(
    name for name, value in vars(Session).items() if isinstance(value, cached_property)
)
