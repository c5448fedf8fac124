"""Importers: turn each transcript format into the core's ``Session``. No Textual here.

Contract: ``load_session(path, format=None) -> Session`` opens the path once as a ``Source``
(``_stream.open_source``), detects the format from it (or uses the one given), has the
importer read that same source, and raises ``SessionLoadError`` with one clear line on bad
input. ``FORMATS`` lists every importer with its name and a one-line description.

Each importer is a module named after its format (dashes become underscores), in
``IMPORTERS`` under its row's name, exposing ``FORMAT: FormatInfo`` (its row),
``sniff(path, head) -> int`` (confidence 0-100; ``head`` is the first JSON value of the file)
and ``load(source) -> Session``; and where it has them, ``path_hint(path) -> bool`` (known by
its place or name alone), ``SQLITE_TABLES`` (the tables of its database),
``is_session_dir(path) -> bool`` (a directory it reads), ``protected_paths(path)``,
``load_one(source, session_id, full_history=)`` (one of several sessions a file holds,
``PATH#ID``) and ``list_store(walk, root)`` (its sessions in its agent's store).
"""

from __future__ import annotations

import os
from pathlib import Path
from types import ModuleType
from typing import Any

from ctxtui.core.errors import SessionLoadError, StopCheck
from ctxtui.core.session import formats
from ctxtui.core.session.formats import (
    FORMAT_NAMES,
    FORMATS,
    format_info,
    known_format,
    normalize_format,
)
from ctxtui.core.session.images import priced_images
from ctxtui.core.session.models import Session, SessionMeta
from ctxtui.importers import (
    anthropic,
    claude_code,
    codex,
    native,
    openai_chat,
    openai_responses,
    opencode,
    picoclaw,
    sharegpt,
)
from ctxtui.importers._claude_sidechains import inline_chains
from ctxtui.importers._jsonl import read_head
from ctxtui.importers._parts import HOISTED, MAX_COUNT, quoted
from ctxtui.importers._reader import SQLITE_MAGIC, decode_error_reason, gc_paused, json_kind
from ctxtui.importers._store_files import FoundSession, Skipped, StoreWalk
from ctxtui.importers._stream import (
    SQLITE_ERRORS,
    NotRegularFileError,
    Source,
    file_kind,
    open_regular,
    open_source,
    sqlite_problem,
)

IMPORTERS: dict[str, ModuleType] = {
    module.FORMAT.name: module
    for module in (
        anthropic,
        claude_code,
        codex,
        native,
        openai_chat,
        openai_responses,
        opencode,
        picoclaw,
        sharegpt,
    )
}
"""Each format's importer by its row's name (``core.session.formats.FORMATS``): a new format
is its module here and its row there (``tests/importers/test_registry.py`` checks both agree).
They are imported with the package, as a plain list the import graph sees (no module is
imported by name); a load imports most of what they import anyway."""


def importer(name: str) -> ModuleType:
    """The importer module of a format, by its name as typed."""
    found = normalize_format(name)
    module = IMPORTERS.get(found) if known_format(found) is not None else None
    if module is None:
        known = ", ".join(info.name for info in formats.FORMATS)
        raise SessionLoadError("--format", f"unknown format {found!r}; known formats: {known}")
    return module


def _available(name: str) -> ModuleType | None:
    return IMPORTERS.get(name)


def _module_attr(attr: str) -> list[tuple[str, Any]]:
    """``(format, module.attr)`` for each format whose importer defines ``attr``, in order."""
    found = ((info.name, getattr(_available(info.name), attr, None)) for info in formats.FORMATS)
    return [(name, value) for name, value in found if value is not None]


# --- detection (docs/formats.md, "The formats") -------------------------------------------


def _path_hint(path: Path) -> str | None:
    """Cheapest signal: where the file lives and what it is called (each importer's
    ``path_hint``, in detection order)."""
    return next((name for name, hint in _module_attr("path_hint") if hint(path)), None)


def _sqlite_tables(path: Path) -> set[str]:
    """Table names of a SQLite file, read without creating or changing anything beside it."""
    from ctxtui.importers._sqlite import read_database

    query = "SELECT name FROM sqlite_master WHERE type = 'table'"
    try:
        rows = read_database(path, lambda con: con.execute(query).fetchall())
    except SQLITE_ERRORS as exc:
        raise SessionLoadError(
            str(path), f"cannot read the SQLite database ({sqlite_problem(exc)})"
        ) from None
    return {str(row[0]) for row in rows}


