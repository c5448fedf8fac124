"""The formats ctxtui reads, in detection order: what ``ctxtui formats`` lists and what
``--format`` accepts. Plain data in the core, apart from the importers' loading logic, so that
``--help`` can name the formats without importing the importers (and pydantic under them)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class FormatInfo:
    """What ``ctxtui formats`` shows for one importer, and the preset its sessions open on.

    ``preset`` is the agent's own context manager (``plan`` for a transcript of no known
    agent); ``store_presets`` pairs a store's file-name ending with the preset that store
    means (PicoClaw's seahorse database runs the seahorse manager, its JSONL the legacy one).
    """

    name: str
    title: str
    description: str
    extensions: tuple[str, ...]
    preset: str = "plan"
    store_presets: tuple[tuple[str, str], ...] = ()

    def preset_of(self, source_path: str | None) -> str:
        """The preset for a session of this format read from ``source_path``."""
        for ending, name in self.store_presets:
            if source_path is not None and source_path.endswith(ending):
                return name
        return self.preset


FORMATS: tuple[FormatInfo, ...] = (
    FormatInfo(
        "native", "ctxtui native", "the core's own session model (ctxtui compact -o)", (".json",)
    ),
    FormatInfo(
        "claude-code",
        "Claude Code",
        "Claude Code session transcripts (~/.claude/projects/*/*.jsonl)",
        (".jsonl",),
        preset="claude-code",
    ),
    FormatInfo(
        "codex",
        "Codex CLI",
        "Codex CLI rollout files, current and legacy 2025 layout",
        (".jsonl", ".jsonl.zst"),
        preset="codex",
    ),
    FormatInfo(
        "opencode",
        "OpenCode",
        "OpenCode JSON file storage (<= 1.1) and its SQLite database (>= 1.2)",
        (".json", ".db"),
        preset="opencode",
    ),
    FormatInfo(
        "picoclaw",
        "PicoClaw",
        "PicoClaw sessions: <key>.jsonl + .meta.json, legacy <key>.json, seahorse SQLite",
        (".jsonl", ".json", ".db"),
        preset="picoclaw",
        store_presets=((".db", "picoclaw-seahorse"),),
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
