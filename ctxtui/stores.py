"""The agents' session stores: where Claude Code, Codex, OpenCode and PicoClaw keep sessions.

``find_sessions()`` lists what is there, newest first, without parsing any transcript: each
entry is built from the file system and a bounded head of the file (the first records name the
working directory, the model and the start time), so listing thousands of sessions stays
fast. Claude Code sub-agents written inline are found by a bounded search of the bytes that
parses only their lines. Counting messages scans a whole file and is done on request
(``count_messages``). A file that cannot be read is listed with its error instead of
stopping the listing.

Each agent's environment override is honoured: ``CLAUDE_CONFIG_DIR``, ``CODEX_HOME``,
``XDG_DATA_HOME`` (OpenCode) and ``PICOCLAW_HOME``. The layouts are described in
docs/formats.md ("Where agents keep their sessions").
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

HEAD_BYTES = 64 * 1024
"""How much of a transcript the listing reads: enough for the first records, never a whole file."""
HEAD_RECORDS = 40
COUNT_LIMIT_BYTES = 256 * 1024 * 1024
"""``count_messages`` refuses to scan files larger than this and answers ``None``."""


@dataclass(frozen=True)
class FoundSession:
    """One session in an agent's store, as far as the listing can tell without parsing it."""

    agent: str  # claude-code, codex, opencode, picoclaw
    path: Path  # what to open (``open_target`` adds an OpenCode database's session id)
    size: int
    modified: float  # the file's mtime, seconds since the epoch
    started: datetime | None = None
    project: str | None = None  # working directory or project name
    model: str | None = None
    title: str | None = None
    session_id: str | None = None  # OpenCode databases hold many sessions: this one
    messages: int | None = None  # counted on request only
    error: str | None = None
    children: tuple[FoundSession, ...] = field(default=())  # Claude Code sub-agents

    @property
    def open_target(self) -> str:
        """What to pass to ``ctxtui`` to open this session (``PATH#ID`` for one of a file's)."""
        if self.session_id is not None and (
            self.path.suffix == ".db" or self.agent == "claude-code"
        ):
            return f"{self.path}#{self.session_id}"
        return str(self.path)

    @property
    def sort_key(self) -> float:
        return self.started.timestamp() if self.started else self.modified


# --- where each agent writes -------------------------------------------------------------


def _home(env: Mapping[str, str]) -> Path:
    return Path(env.get("HOME") or Path.home())


def claude_roots(env: Mapping[str, str]) -> list[Path]:
    """``$CLAUDE_CONFIG_DIR/projects`` (default ``~/.claude``), and ``~/.config/claude``."""
    home = _home(env)
    base = Path(env["CLAUDE_CONFIG_DIR"]) if env.get("CLAUDE_CONFIG_DIR") else home / ".claude"
    return _unique([base / "projects", home / ".config" / "claude" / "projects"])


def codex_root(env: Mapping[str, str]) -> Path:
    return Path(env["CODEX_HOME"]) if env.get("CODEX_HOME") else _home(env) / ".codex"


def opencode_root(env: Mapping[str, str]) -> Path:
    data = Path(env["XDG_DATA_HOME"]) if env.get("XDG_DATA_HOME") else None
    return (data or _home(env) / ".local" / "share") / "opencode"


def picoclaw_sessions_dir(env: Mapping[str, str]) -> Path:
    base = Path(env["PICOCLAW_HOME"]) if env.get("PICOCLAW_HOME") else _home(env) / ".picoclaw"
    return base / "workspace" / "sessions"


def _unique(paths: Iterable[Path]) -> list[Path]:
    seen: list[Path] = []
    for p in paths:
        if p not in seen:
            seen.append(p)
    return seen


# --- reading a bounded head ----------------------------------------------------------------