def _detect_sqlite(path: Path) -> str:
    """The format whose importer's ``SQLITE_TABLES`` the database holds."""
    tables = _sqlite_tables(path)
    databases = _module_attr("SQLITE_TABLES")
    for name, needed in databases:
        if needed <= tables:
            return name
    found = ", ".join(sorted(tables)[:8]) or "no tables"
    expected = " or ".join(format_info(name).title for name, _ in databases)
    raise SessionLoadError(
        str(path),
        f"no known format: expected a database of {expected}, "
        f"found a SQLite database with tables: {found}",
    )


def _detect_directory(path: Path) -> str:
    """The format whose importer's ``is_session_dir`` takes the directory (OpenCode's JSON
    storage, a PicoClaw sessions directory)."""
    for name, is_session_dir in _module_attr("is_session_dir"):
        if is_session_dir(path):
            return name
    raise SessionLoadError(
        str(path),
        "expected a session file (or an OpenCode storage or PicoClaw sessions directory), "
        "found a directory that is neither",
    )


def _best_sniff(path: Path, head: Any) -> str | None:
    best: tuple[int, str] | None = None
    for info in formats.FORMATS:
        module = _available(info.name)
        if module is None:
            continue
        score = int(module.sniff(path, head))
        if score > 0 and (best is None or score > best[0]):
            best = (score, info.name)
    return None if best is None else best[1]


def detect_format(source: Source) -> str:
    """The format name of a transcript: path hints, then SQLite tables, then its first value.

    Refuses with one line saying what was found when nothing matches.
    """
    path = source.path
    if source.is_dir:
        return _detect_directory(path)
    hint = _path_hint(path)
    if hint is not None:
        return hint
    return _content_format(source)


def _content_format(source: Source) -> str:
    """``detect_format`` of a file by what it holds alone (SQLite tables, its first value)."""
    path = source.path
    if source.magic(16) == SQLITE_MAGIC:
        return _detect_sqlite(path)
    head = read_head(source)
    if not isinstance(head, (dict, list)):
        raise source.problem(f"expected a JSON object or array, found {json_kind(head)}")
    found = _best_sniff(path, head)
    if found is None:
        raise source.problem(f"no known format: expected a transcript, found {json_kind(head)}")
    return found


def load_session(
    path: Path | str,
    format: str | None = None,
    *,
    full_history: bool = False,
    should_stop: StopCheck | None = None,
) -> Session:
    """Read a transcript into a ``Session``, detecting its format unless one is given.

    The path is checked and opened once; detection and the importer read that one source.
    Fills ``meta.source_path`` and ``meta.format``. Importers add their reader warnings to
    ``meta.warnings`` themselves, since only they know which lines they skipped.
    ``full_history`` asks an importer that has a ``load_history`` (formats whose agents
    compact: Claude Code, Codex) for every message, before and after its recorded compactions.
    The read runs with the collector paused (``gc_paused``): records and messages hold no
    cycles, and re-walking them while they pile up was most of a large JSONL read's time.
    ``should_stop`` is asked as the read goes (``Source.should_stop``): once it says so, the
    read ends with ``ReadStoppedError``.
    """
    path, session_id = split_session_id(path)
    if format is not None:
        importer(format)  # an unknown --format is said before the file is looked at
    with open_source(path) as source, gc_paused():
        source.should_stop = should_stop
        name = normalize_format(format) if format is not None else detect_format(source)
        if session_id is not None:
            session = _load_one_session(source, name, session_id, full_history)
        else:
            name, session = _load_whole(source, name, forced=format is not None, full=full_history)
        return finish(session, source.path, name, source.dropped.count)


def load_tail(path: Path | str, format: str | None = None) -> Session | None:
    """A first look at a big transcript from its last bytes (the importer's ``load_tail``):
    the session ``load_session`` reads, less what only the file's earlier part can say;
    ``None`` where the format has no such read or the tail does not hold the session."""
    path, session_id = split_session_id(path)
    if session_id is not None:
        return None
    with open_source(path) as source, gc_paused():
        if source.is_dir:
            return None
        name = normalize_format(format) if format is not None else detect_format(source)
        reader = getattr(importer(name), "load_tail", None)
        session = reader(source) if reader is not None else None
        if session is None:
            return None
        return finish(session, source.path, name, source.dropped.count)


