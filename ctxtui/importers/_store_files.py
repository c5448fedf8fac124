"""Reading the agents' stores without trusting them: a walk that never raises, bounded heads,
and ``FoundSession``, what a listing knows of a session without parsing it.

Each importer's ``list_store`` lists its agent's sessions from here; ``ctxtui.stores.listing`` joins
them. A directory that cannot be read is noted and
passed over (``StoreWalk.skipped``), so it hides nothing listed after it; a FIFO, socket or
symlink loop named like a transcript is never opened; a transcript's head is read in chunks
within ``SCAN_BYTES``, keeping at most ``HEAD_BYTES`` of any line, so a multi-gigabyte line
costs the listing a bounded read and a few kilobytes of memory.
"""

from __future__ import annotations

import fnmatch
import json
import os
import re
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, BinaryIO, cast

from ctxtui.importers._stream import NotRegularFileError, file_kind, open_regular
from ctxtui.importers._timestamps import in_range

HEAD_BYTES = 64 * 1024
"""How much of one line the listing keeps: a record longer than this is sketched, not parsed."""
TAIL_BYTES = 4 * 1024
"""How much of a long line's end the listing keeps (a Claude Code record ends with its time)."""
SCAN_BYTES = 16 * 1024 * 1024
"""How much of a transcript the listing reads at most, in chunks, never a whole file."""
HEAD_RECORDS = 40


def describe_error(err: BaseException) -> str:
    text = str(err).strip() or "unreadable"
    if isinstance(err, NotRegularFileError):
        text = err.problem
    elif isinstance(err, OSError) and err.strerror:
        text = err.strerror.lower()
    return text if len(text) <= 120 else text[:117] + "..."


@dataclass(frozen=True)
class Skipped:
    """A path the listing passed over: a directory it could not read, or a file named like a
    session that is not a regular file (a FIFO, a socket, a symlink loop)."""

    path: Path
    reason: str


TREE_DEPTH = 6
"""How deep the listing looks below a store's root (Codex nests year/month/day: 3)."""


class StoreWalk:
    """Directory listings that never raise: what cannot be read is noted in ``skipped`` and
    the walk goes on, so one unreadable directory hides nothing listed after it."""

    def __init__(self) -> None:
        self.skipped: list[Skipped] = []
        self._noted: set[Path] = set()  # a directory is looked into for files and for dirs

    def skip(self, path: Path, err: BaseException | str) -> None:
        if path not in self._noted:
            self._noted.add(path)
            reason = err if isinstance(err, str) else describe_error(err)
            self.skipped.append(Skipped(path, reason))

    def entries(self, directory: Path) -> list[os.DirEntry[str]]:
        """``directory``'s entries by name; none (and a note) when it cannot be read."""
        try:
            with os.scandir(directory) as it:
                return sorted(it, key=lambda e: e.name)
        except FileNotFoundError:
            return []  # it vanished, or was never there: nothing to list, nothing to say
        except OSError as err:
            self.skip(directory, err)
            return []

    def kind(self, entry: os.DirEntry[str]) -> int | None:
        """``entry``'s file type (symlinks followed); ``None`` and a note when it has none."""
        try:
            return stat.S_IFMT(entry.stat().st_mode)
        except FileNotFoundError:
            return None  # a dangling symlink, or gone meanwhile
        except OSError as err:  # a symlink loop, a name too long, no search permission
            self.skip(Path(entry.path), err)
            return None

    def dirs(self, directory: Path, pattern: str = "*") -> list[Path]:
        """The subdirectories of ``directory`` whose names match ``pattern``."""
        return [
            Path(e.path)
            for e in self.entries(directory)
            if fnmatch.fnmatchcase(e.name, pattern) and self.kind(e) == stat.S_IFDIR
        ]

    def files(self, directory: Path, pattern: str) -> list[Path]:
        """The regular files in ``directory`` named like ``pattern``; anything else so named
        (a FIFO would hang whoever opens it) is noted as skipped."""
        found = []
        for entry in self.entries(directory):
            if not fnmatch.fnmatchcase(entry.name, pattern):
                continue
            kind = self.kind(entry)
            if kind == stat.S_IFREG:
                found.append(Path(entry.path))
            elif kind is not None and kind != stat.S_IFDIR:
                self.skip(Path(entry.path), f"not a regular file ({file_kind(kind)})")
        return found

    def tree(self, directory: Path, pattern: str, depth: int = TREE_DEPTH) -> list[Path]:
        """``files`` of ``directory`` and its subdirectories down to ``depth`` levels; a
        symlinked directory is not followed, so a loop cannot make the walk endless."""
        found = self.files(directory, pattern)
        if depth > 0:
            for entry in self.entries(directory):
                try:
                    real_dir = entry.is_dir(follow_symlinks=False)
                except OSError:
                    continue
                if real_dir:
                    found += self.tree(Path(entry.path), pattern, depth - 1)
        return found


