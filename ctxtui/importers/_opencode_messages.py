"""OpenCode's stored messages → the chat the model saw, whatever the storage they came from.

Both readers, the JSON file storage (``opencode.py``) and the SQLite database
(``_opencode_sqlite.py``), gather ``StoredMessage`` objects and hand them here, so the rules of
what the model saw (one assistant message per step, the last completed compaction as the start,
pruned outputs shown as OpenCode's stub) are written once.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ctxtui.core.session.models import (
    ContentPart,
    Message,
    PartKind,
    Session,
    SessionMeta,
    ToolCall,
)
from ctxtui.core.wording import plural
from ctxtui.importers._parts import as_text, compact_json, media_from_url, text_part, usage_opencode
from ctxtui.importers._stream import Dropped
from ctxtui.importers._timestamps import from_epoch_ms

FORMAT_NAME = "opencode"
"""The name in ``SessionMeta.format``; the package's table is not imported, so the package
can import this module without a cycle."""

COMPACTION_PROMPT = "What did we do so far?"
"""What OpenCode sends for the user message that asks for a compaction summary."""

CLEARED_OUTPUT = "[Old tool result content cleared]"
"""What the model saw for a tool output OpenCode pruned (``state.time.compacted`` set)."""


@dataclass(frozen=True)
class StoredMessage:
    """One OpenCode message info object and its parts, in order, whatever the storage."""

    id: str
    info: Mapping[str, Any]
    parts: Sequence[Mapping[str, Any]] = ()


def created_ms(info: Mapping[str, Any]) -> int:
    """A message's creation time in epoch milliseconds, 0 when the info lacks it."""
    time = info.get("time")
    created = time.get("created") if isinstance(time, dict) else None
    return created if isinstance(created, int) else 0


# --- messages → session -------------------------------------------------------------


def build_session(
    stored: Sequence[StoredMessage],
    warnings: list[str],
    dropped: Dropped,
    *,
    source_path: str | None = None,
    title: str | None = None,
) -> Session:
    """Stored messages → the chat the model sees: one assistant message per step."""
    events: list[str] = []
    start = _effective_start(stored, events)
    converter = _Converter(warnings, dropped)
    for message in stored[start:]:
        converter.add(message)
    converter.report()
    model = next(
        (as_text(m.info.get("modelID")) for m in reversed(stored) if m.info.get("modelID")), None
    )
    meta = SessionMeta(
        source_path=source_path,
        format=FORMAT_NAME,
        model=model,
        title=title,
        warnings=tuple(warnings),
        events=tuple(events),
    )
    return Session(messages=tuple(converter.out), meta=meta)


def _effective_start(stored: Sequence[StoredMessage], events: list[str]) -> int:
    """Where the model-visible history begins: the last completed compaction (+ its tail)."""
    ids = {m.id: i for i, m in enumerate(stored)}
    for i in range(len(stored) - 1, -1, -1):
        summary = stored[i]
        if summary.info.get("role") != "assistant" or summary.info.get("summary") is not True:
            continue
        request = ids.get(as_text(summary.info.get("parentID")))
        if request is None or summary.info.get("error"):
            continue
        compaction = next((p for p in stored[request].parts if p.get("type") == "compaction"), None)
        if compaction is None:
            continue
        start = request
        tail = ids.get(as_text(compaction.get("tail_start_id")))
        if tail is not None and tail < request:
            start = tail
        if start:
            events.append(
                f"compaction at {stored[request].id}: {plural(start, 'earlier message')} hidden"
            )
        return start
    return 0


