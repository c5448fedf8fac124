"""What the open dialog lists: the agents' sessions and the bundled samples, as filterable rows.

Plain data, no widgets: ``pick_rows`` flattens ``ctxtui.stores.listing`` entries (a Claude Code
sub-agent right under its parent) and the samples into rows of column texts, and ``matching``
keeps the rows whose words hold every word typed in the filter. The dialog only paints them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ctxtui.core.literal import visible
from ctxtui.core.wording import file_size
from ctxtui.importers import FoundSession

SAMPLE = "sample"
"""The agent column of a bundled sample session."""

PROJECT_CELLS = 38
COLUMNS = (("agent", 11), ("project", PROJECT_CELLS), ("model", 18), ("started", 16), ("size", 9))
"""Each column's heading and width in cells: fixed, so a late long value moves nothing."""
"""Project paths longer than this keep their end (the project's own name) behind an ellipsis."""


@dataclass(frozen=True, slots=True)
class PickRow:
    """One line of the list: the entry, how deep it is nested, and its column texts."""

    found: FoundSession
    depth: int
    cells: tuple[str, str, str, str, str]
    words: str  # lower-cased text the filter searches

    @property
    def target(self) -> Path:
        """What opening the row loads (``opencode.db#ses_X`` for one session of a database)."""
        return Path(self.found.open_target)


def sample_sessions(directory: Path) -> list[FoundSession]:
    """The bundled sample sessions in ``directory``, by name; sidecar files are left out."""
    found = []
    for path in sorted(directory.iterdir()):
        if path.suffix not in (".json", ".jsonl") or path.name.endswith(".meta.json"):
            continue
        stat = path.stat()
        found.append(
            FoundSession(
                agent=SAMPLE, path=path, size=stat.st_size, modified=stat.st_mtime, title=path.name
            )
        )
    return found


def _started(found: FoundSession) -> str:
    """The first record's time, local, to the minute; blank when the head names none (a
    file's mtime says when it was last written, not when the session began)."""
    if found.started is not None:
        return found.started.astimezone().strftime("%Y-%m-%d %H:%M")
    return ""


def _fit_left(text: str, cells: int) -> str:
    return text if len(text) <= cells else "…" + text[-(cells - 1) :]


def _row(found: FoundSession, depth: int) -> PickRow:
    agent = ("└ sub-agent" if depth else found.agent) if found.agent != SAMPLE else SAMPLE
    if found.error:
        project = visible(f"unreadable: {found.error}")[:PROJECT_CELLS]
    elif depth:
        project = visible(found.session_id or found.path.stem)  # an inline sub-agent: its id
    else:
        project = found.project or found.title or found.path.name
        if found.title and found.project and found.agent != SAMPLE:
            project = f"{found.project} · {found.title}"
        project = visible(project)
    cells = (
        agent,
        project if found.error else _fit_left(project, PROJECT_CELLS),
        visible(found.model or "")[:18],
        _started(found),
        file_size(found.size).rjust(9),
    )
    names = tuple(visible(n) for n in (found.path.parent.name, found.path.name, found.title or ""))
    words = " ".join((found.agent, *cells, *names)).lower()
    return PickRow(found, depth, cells, words)


def pick_rows(stores: Iterable[FoundSession], samples: Iterable[FoundSession]) -> list[PickRow]:
    """The store entries newest first (as listed), each parent followed by its sub-agents,
    then the samples."""
    rows: list[PickRow] = []
    for found in stores:
        rows.append(_row(found, 0))
        rows.extend(_row(child, 1) for child in found.children)
    rows.extend(_row(s, 0) for s in samples)
    return rows


def matching(rows: Sequence[PickRow], query: str) -> list[PickRow]:
    """The rows holding every word of ``query`` (any case); a sub-agent also shows when its
    parent matches, so filtering by project keeps a session's sub-agents with it."""
    words = query.lower().split()
    if not words:
        return list(rows)
    kept: list[PickRow] = []
    parent_kept = False
    for row in rows:
        hit = all(w in row.words for w in words)
        if row.depth == 0:
            parent_kept = hit
        if hit or (row.depth and parent_kept):
            kept.append(row)
    return kept


def shown_path(path: Path, home: Path) -> str:
    """``path`` as the dialog shows it: under the home directory with ``~``, literally."""
    try:
        return visible("~/" + str(path.relative_to(home)))
    except ValueError:
        return visible(str(path))
