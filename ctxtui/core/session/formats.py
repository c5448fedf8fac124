"""The formats ctxtui reads, in detection order: what ``ctxtui formats`` lists and what
``--format`` accepts. Plain data in the core, apart from the importers' loading logic, so that
``--help`` can name the formats without importing the importers (and pydantic under them)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class FormatInfo:
    """What ``ctxtui formats`` shows for one importer."""

    name: str
    title: str
    description: str
    extensions: tuple[str, ...]


FORMATS: tuple[FormatInfo, ...] = (
    FormatInfo(
        "native", "ctxtui native", "the core's own session model (ctxtui compact -o)", (".json",)
    ),
    FormatInfo(
        "claude-code",
        "Claude Code",
        "Claude Code session transcripts (~/.claude/projects/*/*.jsonl)",
        (".jsonl",),
    ),
    FormatInfo(
        "codex",
        "Codex CLI",
        "Codex CLI rollout files, current and legacy 2025 layout",
        (".jsonl", ".jsonl.zst"),
    ),
    FormatInfo(
        "opencode",
        "OpenCode",
        "OpenCode JSON file storage (<= 1.1) and its SQLite database (>= 1.2)",
        (".json", ".db"),
    ),
    FormatInfo(
        "picoclaw",
        "PicoClaw",
        "PicoClaw sessions: <key>.jsonl + .meta.json, legacy <key>.json, seahorse SQLite",
        (".jsonl", ".json", ".db"),
    ),
    FormatInfo(
        "anthropic",
        "Anthropic Messages",
        "Anthropic Messages API requests and responses (top-level system, content blocks)",
        (".json",),
    ),
    FormatInfo(
        "openai-responses",
        "OpenAI Responses",
        "OpenAI Responses API input items (instructions + typed items)",
        (".json",),
    ),
    FormatInfo(
        "sharegpt",
        "ShareGPT",
        "ShareGPT datasets: conversations of {from, value}",
        (".json", ".jsonl"),
    ),
    FormatInfo(
        "openai-chat",
        "OpenAI Chat",
        "OpenAI Chat Completions messages, LiteLLM/OpenRouter logs, fine-tuning JSONL",
        (".json", ".jsonl"),
    ),
)
"""Every known format, in detection order (ties in ``sniff`` scores go to the earlier one)."""

FORMAT_NAMES: tuple[str, ...] = tuple(f.name for f in FORMATS)


def format_info(name: str) -> FormatInfo:
    """The ``FormatInfo`` of a known format name (importer modules use it for ``FORMAT``)."""
    for info in FORMATS:
        if info.name == name:
            return info
    raise KeyError(name)
