"""The fleet's incremental index: each session's row kept in SQLite between runs.

One database in the user's cache directory (``platformdirs.user_cache_dir("ctxtui")``, or
``CTXTUI_CACHE_DIR``), never beside the sessions. A file is known by its path, size, mtime
and a hash of its head and tail (``Identity``); its policy-free figures are stored once, and
each preset's simulation under the fingerprint of the policy it ran with. A second run reads
again only the files whose identity changed, or the presets not stored yet.

Safety: every write is a SQLite transaction (a reader sees the rows before or after it, never
half of one; an interrupted run keeps what it committed). A database that is not ours, is
corrupt, or comes from another index version is renamed aside with one line of warning and a
new one started; an index that cannot be opened at all only makes the run uncached.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sqlite3
import stat
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ctxtui.core.fleet import Row
from ctxtui.system.cache_files import check_regular_or_missing, ours

FILE_NAME = "fleet.sqlite3"
APPLICATION_ID = 0x63747869  # "ctxi": marks the database as this index
_SQLITE_MAGIC = b"SQLite format 3\x00"
SCHEMA_VERSION = 1
ENV_DIR = "CTXTUI_CACHE_DIR"
EDGE_BYTES = 8 * 1024
"""How much of each end of a file its identity hashes: a transcript grows at its tail and an
edit of its head changes the first records; both ends cost two small reads, not a whole file."""
MAX_DIR_ENTRIES = 20_000
"""A session stored as a directory (OpenCode's storage) is known by its listing, up to this."""

_TABLES = """
CREATE TABLE IF NOT EXISTS files (
    path TEXT PRIMARY KEY,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    digest TEXT NOT NULL,
    reader TEXT NOT NULL,
    base TEXT NOT NULL,
    stored REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS simulated (
    path TEXT NOT NULL REFERENCES files(path) ON DELETE CASCADE,
    fingerprint TEXT NOT NULL,
    preset TEXT NOT NULL,
    result TEXT NOT NULL,
    PRIMARY KEY (path, fingerprint)
);
"""
_CHAINS = """
CREATE TABLE IF NOT EXISTS chains (
    path TEXT PRIMARY KEY,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    digest TEXT NOT NULL,
    ids TEXT NOT NULL
);
"""
"""The sub-agents a Claude Code file holds inline, by the file's identity: finding them
searches the whole file, which a run over an unchanged fleet must not do again."""
_GROWN = """
CREATE TABLE IF NOT EXISTS grown (
    path TEXT PRIMARY KEY,
    reader TEXT NOT NULL,
    state BLOB NOT NULL
);
"""
"""What a run kept to read a file that grew from its settled messages on (``job.Grown``),
by path: the state itself checks that the file was only appended to."""


@dataclass(frozen=True, slots=True)
class Identity:
    """What a session file is, as far as the index is concerned."""

    size: int
    mtime_ns: int
    digest: str


def default_path() -> Path:
    """The index in the user's cache directory (``CTXTUI_CACHE_DIR`` overrides it)."""
    directory = os.environ.get(ENV_DIR)
    if not directory:
        import platformdirs

        directory = platformdirs.user_cache_dir("ctxtui")
    return Path(directory) / FILE_NAME


def _edges(path: Path, size: int) -> bytes:
    """The first and last ``EDGE_BYTES`` of a regular file (opened only once it is one)."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))  # a FIFO never blocks
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(f"{path}: not a regular file")
        head = os.pread(fd, EDGE_BYTES, 0)
        tail = os.pread(fd, EDGE_BYTES, max(0, size - EDGE_BYTES)) if size > EDGE_BYTES else b""
    finally:
        os.close(fd)
    return head + b"\0" + tail


def _listing(directory: Path) -> tuple[bytes, int, int]:
    """A directory session's identity: its entries' names, sizes and mtimes."""
    entries = []
    total = newest = 0
    with os.scandir(directory) as it:
        for n, entry in enumerate(it):
            if n >= MAX_DIR_ENTRIES:
                break
            st = entry.stat(follow_symlinks=False)
            entries.append(f"{entry.name}\0{st.st_size}\0{st.st_mtime_ns}")
            total += st.st_size
            newest = max(newest, st.st_mtime_ns)
    return "\n".join(sorted(entries)).encode("utf-8", "surrogateescape"), total, newest


def identity(target: str) -> Identity | None:
    """The identity of what ``target`` (``PATH`` or ``PATH#ID``) reads, or ``None`` when there
    is nothing to key it by (missing, a FIFO, unreadable): such a target is always read."""
    path = Path(target)
    if "#" in target and not path.exists():  # PATH#ID: the importers say which it is
        from ctxtui.importers import split_session_id

        path, _ = split_session_id(target)
    try:
        st = path.stat()
        if stat.S_ISDIR(st.st_mode):
            data, size, mtime = _listing(path)
        elif stat.S_ISREG(st.st_mode):
            data, size, mtime = _edges(path, st.st_size), st.st_size, st.st_mtime_ns
        else:
            return None
    except OSError:
        return None
    digest = hashlib.blake2b(data, digest_size=16).hexdigest()
    return Identity(size, mtime, digest)


@dataclass(frozen=True, slots=True)
class Kept:
    """What a run found of one file: its row, its simulations ``(fingerprint, preset,
    result)``, and what reads it on should it grow (``job.Grown``)."""

    base: Row
    simulated: Sequence[tuple[str, str, dict[str, Any]]] = ()
    grown: bytes | None = None


class UnusableIndexError(Exception):
    """The database at hand is not a usable index."""


class FleetIndex:
    """The open index. Not thread-safe: one per thread (the app's worker has its own)."""

    def __init__(self, path: Path, warn: Callable[[str], None]) -> None:
        self.path = path
        self._warn = warn
        self._con: sqlite3.Connection | None = None
        try:
            self._con = self._open()
        except (OSError, sqlite3.Error) as err:
            warn(f"the fleet index {path} cannot be used ({_why(err)}); running without it")

    @property
    def usable(self) -> bool:
        return self._con is not None

    def _connect(self) -> sqlite3.Connection:
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        for path in _files(self.path):  # SQLite would block on a FIFO, read a device
            check_regular_or_missing(path)
        con = sqlite3.connect(self.path, timeout=5.0, isolation_level=None)
        try:
            con.execute("PRAGMA foreign_keys = ON")
            con.execute("PRAGMA synchronous = NORMAL")
            app_id = con.execute("PRAGMA application_id").fetchone()[0]
            version = con.execute("PRAGMA user_version").fetchone()[0]
            tables = con.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
            if app_id == 0 and tables == 0:  # a new file: make it ours
                con.execute("PRAGMA journal_mode = WAL")
                con.execute(f"PRAGMA application_id = {APPLICATION_ID}")
                con.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
                con.executescript(_TABLES)
            elif app_id != APPLICATION_ID:
                raise UnusableIndexError("not a ctxtui fleet index")
            elif version != SCHEMA_VERSION:
                raise UnusableIndexError(f"index version {version}, expected {SCHEMA_VERSION}")
            else:
                con.execute("SELECT path, size, mtime_ns, digest, reader, base FROM files LIMIT 1")
                con.execute("SELECT path, fingerprint, preset, result FROM simulated LIMIT 1")
            con.executescript(_CHAINS)
            con.executescript(_GROWN)
        except BaseException:
            con.close()
            raise
        return con

    def _open(self) -> sqlite3.Connection:
        try:
            return self._connect()
        except (sqlite3.DatabaseError, UnusableIndexError) as err:
            if isinstance(err, sqlite3.OperationalError) and "locked" in str(err):
                raise
            aside = self._set_aside()
            self._warn(
                f"the fleet index {self.path} was unusable ({_why(err)}); set aside as "
                f"{aside.name}, starting a new one"
            )
            return self._connect()

    def _set_aside(self) -> Path:
        stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
        aside = self.path.with_name(f"{self.path.name}.unusable-{stamp}")
        n = 1
        while aside.exists():
            n += 1
            aside = self.path.with_name(f"{self.path.name}.unusable-{stamp}-{n}")
        self.path.rename(aside)
        for suffix in ("-wal", "-shm"):
            with contextlib.suppress(OSError):
                self.path.with_name(self.path.name + suffix).unlink()
        for older in self.path.parent.glob(f"{self.path.name}.unusable-*"):
            if older != aside:  # one set aside is enough to look into; they piled up
                with contextlib.suppress(OSError):
                    older.unlink()
        return aside

    def close(self) -> None:
        if self._con is not None:
            self._con.close()
            self._con = None

    def __enter__(self) -> FleetIndex:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- reading -------------------------------------------------------------------------

    def lookup(
        self, target: str, ident: Identity, reader: str, fingerprints: Iterable[str]
    ) -> tuple[Row | None, dict[str, dict[str, Any]]]:
        """The stored base row of ``target`` if its identity and reader still match, and the
        simulations stored for those of ``fingerprints`` it has."""
        if self._con is None:
            return None, {}
        try:
            found = self._con.execute(
                "SELECT size, mtime_ns, digest, reader, base FROM files WHERE path = ?",
                (_key(target),),
            ).fetchone()
            if found is None or tuple(found[:4]) != (
                ident.size,
                ident.mtime_ns,
                ident.digest,
                reader,
            ):
                return None, {}
            wanted = list(fingerprints)
            marks = ",".join("?" * len(wanted))
            sims = self._con.execute(
                f"SELECT fingerprint, result FROM simulated WHERE path = ? "
                f"AND fingerprint IN ({marks})",
                (_key(target), *wanted),
            ).fetchall()
            return json.loads(found[4]), {fp: json.loads(r) for fp, r in sims}
        except (sqlite3.Error, ValueError) as err:
            self._fail(err)
            return None, {}

    def rows(self, fingerprint: str | None = None) -> list[tuple[Row, dict[str, Any] | None]]:
        """Every stored row, with its simulation under ``fingerprint`` when stored: the fleet
        as the index holds it, without touching a session file."""
        if self._con is None:
            return []
        try:
            found = self._con.execute(
                "SELECT f.base, s.result FROM files f LEFT JOIN simulated s "
                "ON s.path = f.path AND s.fingerprint = ? ORDER BY f.path",
                (fingerprint or "",),
            ).fetchall()
        except sqlite3.Error as err:
            self._fail(err)
            return []
        return [(json.loads(b), json.loads(s) if s is not None else None) for b, s in found]

    def chains(self, path: str, ident: Identity) -> list[str] | None:
        """The inline sub-agents stored for ``path`` as it is now; ``None`` when unknown."""
        if self._con is None:
            return None
        try:
            found = self._con.execute(
                "SELECT ids FROM chains WHERE path = ? AND size = ? AND mtime_ns = ? "
                "AND digest = ?",
                (_key(path), ident.size, ident.mtime_ns, ident.digest),
            ).fetchone()
        except sqlite3.Error as err:
            self._fail(err)
            return None
        return None if found is None else list(json.loads(found[0]))

    def grown(self, path: str, reader: str) -> bytes | None:
        """What a run under ``reader`` kept to read ``path`` on from, if anything."""
        if self._con is None:
            return None
        try:
            found = self._con.execute(
                "SELECT state FROM grown WHERE path = ? AND reader = ?", (_key(path), reader)
            ).fetchone()
        except sqlite3.Error as err:
            self._fail(err)
            return None
        return None if found is None else bytes(found[0])

    # -- writing -------------------------------------------------------------------------

    def store_chains(self, path: str, ident: Identity, ids: Sequence[str]) -> None:
        """Keep the inline sub-agents found in ``path`` (none is an answer too)."""
        if self._con is None:
            return
        try:
            self._con.execute(
                "INSERT OR REPLACE INTO chains (path, size, mtime_ns, digest, ids) "
                "VALUES (?, ?, ?, ?, ?)",
                (_key(path), ident.size, ident.mtime_ns, ident.digest, json.dumps(list(ids))),
            )
        except sqlite3.Error as err:
            self._fail(err)

    def store(self, target: str, ident: Identity, reader: str, kept: Kept) -> None:
        """Keep what a run found of ``target`` in one transaction. A file whose identity
        changed loses its older simulations, and what read it on unless ``kept`` has more."""
        if self._con is None:
            return
        base, simulated, grown = kept.base, kept.simulated, kept.grown
        con = self._con
        key = _key(target)
        try:
            con.execute("BEGIN IMMEDIATE")
            old = con.execute(
                "SELECT size, mtime_ns, digest, reader FROM files WHERE path = ?", (key,)
            ).fetchone()
            if old is not None and tuple(old) != (ident.size, ident.mtime_ns, ident.digest, reader):
                con.execute("DELETE FROM simulated WHERE path = ?", (key,))
            con.execute(
                "INSERT INTO files (path, size, mtime_ns, digest, reader, base, stored) "
                "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(path) DO UPDATE SET "
                "size = excluded.size, mtime_ns = excluded.mtime_ns, digest = excluded.digest, "
                "reader = excluded.reader, base = excluded.base, stored = excluded.stored",
                (
                    key,
                    ident.size,
                    ident.mtime_ns,
                    ident.digest,
                    reader,
                    json.dumps(base),
                    time.time(),
                ),
            )
            con.executemany(
                "INSERT OR REPLACE INTO simulated (path, fingerprint, preset, result) "
                "VALUES (?, ?, ?, ?)",
                [(key, fp, preset, json.dumps(result)) for fp, preset, result in simulated],
            )
            if grown is None:
                con.execute("DELETE FROM grown WHERE path = ?", (key,))
            else:
                con.execute(
                    "INSERT OR REPLACE INTO grown (path, reader, state) VALUES (?, ?, ?)",
                    (key, reader, grown),
                )
            con.execute("COMMIT")
        except sqlite3.Error as err:
            with contextlib.suppress(sqlite3.Error):
                con.execute("ROLLBACK")
            self._fail(err)

    def forget_missing(self) -> int:
        """Drop what every table keeps of files that no longer exist (a deleted session's
        row stayed for ever); the number of paths dropped. A path that cannot be checked
        (a permission error on its directory) is kept."""
        if self._con is None:
            return 0
        con = self._con
        try:
            tables = [
                name
                for (name,) in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
                if any(col[1] == "path" for col in con.execute(f"PRAGMA table_info({name})"))
            ]
            paths = {p for t in tables for (p,) in con.execute(f"SELECT path FROM {t}")}
            gone = [(p,) for p in paths if _missing(p if isinstance(p, str) else os.fsdecode(p))]
            if gone:
                con.execute("BEGIN IMMEDIATE")
                for table in tables:
                    con.executemany(f"DELETE FROM {table} WHERE path = ?", gone)
                con.execute("COMMIT")
        except sqlite3.Error as err:
            with contextlib.suppress(sqlite3.Error):
                con.execute("ROLLBACK")
            self._fail(err)
            return 0
        return len(gone)

    def _fail(self, err: Exception) -> None:
        """A database that breaks mid-run: say so once and carry on without it."""
        self._warn(f"the fleet index {self.path} failed ({_why(err)}); running without it")
        self.close()


def _key(path: str) -> str | bytes:
    """How ``path`` is stored: as text, or as its bytes when its name is not UTF-8 (SQLite
    refuses a lone surrogate, and one such name turned the index off for the whole run)."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return os.fsencode(path)
    return path


def _missing(target: str) -> bool:
    """Whether the file ``target`` (``PATH`` or ``PATH#ID``) names is gone."""
    try:
        if Path(target).exists():
            return False
        return "#" not in target or not Path(target.rpartition("#")[0]).exists()
    except OSError:
        return False


def _why(err: BaseException) -> str:
    text = str(err) or type(err).__name__
    return text if len(text) <= 120 else text[:117] + "..."


def _files(path: Path) -> tuple[Path, Path, Path]:
    """The index and SQLite's side files."""
    return path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")


def is_index(path: Path) -> bool:
    """Whether ``path`` is a database this module made: a regular file whose SQLite header
    carries ``APPLICATION_ID`` (byte 68), read without opening it as a database."""
    return ours(path, _SQLITE_MAGIC) and ours(path, APPLICATION_ID.to_bytes(4, "big"), 68)


def clear(path: Path | None = None) -> tuple[list[Path], list[Path]]:
    """Remove the index and SQLite's side files if the index is ctxtui's; the paths removed,
    and the one kept because it is not (another program's database under the same name).
    An ``OSError`` (a directory the user cannot write) is raised for the caller to word."""
    path = path or default_path()
    if not path.exists() and not path.is_symlink():
        return [], []
    if not is_index(path):
        return [], [path]
    removed = []
    for p in _files(path):
        try:
            p.unlink()
        except FileNotFoundError:
            continue
        removed.append(p)
    return removed, []