def _head_records(path: Path) -> Iterator[dict[str, Any]]:
    """The JSON objects on the first lines of a JSONL file, from at most ``HEAD_BYTES``.

    A line cut by the byte limit, or one that is not JSON, is skipped: the head only feeds
    the listing's columns, and a broken file shows up when it is opened.
    """
    if path.name.endswith(".zst"):
        data = _zst_head(path)
    else:
        with path.open("rb") as fh:
            data = fh.read(HEAD_BYTES)
    lines = data.split(b"\n")
    if len(data) >= HEAD_BYTES:
        lines = lines[:-1]
    for raw in lines[:HEAD_RECORDS]:
        try:
            value = json.loads(raw)
        except (ValueError, RecursionError):
            continue
        if isinstance(value, dict):
            yield value


def _zst_head(path: Path) -> bytes:
    import zstandard

    with path.open("rb") as fh:
        reader = zstandard.ZstdDecompressor().stream_reader(fh)
        return bytes(reader.read(HEAD_BYTES))


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _when(value: Any) -> datetime | None:
    """An ISO-8601 string or epoch milliseconds, as an aware datetime; anything else: None."""
    try:
        if isinstance(value, str) and value:
            parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
            return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
        if isinstance(value, (int, float)) and not isinstance(value, bool) and 0 < value < 1e14:
            return datetime.fromtimestamp(value / 1000, tz=UTC)
    except (ValueError, OverflowError, OSError):
        return None
    return None


def _stat(agent: str, path: Path) -> FoundSession:
    st = path.stat()
    return FoundSession(agent=agent, path=path, size=st.st_size, modified=st.st_mtime)


def _guard(found: FoundSession, fill: Any) -> FoundSession:
    """``fill(found)``, or ``found`` with the error's text if the head cannot be read."""
    try:
        result: FoundSession = fill(found)
    except Exception as err:  # a listing must survive any one broken file
        return replace(found, error=_describe(err))
    return result


def _describe(err: BaseException) -> str:
    text = str(err).strip() or "unreadable"
    if isinstance(err, OSError) and err.strerror:
        text = err.strerror.lower()
    return text if len(text) <= 120 else text[:117] + "..."


# --- Claude Code ---------------------------------------------------------------------------


def _claude_fill(found: FoundSession) -> FoundSession:
    project = started = model = None
    for record in _head_records(found.path):
        project = project or _text(record.get("cwd"))
        started = started or _when(record.get("timestamp"))
        message = record.get("message")
        if isinstance(message, dict) and record.get("type") == "assistant":
            model = model or _text(message.get("model"))
        if project and started and model:
            break
    return replace(found, project=project, started=started, model=model)


def _claude_inline_agents(parent: FoundSession) -> tuple[FoundSession, ...]:
    """Sub-agents an older CLI wrote into the parent's own file, one entry per chain, to be
    opened as ``PATH#ID`` (``claude_code.load_sidechain``)."""
    from ctxtui.importers._claude_sidechains import inline_chains

    chains = inline_chains(parent.path)
    return tuple(_inline_agent(parent, cid, chain) for cid, chain in chains.items())


def _inline_agent(parent: FoundSession, chain_id: str, chain: list[dict[str, Any]]) -> FoundSession:
    """One inline sub-agent as a listing entry, from its own records (oldest first)."""
    first = chain[0]
    replies = [r["message"] for r in chain if r.get("type") == "assistant"]
    models = (m.get("model") for m in replies if isinstance(m, dict))
    return replace(
        parent,
        size=sum(r["_bytes"] for r in chain),
        started=_when(first.get("timestamp")),
        project=_text(first.get("cwd")) or parent.project,
        model=next((m for m in models if _text(m) and m != "<synthetic>"), None),
        title=None,
        session_id=chain_id,
        messages=sum(1 for r in chain if r.get("type") in ("user", "assistant")),
    )


def _claude_children(parent: FoundSession) -> tuple[FoundSession, ...]:
    """A session's sub-agents: its ``subagents/`` files, then those written inline."""
    file = parent.path
    subs = sorted((file.parent / file.stem / "subagents").glob("agent-*.jsonl"))
    children = tuple(_guard(_stat("claude-code", s), _claude_fill) for s in subs)
    if parent.error is not None:
        return children
    try:
        return children + _claude_inline_agents(parent)
    except Exception:  # the parent lists fine; its own load says what is wrong inside
        return children


