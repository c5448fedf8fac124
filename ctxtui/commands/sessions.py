"""``ctxtui sessions``: the sessions the user's agents already wrote, newest first.

A table or one ``ctxtui.sessions/1`` JSON document; Claude Code's sub-agents are listed under
their parent. The listing reads a bounded head of each file; a session's messages (the whole
file, as ``ctxtui fleet`` counts them) come from the fleet's index while the file is unchanged,
and ``--count`` opens every other session to count them. Names are printed literally
(``core.literal.visible``), and what could not be read is counted on stderr.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC
from typing import Any

from ctxtui.core.errors import SessionLoadError
from ctxtui.core.literal import json_literal, json_names, visible
from ctxtui.core.session.formats import FORMATS
from ctxtui.core.wording import file_size, plural
from ctxtui.importers import FoundSession, Skipped
from ctxtui.stores.listing import COUNT_LIMIT_BYTES, count_messages, list_sessions

SCHEMA = "ctxtui.sessions/1"


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


def _whole_file(found: FoundSession) -> int | None:
    """Every message of the file, each once (``core.fleet.conversation_messages``); an
    OpenCode database's own count; ``None`` past ``COUNT_LIMIT_BYTES``."""
    if found.agent == "opencode" or found.messages is not None:
        return count_messages(found)
    if found.path.is_file() and found.path.stat().st_size > COUNT_LIMIT_BYTES:
        return None
    from ctxtui.core.fleet import conversation_messages
    from ctxtui.importers import load_session

    return conversation_messages(load_session(found.open_target, full_history=True))


def _indexed(sessions: list[FoundSession]) -> list[FoundSession]:
    """The sessions with the messages the fleet's index holds for them, while the file is
    the one it read (an identity: size, time and a hash of both ends); nothing is created."""
    from ctxtui.fleet.index import FleetIndex, default_path, identity
    from ctxtui.fleet.job import Spec

    path = default_path()
    if not path.is_file():
        return sessions
    reader = Spec().base_fingerprint()
    with FleetIndex(path, lambda _: None) as index:

        def known(found: FoundSession) -> FoundSession:
            children = tuple(known(c) for c in found.children)
            ident = identity(found.open_target) if found.error is None else None
            base = index.lookup(found.open_target, ident, reader, ())[0] if ident else None
            if base is None or base.get("error") or base.get("messages") is None:
                return replace(found, children=children)
            return replace(found, messages=base["messages"], children=children)

        return [known(s) for s in sessions]


def _counted(found: FoundSession) -> FoundSession:
    children = tuple(_counted(c) for c in found.children)
    if found.error is not None:
        return replace(found, children=children)
    try:
        messages = _whole_file(found)
    except SessionLoadError as err:
        return replace(found, children=children, error=err.problem)
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
        visible(found.model or "-")[:28],
        messages,
        file_size(found.size),
        visible(what),
        visible(found.open_target),
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


def _json_text(doc: dict[str, Any]) -> str:
    """``doc`` as JSON text that holds no control character raw (all escaped as ``\\uXXXX``)
    and a name's undecodable bytes as ``\\xNN`` (``json_names``), as the table shows them."""
    text = json_names(json.dumps(doc, indent=2, ensure_ascii=False))
    return json_literal(text.encode()).decode()


def _say_skipped(skipped: list[Skipped]) -> None:
    if not skipped:
        return
    first = skipped[0]
    more = f"; first: {visible(str(first.path))}: {first.reason}"
    print(
        f"ctxtui: skipped {plural(len(skipped), 'path')} that could not be read as sessions"
        f'{more} (all in --json\'s "skipped")',
        file=sys.stderr,
    )


def run(args: argparse.Namespace) -> int:
    listing = list_sessions()
    sessions = _indexed(listing.sessions)
    if getattr(args, "count", False):
        sessions = [_counted(s) for s in sessions]
    if getattr(args, "json", False):
        doc = {
            "schema": SCHEMA,
            "sessions": [_entry(s) for s in sessions],
            "skipped": [{"path": str(s.path), "reason": s.reason} for s in listing.skipped],
        }
        sys.stdout.write(_json_text(doc) + "\n")
        _say_skipped(listing.skipped)
        return 0
    if not sessions:
        *most, last = [f.agent for f in FORMATS if f.stores]
        print(
            f"no sessions found in the {', '.join(most)} or {last} stores "
            "(see 'ctxtui sessions --help' for where ctxtui looks)",
            file=sys.stderr,
        )
    else:
        _print_table(sessions)
    _say_skipped(listing.skipped)
    return 0