def load_views(path: Path | str, format: str | None = None) -> tuple[Session, Session]:
    """The session as normally read and its full history, from one read of the file where
    the format can cut the first from the second (``shown_from``), else from two. A session
    its agent never compacted is its own history: the two are then one object.

    The cut is made on the importer's own history, before ``finish`` (which hoists leading
    system messages and counts dropped figures), and each view is then finished as a read of
    it would be; a read that dropped any token count is not cut.
    """
    file, session_id = split_session_id(path)
    if session_id is not None:
        return load_session(path, format), load_session(path, format, full_history=True)
    if format is not None:
        importer(format)  # an unknown --format is said before the file is looked at
    with open_source(file) as source, gc_paused():
        name = normalize_format(format) if format is not None else detect_format(source)
        name, raw = _load_whole(source, name, forced=format is not None, full=True)
        dropped = source.dropped.count
        history = finish(raw, source.path, name, dropped)
        cut = getattr(importer(name), "shown_from", None)
        part = cut(raw) if cut is not None and not dropped and raw.meta.full_history else None
        shown = finish(part, source.path, name, 0) if part is not None else None
    if not history.meta.full_history:
        return history, history  # nothing before a compaction: the two are one
    if shown is None:
        shown = load_session(path, format)
    if not history.meta.recorded_compactions:
        return shown, shown  # nothing was compacted: the history is the session
    return shown, history


def _load_whole(source: Source, name: str, *, forced: bool, full: bool) -> tuple[str, Session]:
    """The format read and the session an importer reads from all of ``source``."""
    module = importer(name)
    if source.is_dir:
        if not hasattr(module, "is_session_dir"):
            raise source.problem("expected a file, found a directory")
    elif source.size == 0:
        raise source.problem("empty file: expected a transcript, found nothing")
    loader = getattr(module, "load_history", None) if full else None
    session: Session = (loader or module.load)(source)
    if not session.messages and not session.system_prompt:
        if forced:
            _refuse_empty_forced(source, name)
        elif (found := other_format(source, name)) is not None:
            source.dropped.count = 0  # the first importer's, of a read that is dropped
            return _load_whole(source, found, forced=False, full=full)
    return name, session


def other_format(source: Source, name: str) -> str | None:
    """What a file named or placed like one agent's (``rollout-*.jsonl``,
    ``.claude/projects``) holds instead, once that agent's importer (``name``) read nothing
    from it: what it holds says which it is. ``None`` when it holds nothing else either (the
    empty read and its warnings stand), or its name says nothing."""
    if source.is_dir or _path_hint(source.path) != name:
        return None
    try:
        found = _content_format(source)
    except SessionLoadError:
        return None
    return found if found != name else None


def finish(session: Session, path: Path, name: str, dropped: int) -> Session:
    """What every load adds to an importer's session: where it came from, its format, the
    window check and the warning for ``dropped`` token counts, priced images and the system
    prompt hoisted."""
    meta = finished_meta(session, path, name, dropped)
    return priced_images(hoist_system_prompt(session.model_copy(update={"meta": meta})))


def finished_meta(session: Session, path: Path, name: str, dropped: int) -> SessionMeta:
    """``finish``'s meta: the source, the format, the window check and the dropped counts."""
    meta = session.meta.model_copy(update={"source_path": str(path), "format": name})
    return plausible_window(meta, dropped)


def plausible_window(meta: SessionMeta, dropped: int = 0) -> SessionMeta:
    """``meta`` without a declared context window that no policy accepts, with a warning
    (and one for the token counts dropped while reading, ``_parts.as_int``).

    A file's window is a default, not an order: one out of the policy's range (a hostile
    ``1e18``, a 4,000-digit number) would otherwise be refused later as if the user had typed
    it as ``--context-window``.
    """
    if dropped:
        note = f"{dropped:,} token counts ignored: not finite, negative or over {MAX_COUNT:,}"
        meta = meta.model_copy(update={"warnings": (*meta.warnings, note)})
    window = meta.context_window
    if window is None:
        return meta
    from ctxtui.core.policies.policy import KNOBS  # here: listing the formats need not import it

    row = KNOBS["context_window"]
    if row.accepts(window):
        return meta
    warning = (
        f"the file's context window ({quoted(window)} tokens) is outside {row.low:,.0f} to "
        f"{row.high:,.0f}; ignored"
    )
    return meta.model_copy(update={"context_window": None, "warnings": (*meta.warnings, warning)})


def split_session_id(path: Path | str) -> tuple[Path, str | None]:
    """``PATH#ID`` names one session inside a file; any other path is itself.

    ``opencode.db#ses_X`` is one session of an OpenCode database, ``<session>.jsonl#agent-X``
    one sub-agent a Claude Code transcript holds inline. Only a ``#`` whose left side is an
    existing file counts, so a file whose name holds a ``#`` still opens as it is.
    """
    text = str(path)
    base, sep, session_id = text.rpartition("#")
    if sep and session_id and not Path(text).exists() and Path(base).is_file():
        return Path(base), session_id
    return Path(text), None