def _loose_agents(files: Iterable[Path]) -> dict[str, list[FoundSession]]:
    """An older CLI's ``agent-*.jsonl`` files beside the sessions, by the ``sessionId`` of
    the session that spawned them (read from their head)."""
    by_parent: dict[str, list[FoundSession]] = {}
    for file in files:
        found = _guard(_stat("claude-code", file), _claude_fill)
        ids = (_text(r.get("sessionId")) for r in _head_records(file)) if not found.error else ()
        parent = next((i for i in ids if i), "")
        by_parent.setdefault(parent, []).append(found)
    return by_parent


def _claude_sessions(root: Path) -> Iterator[FoundSession]:
    for project_dir in sorted(p for p in root.iterdir() if p.is_dir()):
        files = sorted(project_dir.glob("*.jsonl"))
        loose = _loose_agents(f for f in files if f.name.startswith("agent-"))
        for file in files:
            if file.name.startswith("agent-"):
                continue  # a sub-agent: listed under the session that spawned it
            parent = _guard(_stat("claude-code", file), _claude_fill)
            children = (*_claude_children(parent), *loose.pop(file.stem, ()))
            yield replace(parent, children=children) if children else parent
        for orphans in loose.values():
            yield from orphans  # their session is gone; each is still a context window


# --- Codex ---------------------------------------------------------------------------------


def _codex_fill(found: FoundSession) -> FoundSession:
    project = started = model = None
    for record in _head_records(found.path):
        payload = record.get("payload")
        if not isinstance(payload, dict):
            continue
        if record.get("type") == "session_meta":
            project = project or _text(payload.get("cwd"))
            started = started or _when(payload.get("timestamp") or record.get("timestamp"))
        elif record.get("type") == "turn_context":
            model = model or _text(payload.get("model"))
            project = project or _text(payload.get("cwd"))
        if project and started and model:
            break
    return replace(found, project=project, started=started, model=model)


def _codex_sessions(root: Path) -> Iterator[FoundSession]:
    files = list((root / "sessions").rglob("rollout-*.jsonl*"))
    files += list((root / "archived_sessions").glob("rollout-*.jsonl*"))
    plain = {f for f in files if f.name.endswith(".jsonl")}
    for file in sorted(files):
        if not file.name.endswith((".jsonl", ".jsonl.zst")):
            continue
        if file.name.endswith(".zst") and file.with_suffix("") in plain:
            continue  # Codex reads the plain sibling when both exist
        yield _guard(_stat("codex", file), _codex_fill)


# --- OpenCode ------------------------------------------------------------------------------


def _opencode_db_sessions(db: Path) -> Iterator[FoundSession]:
    from ctxtui.core.errors import SessionLoadError
    from ctxtui.importers._sqlite import read_database

    base = _stat("opencode", db)
    try:
        # A live database keeps recent sessions in its -wal; read_database sees them without
        # creating or touching anything beside the file.
        rows = read_database(
            db,
            lambda con: con.execute(
                "SELECT id, directory, title, time_created, "
                "(SELECT COUNT(*) FROM message m WHERE m.session_id = s.id) "
                "FROM session s ORDER BY time_updated DESC"
            ).fetchall(),
        )
    except (sqlite3.Error, SessionLoadError, UnicodeDecodeError, ValueError) as err:
        yield replace(base, error=f"not a readable OpenCode database ({_describe(err)})")
        return
    for sid, directory, title, created, count in rows:
        yield replace(
            base,
            session_id=_text(sid),
            project=_text(directory),
            title=_text(title),
            started=_when(created),
            messages=count if isinstance(count, int) else None,
        )


