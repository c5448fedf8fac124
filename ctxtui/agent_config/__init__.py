"""Each agent's compaction settings, read where the agent reads them (files and environment).

A reader returns ``core.tuning.configured.AgentConfig``: the winning value of each setting and
where it came from (file and key, or the environment). How the agent combines the values into
a trigger is ``core.tuning.configured``'s; which files it reads, and in what order one
overrides another, is here (docs/tune.md names each source):

* Claude Code: the process environment, then ``~/.claude.json`` (``autoCompactEnabled``, as
  ``claude config set -g`` writes it), then the settings files from the lowest precedence to
  the highest: ``~/.claude/settings.json``, the project's ``.claude/settings.json`` and
  ``.claude/settings.local.json``; a file's ``env`` block is laid over the environment.
  ``CLAUDE_CONFIG_DIR`` moves ``~/.claude``.
* Codex: ``$CODEX_HOME/config.toml`` (``~/.codex``), its top-level keys, then those of the
  ``[profiles.NAME]`` its ``profile`` names.
* OpenCode: ``$XDG_CONFIG_HOME/opencode/opencode.json[c]`` (``~/.config``), the file
  ``OPENCODE_CONFIG`` names, then the project's ``opencode.json[c]``; the ``compaction``
  block, and ``OPENCODE_DISABLE_AUTOCOMPACT`` / ``OPENCODE_DISABLE_PRUNE``.
* PicoClaw: ``$PICOCLAW_CONFIG``, else ``$PICOCLAW_HOME/config.json`` (``~/.picoclaw``),
  ``agents.defaults``; a ``PICOCLAW_AGENTS_DEFAULTS_*`` variable overrides the file.

Every file is opened without blocking (a FIFO is refused, never waited on) and read within
``MAX_BYTES``; a file that cannot be read is a problem line, never an exception.
"""

from __future__ import annotations

import json
import os
import stat
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ctxtui.core.tuning.configured import AGENTS, AgentConfig, Setting

MAX_BYTES = 1 << 20
"""The most of one settings file read; a larger one is reported, not read."""

CLAUDE_ENV_KEYS = (
    "CLAUDE_AUTOCOMPACT_PCT_OVERRIDE",
    "CLAUDE_CODE_AUTO_COMPACT_WINDOW",
    "DISABLE_AUTO_COMPACT",
)
CLAUDE_KEYS = ("autoCompactWindow", "autoCompactEnabled")
CODEX_KEYS = ("model_context_window", "model_auto_compact_token_limit")
OPENCODE_KEYS = ("auto", "prune", "reserved", "tail_turns", "preserve_recent_tokens")
OPENCODE_V2_NAMES = {"buffer": "reserved"}  # core v2's name → the rules' name
OPENCODE_ENV = ("OPENCODE_DISABLE_AUTOCOMPACT", "OPENCODE_DISABLE_PRUNE")
PICOCLAW_KEYS = (
    "max_tokens",
    "context_window",
    "summarize_message_threshold",
    "summarize_token_percent",
)


class UnreadableError(Exception):
    """A settings file that exists but cannot be read: its one line."""


def read_agent_config(
    agent: str,
    *,
    home: Path | None = None,
    env: Mapping[str, str] | None = None,
    project: Path | None = None,
) -> AgentConfig:
    """``agent``'s compaction settings; ``home``, ``env`` and ``project`` default to this
    user's home, this process's environment and the working directory."""
    if agent not in AGENTS:
        return AgentConfig(agent)
    home = Path.home() if home is None else home
    env = os.environ if env is None else env
    project = Path.cwd() if project is None else project
    reader = _Reader(agent, home)
    match agent:
        case "claude-code":
            _claude_code(reader, env, project)
        case "codex":
            _codex(reader, env)
        case "opencode":
            _opencode(reader, env, project)
        case _:
            _picoclaw(reader, env)
    return reader.config()


class _Reader:
    """The settings read so far (a later one of the same name replaces an earlier one)."""

    def __init__(self, agent: str, home: Path) -> None:
        self.agent, self.home = agent, home
        self.settings: dict[str, Setting] = {}
        self.problems: list[str] = []

    def shown(self, path: Path) -> str:
        """``path`` as a user reads it: under the home directory as ``~/...``."""
        try:
            return "~/" + path.relative_to(self.home).as_posix()
        except ValueError:
            return str(path)

    def set(self, key: str, value: Any, origin: str) -> None:
        if value is not None:
            self.settings.pop(key, None)
            self.settings[key] = Setting(key, value, origin)

    def load(self, path: Path, kind: str = "json") -> dict[str, Any] | None:
        """The document at ``path`` (``None`` when there is none); a problem when unreadable."""
        try:
            text = read_text(path)
            if text is None:
                return None
            value = tomllib.loads(text) if kind == "toml" else json.loads(_strip_jsonc(text))
        except (UnreadableError, tomllib.TOMLDecodeError, json.JSONDecodeError) as err:
            self.problems.append(f"{self.shown(path)}: {err}")
            return None
        except RecursionError:  # both parsers recurse per level: a hostile file's depth
            self.problems.append(f"{self.shown(path)}: nested too deep to read")
            return None
        if not isinstance(value, dict):
            self.problems.append(f"{self.shown(path)}: expected an object at the top")
            return None
        return value

    def config(self) -> AgentConfig:
        return AgentConfig(self.agent, tuple(self.settings.values()), tuple(self.problems))


