"""The formats ctxtui reads, in detection order: one row per format, which every fact about a
format is read from (``ctxtui formats``, ``--format``, the preset, the provider, the harness's
output cap, where the agent keeps its sessions). Plain data in the core, apart from the
importers' loading logic (``ctxtui.importers.IMPORTERS``, keyed by the rows' names), so that
``--help`` can name the formats without importing the importers (and pydantic under them)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class StoreRoot:
    """Where an agent keeps its sessions: ``$env`` if set, else ``~/default``, then ``under``."""

    env: str | None
    default: str
    under: str = ""

    def path(self, env: Mapping[str, str]) -> Path:
        """This root under the environment ``env`` (its ``HOME`` and the agent's variable)."""
        home = Path(env.get("HOME") or Path.home())
        override = env.get(self.env) if self.env else None
        base = Path(override) if override else home / self.default
        return base / self.under if self.under else base


@dataclass(frozen=True)
class FormatInfo:
    """What ``ctxtui formats`` shows for one importer, and the preset its sessions open on.

    ``preset`` is the agent's own context manager (``plan`` for a transcript of no known
    agent); ``store_presets`` pairs a store's file-name ending with the preset that store
    means (PicoClaw's seahorse database runs the seahorse manager, its JSONL the legacy one).
    ``provider`` is the API the format's requests went to (otherwise the price package finds
    it from the model id); ``output_cap`` the characters of a tool output the harness sends
    at most and the tools it caps (the calibration fits what was sent); ``agent`` and
    ``stores`` name the agent and where it keeps its sessions (``ctxtui sessions`` lists
    them with the importer's ``list_store``; no output is written there).
    """

    name: str
    title: str
    description: str
    extensions: tuple[str, ...]
    preset: str = "plan"
    store_presets: tuple[tuple[str, str], ...] = ()
    provider: str | None = None
    output_cap: tuple[int, frozenset[str]] | None = None
    agent: str = ""
    stores: tuple[StoreRoot, ...] = ()

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
        provider="anthropic",
        # Claude Code middle-truncates a Bash output past 30,000 characters before the model
        # reads it (BASH_MAX_OUTPUT_LENGTH, default 30000: its settings documentation).
        output_cap=(30_000, frozenset({"Bash"})),
        agent="Claude Code",
        stores=(
            StoreRoot("CLAUDE_CONFIG_DIR", ".claude", "projects"),
            StoreRoot(None, ".config/claude", "projects"),
        ),
    ),
    FormatInfo(
        "codex",
        "Codex CLI",
        "Codex CLI rollout files, current and legacy 2025 layout",
        (".jsonl", ".jsonl.zst"),
        preset="codex",
        provider="openai",
        agent="Codex",
        stores=(StoreRoot("CODEX_HOME", ".codex"),),
    ),
    FormatInfo(
        "opencode",
        "OpenCode",
        "OpenCode JSON file storage (<= 1.1) and its SQLite database (>= 1.2)",
        (".json", ".db"),
        preset="opencode",
        agent="OpenCode",
        stores=(StoreRoot("XDG_DATA_HOME", ".local/share", "opencode"),),
    ),
    FormatInfo(
        "picoclaw",
        "PicoClaw",
        "PicoClaw sessions: <key>.jsonl + .meta.json, legacy <key>.json, seahorse SQLite",
        (".jsonl", ".json", ".db"),
        preset="picoclaw",
        store_presets=((".db", "picoclaw-seahorse"),),
        agent="PicoClaw",
        stores=(StoreRoot("PICOCLAW_HOME", ".picoclaw", "workspace/sessions"),),
    ),
    FormatInfo(
        "anthropic",
        "Anthropic Messages",
        "Anthropic Messages API requests and responses (top-level system, content blocks)",
        (".json",),
        provider="anthropic",
    ),
    FormatInfo(
        "openai-responses",
        "OpenAI Responses",
        "OpenAI Responses API input items (instructions + typed items)",
        (".json",),
        provider="openai",
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
        provider="openai",
    ),
)
"""Every known format, in detection order (ties in ``sniff`` scores go to the earlier one)."""

FORMAT_NAMES: tuple[str, ...] = tuple(f.name for f in FORMATS)


def normalize_format(name: str) -> str:
    """A format name as typed (``OpenAI_Chat``, `` codex``) in its canonical spelling."""
    return name.strip().lower().replace("_", "-")


def format_info(name: str) -> FormatInfo:
    """The ``FormatInfo`` of a known format name (importer modules use it for ``FORMAT``)."""
    info = known_format(name)
    if info is None:
        raise KeyError(name)
    return info


def known_format(name: str | None) -> FormatInfo | None:
    """The row of ``name`` (a session's ``meta.format``), or ``None`` for none or an unknown one.

    Read from ``FORMATS`` at each call, so a row added to it is found everywhere."""
    return next((info for info in FORMATS if info.name == name), None)