def _opencode_storage_fill(found: FoundSession) -> FoundSession:
    info_files = list((found.path.parents[1] / "session").glob(f"*/{found.path.name}.json"))
    if not info_files:
        return found
    info = json.loads(info_files[0].read_text(encoding="utf-8"))
    if not isinstance(info, dict):
        return found
    time = info.get("time")
    return replace(
        found,
        project=_text(info.get("directory")),
        title=_text(info.get("title")),
        started=_when(time.get("created")) if isinstance(time, dict) else None,
        messages=sum(1 for _ in found.path.glob("msg_*.json")),
    )


def _opencode_sessions(root: Path) -> Iterator[FoundSession]:
    for db in sorted(root.glob("opencode*.db")):
        yield from _opencode_db_sessions(db)
    message_dir = root / "storage" / "message"
    if message_dir.is_dir():
        for ses in sorted(p for p in message_dir.glob("ses_*") if p.is_dir()):
            yield _guard(_stat("opencode", ses), _opencode_storage_fill)


# --- PicoClaw ------------------------------------------------------------------------------


def _picoclaw_fill(found: FoundSession) -> FoundSession:
    meta_path = found.path.with_name(found.path.stem + ".meta.json")
    if not meta_path.is_file():
        return found
    meta = json.loads(meta_path.read_text(encoding="utf-8"))
    if not isinstance(meta, dict):
        return found
    scope = meta.get("scope")
    channel = _text(scope.get("channel")) if isinstance(scope, dict) else None
    return replace(found, started=_when(meta.get("created_at")), project=channel)


def _picoclaw_sessions(directory: Path) -> Iterator[FoundSession]:
    for file in sorted(directory.glob("*.jsonl")):
        yield _guard(_stat("picoclaw", file), _picoclaw_fill)
    for file in sorted(directory.glob("*.json")):
        if not file.name.endswith(".meta.json"):
            yield _guard(_stat("picoclaw", file), lambda f: f)
    seahorse = directory / "seahorse.db"
    if seahorse.is_file():
        yield _stat("picoclaw", seahorse)


# --- the listing ---------------------------------------------------------------------------


def find_sessions(env: Mapping[str, str] | None = None) -> list[FoundSession]:
    """Every session in the four agents' stores, newest first; sub-agents under their parent."""
    env = os.environ if env is None else env
    found: list[FoundSession] = []
    sources: list[tuple[Path, Any]] = [(r, _claude_sessions) for r in claude_roots(env)]
    sources += [
        (codex_root(env), _codex_sessions),
        (opencode_root(env), _opencode_sessions),
        (picoclaw_sessions_dir(env), _picoclaw_sessions),
    ]
    for root, walk in sources:
        if root.is_dir():
            try:
                found.extend(walk(root))
            except OSError:
                continue  # a store that vanished or cannot be listed holds nothing to show
    found.sort(key=lambda f: f.sort_key, reverse=True)
    return found


_MESSAGE_MARKERS: dict[str, tuple[bytes, ...]] = {
    "claude-code": (
        b'"type":"user"',
        b'"type":"assistant"',
        b'"type": "user"',
        b'"type": "assistant"',
    ),
    "codex": (b'"type":"message"', b'"type": "message"'),
    "picoclaw": (b'"role"',),
}


def count_messages(found: FoundSession) -> int | None:
    """The number of message records, by scanning lines for their markers (no JSON parsing).

    This is the listing's figure, not the importer's: merged records and hidden bookkeeping
    make the opened session differ a little; sub-agents' lines count for them, not the
    parent. ``None`` for files too large to scan or formats whose count the listing already
    knows.
    """
    if found.messages is not None:
        return found.messages
    markers = _MESSAGE_MARKERS.get(found.agent)
    if markers is None or found.size > COUNT_LIMIT_BYTES or found.path.name.endswith(".zst"):
        return None
    from ctxtui.importers._claude_sidechains import SIDECHAIN_MARKER

    count = 0
    with found.path.open("rb") as fh:
        for line in fh:
            if any(m in line for m in markers) and not SIDECHAIN_MARKER.search(line):
                count += 1
    return count
