"""A candidate written back as the agent's own settings: the file the agent reads, merged.

Each agent's settings go where its reader (``ctxtui.agent_config``) finds them: Claude Code's
``env`` block of ``settings.json`` (values as strings, as an environment holds them), Codex's
top-level ``config.toml`` keys, OpenCode's ``compaction`` block, PicoClaw's
``agents.defaults``. An existing document is merged (every other key kept); a setting no agent
exposes (``--agent plan``: ctxtui's own knobs) is reported, never written.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ctxtui.core.literal import json_literal
from ctxtui.core.tuning.configured import AGENTS, AgentConfig
from ctxtui.core.tuning.space import Settings

TARGETS = {
    "claude-code": "~/.claude/settings.json",
    "codex": "~/.codex/config.toml",
    "opencode": "~/.config/opencode/opencode.json",
    "picoclaw": "~/.picoclaw/config.json",
}
"""The file each agent reads its settings from, as a user names it."""


class MergeError(ValueError):
    """The existing document cannot take the settings (not the agent's format)."""


@dataclass(frozen=True, slots=True)
class WriteBack:
    """The document to write, the current value of each setting beside the new one, and the
    settings that were not written because the agent has no such setting."""

    agent: str
    target: str | None
    text: str
    beside: tuple[str, ...]
    unexposed: tuple[str, ...]


def write_back(
    agent: str, settings: Settings, current: AgentConfig | None, existing: str | None = None
) -> WriteBack:
    """``settings`` as ``agent``'s own file, merged into ``existing`` (its text) when given."""
    if agent not in AGENTS:
        unexposed = tuple(f"{k} = {v}: no agent reads it (ctxtui's own knob)" for k, v in settings)
        return WriteBack(agent, None, "", (), unexposed)
    text = _toml(settings, existing or "") if agent == "codex" else _json(agent, settings, existing)
    return WriteBack(agent, TARGETS[agent], text, _beside(settings, current), ())


def _beside(settings: Settings, current: AgentConfig | None) -> tuple[str, ...]:
    out = []
    for key, value in settings:
        now = current.get(key) if current is not None else None
        was = f"now {now.value!r} from {now.origin}" if now is not None else "now unset"
        out.append(f"{key}: {_shown(value)} ({was})")
    return tuple(out)


def _shown(value: Any) -> str:
    return json.dumps(value) if isinstance(value, bool) else str(value)


def _json(agent: str, settings: Settings, existing: str | None) -> str:
    """The JSON document with the settings merged in; what a terminal would act on in the
    existing file's strings (a bidi override, U+2028) is escaped (``json_literal``), as in
    every JSON ctxtui writes, so showing the file cannot act on it."""
    try:
        document = json.loads(existing) if existing and existing.strip() else {}
    except json.JSONDecodeError as err:
        raise MergeError(f"not JSON ({err.msg}, line {err.lineno})") from None
    if not isinstance(document, dict):
        raise MergeError("expected an object at the top")
    path = {
        "claude-code": ("env",),
        "opencode": ("compaction",),
        "picoclaw": ("agents", "defaults"),
    }
    block = document
    for name in path[agent]:
        inner = block.setdefault(name, {})
        if not isinstance(inner, dict):
            raise MergeError(f"expected {name!r} to be an object")
        block = inner
    for key, value in settings:
        block[key] = str(value) if agent == "claude-code" else value
    text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    return json_literal(text.encode("utf-8")).decode("utf-8")


_TABLE = re.compile(r"^\s*\[")


def _toml(settings: Settings, existing: str) -> str:
    """Top-level ``key = value`` lines replaced in place or added before the first table; a
    merge is written only if the result reads as the old document with those keys set."""
    merged = _toml_lines(settings, existing)
    _check_toml(settings, existing, merged)
    return merged


def _check_toml(settings: Settings, existing: str, merged: str) -> None:
    """``MergeError`` unless ``merged`` parses to ``existing``'s values with ``settings`` set:
    a line edit cannot see a quoted key or a multi-line string, and must not break either."""
    import tomllib

    try:
        before = tomllib.loads(existing)
    except tomllib.TOMLDecodeError as err:
        raise MergeError(f"it is not valid TOML ({err})") from None
    try:
        after = tomllib.loads(merged)
    except tomllib.TOMLDecodeError:
        after = None
    if after != {**before, **dict(settings)}:
        keys = ", ".join(key for key, _ in settings)
        raise MergeError(f"its layout keeps {keys} from being set line by line; set it by hand")


def _toml_lines(settings: Settings, existing: str) -> str:
    lines = existing.splitlines()
    first_table = next((i for i, line in enumerate(lines) if _TABLE.match(line)), len(lines))
    head, rest = lines[:first_table], lines[first_table:]
    for key, value in settings:
        line = f"{key} = {_toml_value(value)}"
        pattern = re.compile(rf"^\s*{re.escape(key)}\s*=")
        at = next((i for i, old in enumerate(head) if pattern.match(old)), None)
        if at is None:
            head.append(line)
        else:
            head[at] = line
    if rest and head and head[-1].strip():
        head.append("")
    return "\n".join([*head, *rest]) + "\n"


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    return json.dumps(str(value))


def words(result: WriteBack, knobs: Sequence[str] = ()) -> list[str]:
    """The printout: where it goes, the document, each setting beside its current value."""
    if result.target is None:
        return [f"not written: {line}" for line in result.unexposed]
    out = [f"# {result.target}, merged:", result.text.rstrip("\n"), ""]
    out += [f"# {line}" for line in result.beside]
    return out