# --- reading a bounded head ----------------------------------------------------------------

_CHUNK = 64 * 1024


def _head_lines(fh: BinaryIO) -> Iterator[tuple[bytes, bytes | None]]:
    """The first lines of ``fh`` from at most ``SCAN_BYTES``, none kept past ``HEAD_BYTES``.

    Yields ``(line, None)`` for a line that fits, and ``(head, tail)`` for a longer one: its
    first ``HEAD_BYTES`` and last ``TAIL_BYTES`` (a pasted image's line is megabytes long,
    and the record's own fields sit before and after it). A line cut by the end of the file
    is not yielded; one cut by the end of the budget gives its head alone, with an empty tail.
    """
    line = bytearray()
    tail = b""
    long = False
    budget = SCAN_BYTES
    while True:
        chunk = fh.read(min(_CHUNK, budget)) if budget > 0 else b""
        if not chunk:
            if long and budget <= 0:
                yield bytes(line), b""
            return
        budget -= len(chunk)
        start = 0
        while True:
            newline = chunk.find(b"\n", start)
            piece = chunk[start : len(chunk) if newline < 0 else newline]
            if long:
                tail = (tail + piece)[-TAIL_BYTES:]
            else:
                line += piece
                if len(line) > HEAD_BYTES:
                    long, tail = True, bytes(line[-TAIL_BYTES:])
                    del line[HEAD_BYTES:]
            if newline < 0:
                break
            yield (bytes(line), tail) if long else (bytes(line), None)
            line, tail, long = bytearray(), b"", False
            start = newline + 1


_FIELD = re.compile(
    rb'"(cwd|timestamp|sessionId|type|uuid|model|agentId)"\s*:\s*"((?:[^"\\]|\\.){0,4096})"'
)


def _sketch(head: bytes, tail: bytes) -> dict[str, Any]:
    """The scalar fields a listing needs from a record too long to parse: those before its
    ``"message"`` in the head (a Claude Code record names cwd and type first) and, for any
    still missing, the last of each in the tail (where its uuid and timestamp are)."""
    cut = head.find(b'"message"')
    before = head if cut < 0 else head[:cut]
    record: dict[str, Any] = {"_sketch": True}
    for match in _FIELD.finditer(before):
        record.setdefault(match[1].decode(), _string(match[2]))
    if "model" not in record and cut >= 0:
        found = _FIELD.search(head, cut)
        while found is not None and found[1] != b"model":
            found = _FIELD.search(head, found.end())
        if found is not None:
            record["model"] = _string(found[2])
    late: dict[str, Any] = {}
    for match in _FIELD.finditer(tail):
        late[match[1].decode()] = _string(match[2])
    return {**late, **record}


def _string(raw: bytes) -> str | None:
    try:
        value = json.loads(b'"' + raw + b'"')
    except ValueError:
        return None
    return value if isinstance(value, str) else None


