"""The agents' session stores: where Claude Code, Codex, OpenCode and PicoClaw keep sessions.

``list_sessions()`` lists what is there, newest first, without parsing any transcript: each
entry is built from the file system and a bounded head of the file (the first records name the
working directory, the model and the start time), so listing thousands of sessions stays
fast. Claude Code sub-agents written inline are found by a bounded search of the bytes that
parses only their lines. Counting messages opens the session as the app does and is done on
request (``count_messages``). A file that cannot be read is listed with its error, and a
directory that cannot be read, or a FIFO named like a session, is passed over and counted
(``Listing.skipped``), instead of stopping the listing. Nothing is opened in a way that can
block (``importers._stream.open_regular``).

Each agent's environment override is honoured: ``CLAUDE_CONFIG_DIR``, ``CODEX_HOME``,
``XDG_DATA_HOME`` (OpenCode) and ``PICOCLAW_HOME``. The layouts are described in
docs/formats.md ("Where agents keep their sessions").
"""

from __future__ import annotations

import functools
import os
import sqlite3
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ctxtui.importers._store_files import Skipped as Skipped
from ctxtui.importers._store_files import StoreWalk, describe_error, head_records, read_small_json

COUNT_LIMIT_BYTES = 256 * 1024 * 1024
"""``count_messages`` answers ``None`` for transcripts larger than this rather than open them."""


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
    return list(dict.fromkeys([base / "projects", home / ".config" / "claude" / "projects"]))


def codex_root(env: Mapping[str, str]) -> Path:
    return Path(env["CODEX_HOME"]) if env.get("CODEX_HOME") else _home(env) / ".codex"


def opencode_root(env: Mapping[str, str]) -> Path:
    data = Path(env["XDG_DATA_HOME"]) if env.get("XDG_DATA_HOME") else None
    return (data or _home(env) / ".local" / "share") / "opencode"


def picoclaw_sessions_dir(env: Mapping[str, str]) -> Path:
    base = Path(env["PICOCLAW_HOME"]) if env.get("PICOCLAW_HOME") else _home(env) / ".picoclaw"
    return base / "workspace" / "sessions"


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
    """An entry from the file's ``stat``; one that vanished or cannot be looked at carries
    the reason as its error (the listing still shows it)."""
    try:
        st = path.stat()
    except OSError as err:
        return FoundSession(agent=agent, path=path, size=0, modified=0.0, error=describe_error(err))
    return FoundSession(agent=agent, path=path, size=st.st_size, modified=st.st_mtime)


def _guard(found: FoundSession, fill: Any) -> FoundSession:
    """``fill(found)``, or ``found`` with the error's text if the head cannot be read."""
    if found.error is not None:
        return found
    try:
        result: FoundSession = fill(found)
    except Exception as err:  # a listing must survive any one broken file
        return replace(found, error=describe_error(err))
    return result


# --- Claude Code ---------------------------------------------------------------------------


def _claude_fill(found: FoundSession) -> FoundSession:
    project = started = model = None
    for record in head_records(found.path):
        project = project or _text(record.get("cwd"))
        started = started or _when(record.get("timestamp"))
        if record.get("type") == "assistant":
            message = record.get("message")
            said = message.get("model") if isinstance(message, dict) else record.get("model")
            model = model or _text(said)
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
    models = (r.get("model") for r in chain if r.get("type") == "assistant")
    return replace(
        parent,
        size=sum(r["_bytes"] for r in chain),
        started=_when(first.get("timestamp")),
        project=_text(first.get("cwd")) or parent.project,
        model=next((m for m in models if _text(m) and m != "<synthetic>"), None),
        title=None,
        session_id=chain_id,
    )


def _claude_children(
    walk: StoreWalk, parent: FoundSession, has_dir: bool
) -> tuple[FoundSession, ...]:
    """A session's sub-agents: its ``subagents/`` files, then those written inline."""
    file = parent.path
    subs = walk.files(file.parent / file.stem / "subagents", "agent-*.jsonl") if has_dir else []
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
        parent = ""
        if found.error is None:
            try:
                ids = (_text(r.get("sessionId")) for r in head_records(file))
                parent = next((i for i in ids if i), "")
            except Exception:  # swapped or broken since the fill: it stays an orphan
                parent = ""
        by_parent.setdefault(parent, []).append(found)
    return by_parent


def _claude_sessions(walk: StoreWalk, root: Path) -> Iterator[FoundSession]:
    for project_dir in walk.dirs(root):
        files = walk.files(project_dir, "*.jsonl")
        session_dirs = {p.name for p in walk.dirs(project_dir)}
        loose = _loose_agents(f for f in files if f.name.startswith("agent-"))
        for file in files:
            if file.name.startswith("agent-"):
                continue  # a sub-agent: listed under the session that spawned it
            parent = _guard(_stat("claude-code", file), _claude_fill)
            children = (
                *_claude_children(walk, parent, file.stem in session_dirs),
                *loose.pop(file.stem, ()),
            )
            yield replace(parent, children=children) if children else parent
        for orphans in loose.values():
            yield from orphans  # their session is gone; each is still a context window


# --- Codex ---------------------------------------------------------------------------------


def _codex_fill(found: FoundSession) -> FoundSession:
    project = started = model = None
    for record in head_records(found.path):
        payload = record.get("payload")
        if record.get("_sketch"):
            payload = record  # a sketch holds the fields it found at every depth
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