def _load_one_session(source: Source, name: str, session_id: str, full_history: bool) -> Session:
    """One of the sessions a file holds, read by its importer's ``load_one`` (an OpenCode
    database's, a Claude Code sub-agent's); a directory only by an importer that reads them."""
    module = importer(name)
    load_one = getattr(module, "load_one", None)
    if load_one is not None and (hasattr(module, "is_session_dir") or not source.is_dir):
        session: Session = load_one(source, session_id, full_history=full_history)
        return session
    raise SessionLoadError(
        str(source.path),
        f"'#{session_id}' names a session, but only OpenCode databases and Claude Code "
        "transcripts (their sub-agents) hold several",
    )


SQLITE_SIDE_SUFFIXES = ("-journal", "-wal", "-shm")
"""Files SQLite keeps beside a database; whatever the format, they belong to the source."""


def source_protection(source: str | os.PathLike[str] | None) -> frozenset[Path]:
    """What a write must never touch for a session read from ``source`` (nothing without one).

    Every shell that writes a session passes this to ``ctxtui.system.export``.
    """
    return protected_paths(Path(source)) if source else frozenset()


def protected_paths(path: Path | str) -> frozenset[Path]:
    """Every path a load of ``path`` reads or would read, plus the directory of a directory source.

    Writes refuse these (``ctxtui.system.output``). The set is the union over all importers, so it
    holds whatever format the source turns out to be: protecting a file no importer would read
    costs nothing, missing one that it does read loses the user's data. Importers that read more
    than the path itself expose ``protected_paths(path) -> set[Path]``.
    """
    path, _ = split_session_id(path)  # opencode.db#ses_X: the database
    found = {path}
    if path.name:
        found |= {path.with_name(path.name + suffix) for suffix in SQLITE_SIDE_SUFFIXES}
    for _, extra in _module_attr("protected_paths"):
        try:
            found |= extra(path)
        except (OSError, SessionLoadError):
            continue  # a source that moved away or is unreadable: protect what we know
    return frozenset(found)


def _refuse_empty_forced(source: Source, name: str) -> None:
    """Refuse a forced format that read nothing from a file of another format.

    An importer skips the records it does not know, so forcing the wrong one would give an
    empty session and a report of zero tokens, a wrong answer with exit 0. A file that really is
    an empty session of the forced format (detection agrees) is still accepted.
    """
    try:
        detected: str | None = detect_format(source)
    except SessionLoadError:
        detected = None
    if detected == name:
        return
    hint = (
        f"; it looks like {detected} (try --format {detected}, or leave --format out)"
        if detected is not None
        else ""
    )
    raise source.problem(
        f"expected {format_info(name).title} data (--format {name}), found none{hint}"
    )


def hoist_system_prompt(session: Session) -> Session:
    """Move leading ``system``/``developer`` messages into ``Session.system_prompt``.

    Formats that keep the system prompt as the first message (OpenAI Chat, ShareGPT) would
    otherwise let it be counted as history: a compaction would fold it into the summary and the
    assembly could drop it. Every agent sends it with every request, so it belongs with the
    system prompt. Harness-injected messages keep their place (they are labelled in the list).
    """
    lead = 0
    for message in session.messages:
        if message.role not in HOISTED or message.injected or message.tool_calls:
            break
        lead += 1
    if lead == 0:
        return session
    texts = [m.content for m in session.messages[:lead] if m.content]
    if session.system_prompt:
        texts.insert(0, session.system_prompt)
    # a recorded compaction names the message it preceded: it moves with the messages
    recorded = tuple(
        rc.model_copy(update={"message_index": max(0, rc.message_index - lead)})
        for rc in session.meta.recorded_compactions
    )
    return session.model_copy(
        update={
            "messages": session.messages[lead:],
            "system_prompt": "\n\n".join(texts) if texts else session.system_prompt,
            "meta": session.meta.model_copy(update={"recorded_compactions": recorded}),
        }
    )


__all__ = [
    "FORMATS",
    "FORMAT_NAMES",
    "IMPORTERS",
    "FoundSession",
    "NotRegularFileError",
    "Skipped",
    "StoreWalk",
    "decode_error_reason",
    "detect_format",
    "file_kind",
    "gc_paused",
    "hoist_system_prompt",
    "importer",
    "inline_chains",
    "load_session",
    "normalize_format",
    "open_regular",
    "protected_paths",
]