def head_records(path: Path) -> Iterator[dict[str, Any]]:
    """The JSON objects on the first lines of a JSONL file, read within the listing's budget
    (``SCAN_BYTES`` read, ``HEAD_BYTES`` kept of a line); a longer line gives its sketch.

    A line that is not JSON is skipped: the head only feeds the listing's columns, and a
    broken file shows up when it is opened.
    """
    with open_regular(path) as raw:
        fh: BinaryIO = raw
        if path.name.endswith(".zst"):
            import zstandard

            fh = cast(BinaryIO, zstandard.ZstdDecompressor().stream_reader(raw))
        for count, (line, tail) in enumerate(_head_lines(fh)):
            if count >= HEAD_RECORDS:
                return
            if tail is not None:
                yield _sketch(line, tail)
                continue
            try:
                value = json.loads(line)
            except (ValueError, RecursionError):
                continue
            if isinstance(value, dict):
                yield value


def read_small_json(path: Path) -> Any:
    """A side file's JSON (an OpenCode session's info, a PicoClaw meta), opened without
    blocking and read up to ``SIDE_FILE_BYTES``; a larger one is refused."""
    with open_regular(path) as fh:
        data = fh.read(SIDE_FILE_BYTES + 1)
    if len(data) > SIDE_FILE_BYTES:
        raise ValueError(f"{path.name} is larger than {SIDE_FILE_BYTES // 1024:,} KiB")
    return json.loads(data)


SIDE_FILE_BYTES = 1024 * 1024
"""A session's metadata file is a few hundred bytes; more than this is not one."""


# --- what the listing knows of one session -------------------------------------------------


@dataclass(frozen=True)
class FoundSession:
    """One session in an agent's store, as far as the listing can tell without parsing it."""

    agent: str  # the format's name: claude-code, codex, opencode, picoclaw
    path: Path  # what to open (``open_target`` adds an OpenCode database's session id)
    size: int
    modified: float  # the file's mtime, seconds since the epoch
    started: datetime | None = None
    project: str | None = None  # working directory or project name
    model: str | None = None
    title: str | None = None
    session_id: str | None = None  # one of the sessions a file holds (``PATH#ID``)
    messages: int | None = None  # counted on request only
    error: str | None = None
    children: tuple[FoundSession, ...] = field(default=())  # Claude Code sub-agents

    @property
    def open_target(self) -> str:
        """What to pass to ``ctxtui`` to open this session (``PATH#ID`` for one of a file's:
        an OpenCode database's, a Claude Code sub-agent written inline)."""
        if self.session_id is not None:
            return f"{self.path}#{self.session_id}"
        return str(self.path)

    @property
    def sort_key(self) -> float:
        return self.started.timestamp() if self.started else self.modified


def text(value: Any) -> str | None:
    """A non-empty string read from a record, or ``None``."""
    return value if isinstance(value, str) and value else None


def when(value: Any) -> datetime | None:
    """An ISO-8601 string or epoch milliseconds, as an aware datetime; anything else (a time
    out of ``_timestamps.in_range`` included): None."""
    try:
        if isinstance(value, str) and value:
            parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
            return in_range(parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC))
        if isinstance(value, (int, float)) and not isinstance(value, bool) and 0 < value < 1e14:
            return in_range(datetime.fromtimestamp(value / 1000, tz=UTC))
    except (ValueError, OverflowError, OSError):
        return None
    return None


def stat_entry(agent: str, path: Path) -> FoundSession:
    """An entry from the file's ``stat``; one that vanished or cannot be looked at carries
    the reason as its error (the listing still shows it)."""
    try:
        st = path.stat()
    except OSError as err:
        return FoundSession(agent=agent, path=path, size=0, modified=0.0, error=describe_error(err))
    return FoundSession(agent=agent, path=path, size=st.st_size, modified=st.st_mtime)


def guard(found: FoundSession, fill: Callable[[FoundSession], FoundSession]) -> FoundSession:
    """``fill(found)``, or ``found`` with the error's text if the head cannot be read."""
    if found.error is not None:
        return found
    try:
        return fill(found)
    except Exception as err:  # a listing must survive any one broken file
        return replace(found, error=describe_error(err))
