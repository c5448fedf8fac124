"""Content-part and usage helpers shared by the importers, so every format counts alike.

Base64 payloads become IMAGE/OTHER parts with their media type and *decoded* byte size, never
text; signatures and encrypted blobs become OPAQUE parts; usage is
normalised to the core's ``Usage`` (docs/formats.md, "The formats") from whichever field
names the source used.
Formats that carry another's payload read it with that format's reader here: Claude Code its
Anthropic blocks (``anthropic_part``), Codex its Responses parts (``responses_part``).
Field readers (``as_text``, ``as_int``, ``tag``) take any JSON value, so a field of the wrong
type is read as empty or skipped, never raised on.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from ctxtui.core.literal import visible
from ctxtui.core.session.images import sized
from ctxtui.core.session.models import ContentPart, Message, PartKind, ToolDefinition, Usage
from ctxtui.importers._deep import deep_call
from ctxtui.importers._reader import depth_exceeds, loads_field
from ctxtui.importers._stream import Dropped

_WS = str.maketrans("", "", " \t\r\n")


def compact_json(value: Any) -> str:
    """JSON as an API client would send it: compact separators, non-ASCII kept as is."""
    return deep_call(_COMPACT.encode, value)


_COMPACT = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)
"""``json.dumps``' encoder with those options, made once (``dumps`` makes one per call)."""


HOISTED = ("system", "developer")
"""Roles whose leading messages a load moves into the system prompt (``hoist_system_prompt``)."""

MAX_COUNT = 10**12
"""No token or byte count read from a source is larger: a trillion tokens is a thousand times
any context window. Larger ones (``1e400``, ``Infinity``, 4,000-digit integers) are dropped
like any other value of the wrong kind, rather than overflowing ``int()`` or every sum and
printout they would reach."""


def as_int(value: Any, dropped: Dropped) -> int | None:
    """A token count from a source field, or ``None`` if it is not one (negative, NaN, inf,
    or past ``MAX_COUNT``, which are also counted in ``dropped`` for the session's warning)."""
    if type(value) is int and 0 <= value <= MAX_COUNT:  # nearly every count: no checks more
        return value
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if not 0 <= value <= MAX_COUNT:  # NaN fails both comparisons
        dropped.count += 1
        return None
    return int(value)


def as_text(value: Any) -> str:
    """A string field as text: strings as they are, ``None`` as empty, others as compact JSON.

    ``bytes`` (a BLOB in a SQLite text column) are decoded as UTF-8, bad bytes replaced.
    """
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    return compact_json(value)


def as_label(value: Any, default: str = "") -> str:
    """A short name from a source field (a kind, a file name, an id) for labels and messages.

    Strings and numbers as they read; anything else is ``default``: ``str()`` of a list or
    object from bad input could be megabytes long, or recurse past Python's limit.
    """
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    return default


QUOTE_CHARS = 40


def short_text(text: str, limit: int = QUOTE_CHARS) -> str:
    """``text`` on one line for a warning: controls escaped, cut at ``limit`` characters."""
    shown = visible(text[:limit])
    return shown + "…" if len(text) > limit else shown


def quoted(value: Any) -> str:
    """A source value as a warning quotes it: a string in quotes, cut at ``QUOTE_CHARS``; a
    number as it reads; a list or object by its kind (its text could be megabytes, and its
    ``repr`` recurse past Python's limit)."""
    if isinstance(value, bytes):
        value = value.decode("utf-8", errors="replace")
    if isinstance(value, str):
        return f"'{short_text(value)}'"
    if value is None or isinstance(value, bool):
        return {None: "null", True: "true", False: "false"}[value]
    if isinstance(value, (int, float)):
        return as_label(value)[:QUOTE_CHARS]
    return "a list" if isinstance(value, (list, tuple)) else "an object"


def tag(obj: Mapping[str, Any], key: str = "type") -> str | None:
    """A field that names a kind (``type``, ``role``) when it is a string, else ``None``.

    Importers look these up in sets; a list or object there (bad input) is unhashable and
    would escape as a ``TypeError`` traceback instead of being skipped like any unknown kind.
    """
    value = obj.get(key)
    return value if isinstance(value, str) else None


