"""``ctxtui sessions``: the sessions the user's agents already wrote, newest first.

A table for people (agent, started, model, messages, size, project, what to open) or one JSON
document (schema ``ctxtui.sessions/1``). Sub-agent transcripts of Claude Code are listed under
their parent. Message counts need a scan of each file, so ``--count`` asks for them; the
listing itself reads only a bounded head of each file.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC
from typing import Any

from ctxtui.stores import FoundSession, count_messages, find_sessions

SCHEMA = "ctxtui.sessions/1"


def _size(n: int) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:,} {unit}" if unit == "B" else f"{n:,.1f} {unit}"
        n /= 1024  # type: ignore[assignment]
    return f"{n:,} B"  # pragma: no cover - the loop always returns


def _started(found: FoundSession) -> str:
    if found.started is None:
        return "-"
    return found.started.astimezone(UTC).strftime("%Y-%m-%d %H:%M")


def _entry(found: FoundSession) -> dict[str, Any]:
    return {
        "agent": found.agent,
        "open": found.open_target,
        "path": str(found.path),
        "session_id": found.session_id,
        "project": found.project,
        "model": found.model,
        "title": found.title,
        "started": found.started.isoformat() if found.started else None,
        "modified": found.modified,
        "size": found.size,
        "messages": found.messages,
        "error": found.error,
        "subagents": [_entry(c) for c in found.children],
    }


def _counted(found: FoundSession) -> FoundSession:
    children = tuple(_counted(c) for c in found.children)
    if found.error is not None:
        return replace(found, children=children)
    try:
        messages = count_messages(found)
    except OSError as err:
        return replace(found, children=children, error=err.strerror or str(err))
    return replace(found, messages=messages, children=children)


def _rows(found: FoundSession, depth: int = 0) -> Iterator[tuple[str, ...]]:
    agent = ("  └ sub-agent" if depth else found.agent)[:14]
    messages = f"{found.messages:,}" if found.messages is not None else "-"
    what = (found.error and f"error: {found.error}") or found.project or found.title or "-"
    yield (
        agent,
        _started(found),
        (found.model or "-")[:28],
        messages,
        _size(found.size),
        what,
        found.open_target,
    )
    for child in found.children:
        yield from _rows(child, depth + 1)


def _print_table(sessions: list[FoundSession]) -> None:
    header = ("AGENT", "STARTED (UTC)", "MODEL", "MESSAGES", "SIZE", "PROJECT", "OPEN")
    rows = [header] + [r for s in sessions for r in _rows(s)]
    widths = [max(len(r[i]) for r in rows) for i in range(len(header) - 1)]
    for row in rows:
        cells = [
            cell.ljust(w) if i not in (3, 4) else cell.rjust(w)
            for i, (cell, w) in enumerate(zip(row[:-1], widths, strict=True))
        ]
        print("  ".join([*cells, row[-1]]).rstrip())


def run(args: argparse.Namespace) -> int:
    sessions = find_sessions()
    if getattr(args, "count", False):
        sessions = [_counted(s) for s in sessions]
    if getattr(args, "json", False):
        doc = {"schema": SCHEMA, "sessions": [_entry(s) for s in sessions]}
        json.dump(doc, sys.stdout, indent=2, ensure_ascii=False)
        sys.stdout.write("\n")
        return 0
    if not sessions:
        print(
            "no sessions found in the Claude Code, Codex, OpenCode or PicoClaw stores "
            "(see 'ctxtui sessions --help' for where ctxtui looks)",
            file=sys.stderr,
        )
        return 0
    _print_table(sessions)
    return 0