def _codex_sessions(walk: StoreWalk, root: Path) -> Iterator[FoundSession]:
    files = walk.tree(root / "sessions", "rollout-*.jsonl*")
    files += walk.files(root / "archived_sessions", "rollout-*.jsonl*")
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
    if base.error is not None:
        yield base
        return
    try:
        # A live database keeps recent sessions in its -wal; read_database sees them without
        # creating or touching anything beside the file. One pass over the sessions: no
        # per-session subquery (without an index on message.session_id that is quadratic).
        rows = read_database(
            db,
            lambda con: con.execute(
                "SELECT id, directory, title, time_created FROM session ORDER BY time_updated DESC"
            ).fetchall(),
        )
    except (sqlite3.Error, SessionLoadError, UnicodeDecodeError, ValueError) as err:
        yield replace(base, error=f"not a readable OpenCode database ({describe_error(err)})")
        return
    for sid, directory, title, created in rows:
        yield replace(
            base,
            session_id=_text(sid),
            project=_text(directory),
            title=_text(title),
            started=_when(created),
        )


def _opencode_storage_fill(walk: StoreWalk, found: FoundSession) -> FoundSession:
    info_files = [
        info
        for sub in walk.dirs(found.path.parents[1] / "session")
        for info in walk.files(sub, f"{found.path.name}.json")
    ]
    if not info_files:
        return found
    info = read_small_json(info_files[0])
    if not isinstance(info, dict):
        return found
    time = info.get("time")
    return replace(
        found,
        project=_text(info.get("directory")),
        title=_text(info.get("title")),
        started=_when(time.get("created")) if isinstance(time, dict) else None,
    )


def _opencode_sessions(walk: StoreWalk, root: Path) -> Iterator[FoundSession]:
    for db in walk.files(root, "opencode*.db"):
        yield from _opencode_db_sessions(db)
    for ses in walk.dirs(root / "storage" / "message", "ses_*"):
        yield _guard(_stat("opencode", ses), lambda f: _opencode_storage_fill(walk, f))


# --- PicoClaw ------------------------------------------------------------------------------


def _picoclaw_fill(found: FoundSession) -> FoundSession:
    meta_path = found.path.with_name(found.path.stem + ".meta.json")
    if not meta_path.is_file():
        return found
    meta = read_small_json(meta_path)
    if not isinstance(meta, dict):
        return found
    scope = meta.get("scope")
    channel = _text(scope.get("channel")) if isinstance(scope, dict) else None
    return replace(found, started=_when(meta.get("created_at")), project=channel)


def _picoclaw_sessions(walk: StoreWalk, directory: Path) -> Iterator[FoundSession]:
    for file in walk.files(directory, "*.jsonl"):
        yield _guard(_stat("picoclaw", file), _picoclaw_fill)
    for file in walk.files(directory, "*.json"):
        if not file.name.endswith(".meta.json"):
            yield _stat("picoclaw", file)
    for seahorse in walk.files(directory, "seahorse.db"):
        yield _stat("picoclaw", seahorse)


# --- the listing ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Listing:
    """The sessions found, newest first, and the paths passed over on the way."""

    sessions: list[FoundSession]
    skipped: list[Skipped]


def list_sessions(env: Mapping[str, str] | None = None) -> Listing:
    """Every session in the four agents' stores, newest first; sub-agents under their parent.

    A directory that cannot be read, and anything named like a session that is not a regular
    file, is passed over and noted in ``skipped``; everything else is still listed.
    """
    env = os.environ if env is None else env
    walk = StoreWalk()
    found: list[FoundSession] = []
    sources: list[tuple[Path, Any]] = [(r, _claude_sessions) for r in claude_roots(env)]
    sources += [
        (codex_root(env), _codex_sessions),
        (opencode_root(env), _opencode_sessions),
        (picoclaw_sessions_dir(env), _picoclaw_sessions),
    ]
    for root, source in sources:
        found.extend(source(walk, root))
    found.sort(key=lambda f: f.sort_key, reverse=True)
    return Listing(found, walk.skipped)


def find_sessions(env: Mapping[str, str] | None = None) -> list[FoundSession]:
    """``list_sessions(env).sessions``: the sessions alone."""
    return list_sessions(env).sessions


def count_messages(found: FoundSession) -> int | None:
    """How many messages the app shows when it opens ``found``: the session is imported, as
    opening it would, and its messages counted. ``None`` for a file larger than
    ``COUNT_LIMIT_BYTES`` (counting it would cost what opening it costs). Raises
    ``SessionLoadError`` when the session cannot be opened."""
    if found.messages is not None:
        return found.messages
    if found.agent == "opencode" and found.session_id is not None:
        st = found.path.stat()
        counts = _database_counts(found.path, st.st_ino, st.st_size, st.st_mtime_ns)
        if found.session_id in counts:
            return counts[found.session_id]
    if found.path.suffix != ".db" and found.path.stat().st_size > COUNT_LIMIT_BYTES:
        return None
    from ctxtui.importers import load_session

    return len(load_session(found.open_target).messages)


@functools.lru_cache(maxsize=4)
def _database_counts(path: Path, inode: int, size: int, mtime_ns: int) -> dict[str, int]:
    """An OpenCode database's counts, read once per version of the file (the stat fields
    are the key: a database written since is read again)."""
    from ctxtui.importers import hoist_system_prompt
    from ctxtui.importers._opencode_sqlite import message_counts

    return message_counts(path, hoist_system_prompt)