@dataclass
class _Converter:
    """Builds chat messages from OpenCode messages, step by step."""

    warnings: list[str]
    dropped: Dropped
    out: list[Message] = field(default_factory=list)
    interrupted: int = 0
    errored: int = 0
    cleared: int = 0

    def add(self, stored: StoredMessage) -> None:
        info = stored.info
        when = from_epoch_ms(created_ms(info))
        if info.get("role") == "user":
            self._user(stored, when)
            return
        error = info.get("error")
        has_content = any(p.get("type") in ("text", "tool", "reasoning") for p in stored.parts)
        aborted = isinstance(error, dict) and error.get("name") == "MessageAbortedError"
        if error and not (aborted and has_content):
            self.errored += 1
            return
        self._assistant(stored, when)

    def report(self) -> None:
        if self.interrupted:
            self.warnings.append(
                f"{plural(self.interrupted, 'tool call')} pending or running (interrupted): "
                "no result"
            )
        if self.errored:
            self.warnings.append(f"{self.errored:,} failed assistant messages skipped")
        if self.cleared:
            self.warnings.append(
                f"{self.cleared:,} pruned tool outputs shown as the model saw them: "
                f"{CLEARED_OUTPUT}"
            )

    def _user(self, stored: StoredMessage, when: Any) -> None:
        """Text runs become messages; synthetic (harness) text is its own injected message."""
        runs: list[tuple[bool, list[ContentPart]]] = []
        for part in stored.parts:
            kind = part.get("type")
            if kind == "text" and not part.get("ignored"):
                synthetic = part.get("synthetic") is True
                content = text_part(as_text(part.get("text")))
            elif kind == "compaction":
                synthetic, content = True, text_part(COMPACTION_PROMPT, label="compaction")
            elif kind == "file":  # media belongs with the text run it came with
                synthetic, content = (runs[-1][0] if runs else False), _file_part(part)
            else:
                continue
            if runs and runs[-1][0] == synthetic:
                runs[-1][1].append(content)
            else:
                runs.append((synthetic, [content]))
        for synthetic, parts in runs:
            text = "\n".join(p.text for p in parts if p.kind is PartKind.TEXT)
            media = any(p.kind is not PartKind.TEXT for p in parts)
            self.out.append(
                Message(
                    role="user",
                    content=text,
                    parts=tuple(parts) if media or len(parts) > 1 else (),
                    injected=synthetic,
                    created_at=when,
                    name=stored.id,
                )
            )

    def _assistant(self, stored: StoredMessage, when: Any) -> None:
        """One assistant message per step (step-start … step-finish), then its tool results."""
        model = as_text(stored.info.get("modelID")) or None
        flags = {"is_summary": stored.info.get("summary") is True, "model": model}
        step = _Step()
        emitted_usage = False
        for part in stored.parts:
            kind = part.get("type")
            if kind == "step-start":
                self._flush(step, stored.id, when, flags)
                step = _Step()
            elif kind == "step-finish":
                tokens = part.get("tokens")
                step.usage = tokens if isinstance(tokens, dict) else None
                emitted_usage = emitted_usage or step.usage is not None
                self._flush(step, stored.id, when, flags)
                step = _Step()
            else:
                self._part(step, part)
        tokens = stored.info.get("tokens")
        if step.usage is None and not emitted_usage and isinstance(tokens, dict):
            step.usage = tokens  # no per-step usage at all: the message total is all there is
        self._flush(step, stored.id, when, flags)

    def _part(self, step: _Step, part: Mapping[str, Any]) -> None:
        kind = part.get("type")
        if kind == "text" and not part.get("ignored"):
            step.texts.append(as_text(part.get("text")))
        elif kind == "reasoning":
            step.reasoning.append(as_text(part.get("text")))
        elif kind == "file":
            step.media.append(_file_part(part))
        elif kind == "tool":
            self._tool(step, part)

    def _tool(self, step: _Step, part: Mapping[str, Any]) -> None:
        state = _mapping(part.get("state"))
        call_id = as_text(part.get("callID"))
        name = as_text(part.get("tool"))
        step.calls.append(
            ToolCall(id=call_id, name=name, arguments=compact_json(state.get("input", {})))
        )
        status = state.get("status")
        if status in ("pending", "running"):
            self.interrupted += 1
            return
        time = _mapping(state.get("time"))
        if status == "error":
            content, is_error = as_text(state.get("error")), True
        elif time.get("compacted"):
            content, is_error = CLEARED_OUTPUT, False
            self.cleared += 1
        else:
            content, is_error = as_text(state.get("output")), False
        attachments = state.get("attachments")
        media = (
            tuple(_file_part(a) for a in attachments or () if isinstance(a, dict))
            if isinstance(attachments, list)
            else ()
        )
        step.results.append(
            Message(
                role="tool",
                content=content,
                parts=(text_part(content), *media) if media else (),
                tool_call_id=call_id,
                tool_name=name,
                is_error=is_error,
            )
        )

    def _flush(self, step: _Step, msg_id: str, when: Any, flags: Mapping[str, Any]) -> None:
        if step.empty:
            return
        content = "\n".join(step.texts)
        parts = tuple(text_part(t) for t in step.texts) + tuple(step.media) if step.media else ()
        self.out.append(
            Message(
                role="assistant",
                content=content,
                parts=parts,
                tool_calls=tuple(step.calls),
                reasoning="\n".join(step.reasoning),
                usage=usage_opencode(step.usage, self.dropped) if step.usage else None,
                created_at=when,
                name=msg_id,
                **flags,
            )
        )
        self.out.extend(r.model_copy(update={"created_at": when}) for r in step.results)


@dataclass
class _Step:
    """What one LLM call of an assistant message produced."""

    texts: list[str] = field(default_factory=list)
    reasoning: list[str] = field(default_factory=list)
    media: list[ContentPart] = field(default_factory=list)
    calls: list[ToolCall] = field(default_factory=list)
    results: list[Message] = field(default_factory=list)
    usage: Mapping[str, Any] | None = None

    @property
    def empty(self) -> bool:
        return not (self.texts or self.reasoning or self.media or self.calls)


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, dict) else {}


def _file_part(part: Mapping[str, Any]) -> ContentPart:
    """A ``file`` part: data URLs are sized media, other URLs are kept as labels."""
    mime = as_text(part.get("mime")) or None
    kind = PartKind.IMAGE if mime and mime.startswith("image/") else PartKind.OTHER
    return media_from_url(as_text(part.get("url")), kind, mime, label=as_text(part.get("filename")))


def parts_in_order(rows: Iterable[tuple[str, Mapping[str, Any]]]) -> list[Mapping[str, Any]]:
    """Parts by id (their creation order); the database leaves ``time_created`` at 0."""
    return [dict(data, id=pid) for pid, data in sorted(rows, key=lambda r: r[0])]