def read_text(path: Path) -> str | None:
    """A regular file's text within ``MAX_BYTES``, opened without blocking; ``None`` when
    there is no file."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        return None
    except NotADirectoryError:
        return None
    except OSError as err:
        raise UnreadableError(err.strerror or str(err)) from None
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise UnreadableError("not a regular file")
        if info.st_size > MAX_BYTES:
            raise UnreadableError(f"larger than {MAX_BYTES:,} bytes")
        data = handle.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        raise UnreadableError(f"larger than {MAX_BYTES:,} bytes")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise UnreadableError("not UTF-8 text") from None


def _strip_jsonc(text: str) -> str:
    """JSON with comments and trailing commas (``opencode.jsonc``) as plain JSON."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(text[i : j + 1])
            i = j + 1
        elif text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end < 0 else end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = n if end < 0 else end + 2
        elif ch == ",":
            rest = text[i + 1 :].lstrip()
            if not rest.startswith(("}", "]")):
                out.append(ch)
            i += 1
        else:
            out.append(ch)
            i += 1
    return "".join(out)


# -- the agents -----------------------------------------------------------------------------


def _claude_code(reader: _Reader, env: Mapping[str, str], project: Path) -> None:
    for key in CLAUDE_ENV_KEYS:
        reader.set(key, env.get(key), f"environment {key}")
    config_dir = Path(env["CLAUDE_CONFIG_DIR"]) if env.get("CLAUDE_CONFIG_DIR") else None
    user_dir = config_dir or reader.home / ".claude"
    legacy = reader.load(reader.home / ".claude.json")
    if legacy is not None:
        value = legacy.get("autoCompactEnabled")
        if isinstance(value, bool):
            origin = f"{reader.shown(reader.home / '.claude.json')} autoCompactEnabled"
            reader.set("autoCompactEnabled", value, origin)
    files = [user_dir / "settings.json"]
    files += [project / ".claude" / "settings.json", project / ".claude" / "settings.local.json"]
    seen: set[Path] = set()
    for path in files:
        if path in seen:
            continue
        seen.add(path)
        document = reader.load(path)
        if document is None:
            continue
        shown = reader.shown(path)
        block = document.get("env")
        if isinstance(block, dict):
            for key in CLAUDE_ENV_KEYS:
                value = block.get(key)
                if value is not None:
                    reader.set(key, str(value), f"{shown} env.{key}")
        for key in CLAUDE_KEYS:
            reader.set(key, document.get(key), f"{shown} {key}")


def _codex(reader: _Reader, env: Mapping[str, str]) -> None:
    base = Path(env["CODEX_HOME"]) if env.get("CODEX_HOME") else reader.home / ".codex"
    path = base / "config.toml"
    document = reader.load(path, "toml")
    if document is None:
        return
    shown = reader.shown(path)
    for key in CODEX_KEYS:
        reader.set(key, document.get(key), f"{shown} {key}")
    profile = document.get("profile")
    profiles = document.get("profiles")
    if isinstance(profile, str) and isinstance(profiles, dict):
        table = profiles.get(profile)
        if isinstance(table, dict):
            for key in CODEX_KEYS:
                reader.set(key, table.get(key), f"{shown} profiles.{profile}.{key}")


def _opencode(reader: _Reader, env: Mapping[str, str], project: Path) -> None:
    xdg = Path(env["XDG_CONFIG_HOME"]) if env.get("XDG_CONFIG_HOME") else reader.home / ".config"
    files = [xdg / "opencode" / "opencode.json", xdg / "opencode" / "opencode.jsonc"]
    if env.get("OPENCODE_CONFIG"):
        files.append(Path(env["OPENCODE_CONFIG"]))
    files += [project / "opencode.json", project / "opencode.jsonc"]
    for path in files:
        document = reader.load(path)
        block = document.get("compaction") if document is not None else None
        if not isinstance(block, dict):
            continue
        shown = reader.shown(path)
        for key in OPENCODE_KEYS:
            reader.set(key, block.get(key), f"{shown} compaction.{key}")
        for key, name in OPENCODE_V2_NAMES.items():
            reader.set(name, block.get(key), f"{shown} compaction.{key}")
        keep = block.get("keep")
        if isinstance(keep, dict):
            origin = f"{shown} compaction.keep.tokens"
            reader.set("preserve_recent_tokens", keep.get("tokens"), origin)
    for key in OPENCODE_ENV:
        reader.set(key, env.get(key), f"environment {key}")


def _picoclaw(reader: _Reader, env: Mapping[str, str]) -> None:
    if env.get("PICOCLAW_CONFIG"):
        path = Path(env["PICOCLAW_CONFIG"])
    else:
        home = Path(env["PICOCLAW_HOME"]) if env.get("PICOCLAW_HOME") else reader.home / ".picoclaw"
        path = home / "config.json"
    document = reader.load(path)
    agents = document.get("agents") if document is not None else None
    defaults = agents.get("defaults") if isinstance(agents, dict) else None
    if isinstance(defaults, dict):
        shown = reader.shown(path)
        for key in PICOCLAW_KEYS:
            reader.set(key, defaults.get(key), f"{shown} agents.defaults.{key}")
    for key in PICOCLAW_KEYS:
        name = f"PICOCLAW_AGENTS_DEFAULTS_{key.upper()}"
        reader.set(key, env.get(name), f"environment {name}")