def base64_size(data: str) -> int:
    """Decoded size of a base64 string without decoding it (whitespace and padding ignored)."""
    n = len(data)
    if any(c in data[:4096] for c in " \t\r\n"):
        n = len(data.translate(_WS))
    padding = 0
    if data.rstrip().endswith("=="):
        padding = 2
    elif data.rstrip().endswith("="):
        padding = 1
    return max(0, (n * 3) // 4 - padding)


def parse_data_url(url: str) -> tuple[str | None, int] | None:
    """``(media_type, decoded_bytes)`` of a ``data:`` URL, or ``None`` for any other URL."""
    if not url.startswith("data:"):
        return None
    header, sep, payload = url[5:].partition(",")
    if not sep:
        return None, 0
    fields = header.split(";")
    media_type = fields[0] or None
    if "base64" in fields[1:]:
        return media_type, base64_size(payload)
    return media_type, len(payload.encode("utf-8"))


def text_part(text: str, label: str = "") -> ContentPart:
    return ContentPart(kind=PartKind.TEXT, text=text, label=label)


def opaque_part(blob: Any, label: str) -> ContentPart:
    """An opaque blob (signature, encrypted reasoning): only its stored size is kept."""
    data = blob if isinstance(blob, str) else as_text(blob)
    size = len(data.encode("utf-8"))
    return ContentPart.trusted(kind=PartKind.OPAQUE, byte_size=size, label=label)


def media_from_url(
    url: str, kind: PartKind = PartKind.IMAGE, media_type: str | None = None, label: str = ""
) -> ContentPart:
    """A media part from a URL: data URLs give size and type, other URLs are kept as label."""
    parsed = parse_data_url(url)
    if parsed is None:
        return ContentPart(kind=kind, media_type=media_type, label=label or url)
    data_type, size = parsed
    part = ContentPart(kind=kind, media_type=data_type or media_type, byte_size=size, label=label)
    header, _, payload = url.partition(",")
    return sized(part, payload) if "base64" in header.split(";")[1:] else part


def media_from_base64(
    data: str, media_type: str | None, kind: PartKind = PartKind.IMAGE, label: str = ""
) -> ContentPart:
    """A media part from a bare base64 payload (Anthropic ``source.data``, audio, files)."""
    if data.startswith("data:"):
        return media_from_url(data, kind, media_type, label)
    part = ContentPart(kind=kind, media_type=media_type, byte_size=base64_size(data), label=label)
    return sized(part, data)


def join_text(parts: Iterable[ContentPart]) -> str:
    """A message's ``content``: its text parts joined by newlines (the model's rule)."""
    return "\n".join(p.text for p in parts if p.kind is PartKind.TEXT)


# --- Responses content parts ----------------------------------------


def responses_part(raw: Mapping[str, Any]) -> ContentPart | None:
    """A Responses content part (text, refusal, image, file, audio) as a part; else ``None``.

    Shared by the Responses and Codex importers: Codex rollouts hold Responses items.
    """
    kind = raw.get("type")
    if kind in ("input_text", "output_text", "text", "summary_text", "reasoning_text"):
        return text_part(as_text(raw.get("text")))
    if kind == "refusal":
        return text_part(as_text(raw.get("refusal")), label="refusal")
    if kind == "input_image":
        url = raw.get("image_url")
        if isinstance(url, str):
            return media_from_url(url, label="input_image")
        return ContentPart(kind=PartKind.IMAGE, label=as_text(raw.get("file_id")) or "input_image")
    if kind == "input_file":
        label = as_text(raw.get("filename") or raw.get("file_id") or raw.get("file_url")) or "file"
        data = raw.get("file_data")
        if isinstance(data, str):
            return media_from_base64(data, None, PartKind.OTHER, label)
        return ContentPart(kind=PartKind.OTHER, label=label)
    if kind == "input_audio":
        inner = raw.get("input_audio")
        data = raw.get("data") or (inner.get("data") if isinstance(inner, Mapping) else None)
        return media_from_base64(as_text(data), None, PartKind.OTHER, "input_audio")
    return None


# --- Anthropic content blocks ----------------------------------------


def _anthropic_source(block: Mapping[str, Any], kind: PartKind) -> ContentPart:
    """An image or document from its ``source`` (base64, url, file or inline text)."""
    source = block.get("source")
    source = source if isinstance(source, Mapping) else {}
    media_type = source.get("media_type") if isinstance(source.get("media_type"), str) else None
    title = block.get("title")
    label = title if isinstance(title, str) else str(block.get("type", ""))
    stype = source.get("type")
    if stype == "base64":
        data = source.get("data")
        return media_from_base64(data if isinstance(data, str) else "", media_type, kind, label)
    if stype == "url":
        return media_from_url(as_text(source.get("url")), kind, media_type)
    if stype == "text":
        size = len(as_text(source.get("data")).encode("utf-8"))
        return ContentPart(kind=kind, media_type=media_type, byte_size=size, label=label)
    if stype == "file":
        return ContentPart(kind=kind, label=as_text(source.get("file_id")) or label)
    return ContentPart(kind=kind, media_type=media_type, label=label)


def anthropic_part(block: Any) -> ContentPart | None:
    """An Anthropic content block the user sees (text, image, document) as a part; else ``None``.

    Shared by the Anthropic and Claude Code importers, whose messages hold the same blocks.
    """
    if isinstance(block, str):
        return text_part(block)
    if not isinstance(block, Mapping):
        return None
    kind = block.get("type")
    if kind == "text":
        return text_part(as_text(block.get("text")))
    if kind == "image":
        return _anthropic_source(block, PartKind.IMAGE)
    if kind == "document":
        return _anthropic_source(block, PartKind.OTHER)
    if kind == "search_result":
        inner = block.get("content")
        blocks = inner if isinstance(inner, list) else ()
        texts = [as_text(b.get("text")) for b in blocks if isinstance(b, Mapping)]
        return text_part("\n".join(texts), label="search_result")
    if kind == "container_upload":
        return ContentPart(kind=PartKind.OTHER, label=as_text(block.get("file_id")) or "file")
    return None


# --- usage -------------------------------------------------------------


def _sub(usage: Mapping[str, Any], key: str, field: str, dropped: Dropped) -> int | None:
    inner = usage.get(key)
    return as_int(inner.get(field), dropped) if isinstance(inner, Mapping) else None


def usage_openai_chat(usage: Mapping[str, Any], dropped: Dropped) -> Usage:
    """Chat Completions: ``prompt_tokens`` already includes the cached tokens."""
    return Usage(
        prompt_total=as_int(usage.get("prompt_tokens"), dropped),
        cached_read=_sub(usage, "prompt_tokens_details", "cached_tokens", dropped),
        cache_write=as_int(usage.get("cache_creation_input_tokens"), dropped),
        output=as_int(usage.get("completion_tokens"), dropped),
        reasoning=_sub(usage, "completion_tokens_details", "reasoning_tokens", dropped),
        source="openai-chat usage.prompt_tokens",
    )


def usage_openai_responses(usage: Mapping[str, Any], dropped: Dropped) -> Usage:
    """Responses: ``input_tokens`` already includes the cached tokens."""
    return Usage(
        prompt_total=as_int(usage.get("input_tokens"), dropped),
        cached_read=_sub(usage, "input_tokens_details", "cached_tokens", dropped),
        output=as_int(usage.get("output_tokens"), dropped),
        reasoning=_sub(usage, "output_tokens_details", "reasoning_tokens", dropped),
        source="openai-responses usage.input_tokens",
    )


def usage_anthropic(usage: Mapping[str, Any], dropped: Dropped) -> Usage:
    """Anthropic: ``input_tokens`` excludes cache reads and writes, so they are added back."""
    base = as_int(usage.get("input_tokens"), dropped)
    write = as_int(usage.get("cache_creation_input_tokens"), dropped)
    read = as_int(usage.get("cache_read_input_tokens"), dropped)
    total = None if base is None else base + (write or 0) + (read or 0)
    return Usage.trusted_from(  # every value an ``as_int``: nothing left to validate
        {
            "prompt_total": total,
            "cached_read": read,
            "cache_write": write,
            "cache_write_1h": _sub(usage, "cache_creation", "ephemeral_1h_input_tokens", dropped),
            "output": as_int(usage.get("output_tokens"), dropped),
            "source": "anthropic input + cache_creation + cache_read",
        }
    )


def usage_codex(usage: Mapping[str, Any], dropped: Dropped) -> Usage:
    """Codex ``last_token_usage``: ``input_tokens`` includes ``cached_input_tokens``."""
    return Usage.trusted_from(  # every value an ``as_int``: nothing left to validate
        {
            "prompt_total": as_int(usage.get("input_tokens"), dropped),
            "cached_read": as_int(usage.get("cached_input_tokens"), dropped),
            "output": as_int(usage.get("output_tokens"), dropped),
            "reasoning": as_int(usage.get("reasoning_output_tokens"), dropped),
            "source": "codex last_token_usage.input_tokens",
        }
    )


def usage_opencode(tokens: Mapping[str, Any], dropped: Dropped) -> Usage:
    """OpenCode ``tokens``: the prompt is ``input + cache.read + cache.write``."""
    base = as_int(tokens.get("input"), dropped)
    read = _sub(tokens, "cache", "read", dropped)
    write = _sub(tokens, "cache", "write", dropped)
    total = None if base is None else base + (read or 0) + (write or 0)
    return Usage(
        prompt_total=total,
        cached_read=read,
        cache_write=write,
        output=as_int(tokens.get("output"), dropped),
        reasoning=as_int(tokens.get("reasoning"), dropped),
        source="opencode input + cache.read + cache.write",
    )


def normalise_usage(usage: Any, dropped: Dropped) -> Usage | None:
    """Usage from any known source shape, told apart by its field names; ``None`` if unknown.

    Anthropic's cache fields are checked before the Responses shape because both use
    ``input_tokens`` but only Anthropic excludes the cache from it.
    """
    if not isinstance(usage, Mapping):
        return None
    if "prompt_tokens" in usage:
        return usage_openai_chat(usage, dropped)
    if "cache_creation_input_tokens" in usage or "cache_read_input_tokens" in usage:
        return usage_anthropic(usage, dropped)
    if "cached_input_tokens" in usage or "reasoning_output_tokens" in usage:
        return usage_codex(usage, dropped)
    if "input_tokens" in usage:
        return usage_openai_responses(usage, dropped)
    if "input" in usage and isinstance(usage.get("cache", {}), Mapping):
        return usage_opencode(usage, dropped)
    return None


def attach_usage(messages: list[Message], usage: Any, dropped: Dropped) -> None:
    """Put request-level usage on the last assistant message, the reply it was billed for.

    A message that already carries its own usage keeps it; unknown shapes are ignored.
    """
    normalised = normalise_usage(usage, dropped)
    if normalised is None:
        return
    for i in range(len(messages) - 1, -1, -1):
        if messages[i].role == "assistant":
            if messages[i].usage is None:
                messages[i] = messages[i].model_copy(update={"usage": normalised})
            return


def tool_definition(raw: Any) -> ToolDefinition | None:
    """A tool schema from any source shape, or ``None`` when it names no tool.

    Chat nests it under ``function`` (or ``custom``); Responses, legacy ``functions`` and
    ShareGPT keep it flat; Anthropic calls the schema ``input_schema``.
    """
    if not isinstance(raw, Mapping):
        return None
    inner = raw.get("function") or raw.get("custom")
    spec: Mapping[str, Any] = inner if isinstance(inner, Mapping) else raw
    name = spec.get("name")
    if not isinstance(name, str) or not name:
        kind = raw.get("type")
        if not isinstance(kind, str) or not kind:
            return None
        name = kind  # built-in tools (web_search, code_interpreter) are named by their type
    schema = spec.get("parameters", spec.get("input_schema", spec.get("format")))
    description = spec.get("description")
    return ToolDefinition(
        name=name,
        description=description if isinstance(description, str) else "",
        parameters=schema if isinstance(schema, Mapping) and not schema_too_deep(schema) else {},
    )


SCHEMA_MAX_DEPTH = 200
"""A tool schema nesting deeper than this is kept empty. Real schemas nest a dozen levels;
the tokenizers walk a schema recursively and the native writer serialises it (pydantic
stops at about 250 levels), so a hostile one must not reach them."""


def schema_too_deep(schema: Any) -> bool:
    """Whether a tool schema nests deeper than ``SCHEMA_MAX_DEPTH``."""
    return depth_exceeds(schema, SCHEMA_MAX_DEPTH)


def tool_definitions(raw: Any) -> tuple[ToolDefinition, ...]:
    """Every tool schema in a ``tools`` field (a list, or a JSON string of one)."""
    if isinstance(raw, str):
        try:
            raw = loads_field(raw)
        except ValueError:
            return ()
    if not isinstance(raw, list):
        return ()
    found = (tool_definition(item) for item in raw)
    return tuple(t for t in found if t is not None)
