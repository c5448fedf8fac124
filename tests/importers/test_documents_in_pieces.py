"""A document written in pieces under ``--watch``: the JSON documents and SQLite databases that
no importer reads record by record (they are parsed whole) are read as they grow, each
half-written state refused in words (the last good read stays) or read, and the session the
watcher ends with is the one a whole read of the file gives.

The record formats' chunked reads are ``test_follow.py`` and ``test_resume.py``; an OpenCode
storage is a directory of files, each written whole, and has no pieces of this kind.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ctxtui.core.errors import SessionLoadError
from ctxtui.importers import load_session
from ctxtui.importers.watch import SessionWatcher
from ctxtui.samples import samples_dir

EXAMPLES = Path("/work/shared/reference/examples")


def _format(path: Path) -> str | None:
    try:
        return load_session(path).meta.format
    except SessionLoadError:
        return None


DOCUMENTS = sorted(
    p
    for p in [*samples_dir().iterdir(), *(EXAMPLES.iterdir() if EXAMPLES.is_dir() else ())]
    if p.is_file()
    and (p.suffix == ".db" or (p.suffix == ".json" and not p.name.endswith(".meta.json")))
    and _format(p) is not None
)


def test_every_document_format_has_a_document() -> None:
    formats = {_format(p) for p in DOCUMENTS}
    assert {"anthropic", "native", "openai-chat"} <= formats


@pytest.mark.parametrize("sample", DOCUMENTS, ids=[p.name for p in DOCUMENTS])
@settings(
    max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_a_document_written_in_pieces_ends_as_the_whole_read(
    sample: Path, tmp_path: Path, data: st.DataObject
) -> None:
    raw = sample.read_bytes()
    cuts = data.draw(st.lists(st.integers(1, len(raw) - 1), max_size=4), label="cuts")
    target = tmp_path / f"piece-{len(cuts)}-{sum(cuts)}{sample.suffix}"
    format = _format(sample)
    watcher = SessionWatcher(target, format=format, clock=lambda: 0.0)
    target.write_bytes(b"")
    start, seen = 0, None
    for cut in [*sorted(set(cuts)), len(raw)]:
        with target.open("ab") as fh:
            fh.write(raw[start:cut])
        start = cut
        stamp = target.stat()
        os.utime(target, ns=(stamp.st_atime_ns, stamp.st_mtime_ns + 1_000_000))
        read = watcher.poll()
        if cut < len(raw):
            assert read is not None or watcher.error, "a refused piece says why"
            assert watcher.error is None or "\n" not in watcher.error, "in one line"
        seen = read or seen
    assert watcher.error is None, watcher.error
    assert seen is not None
    assert seen.model_dump() == load_session(target, format).model_dump()


DATABASES = [p for p in DOCUMENTS if p.suffix == ".db"]


@pytest.mark.parametrize("sample", DATABASES, ids=[p.name for p in DATABASES])
def test_a_database_that_grows_without_a_newline_byte_is_read_again(
    sample: Path, tmp_path: Path
) -> None:
    """A database read at a page boundary and then completed by bytes that hold no newline
    byte is read again: the watcher's "no new line, nothing new" shortcut is for records."""
    raw = sample.read_bytes()
    format = _format(sample)
    for cut in (c for page in range(4096, len(raw), 4096) for c in (page, page + 1)):
        if b"\n" in raw[cut:]:
            continue
        target = tmp_path / f"grown-{cut}{sample.suffix}"
        target.write_bytes(raw[:cut])
        watcher = SessionWatcher(target, format=format, clock=lambda: 0.0)
        if watcher.poll() is None:
            continue  # this prefix is no database yet: not the case asked about
        with target.open("ab") as fh:
            fh.write(raw[cut:])
        stamp = target.stat()
        os.utime(target, ns=(stamp.st_atime_ns, stamp.st_mtime_ns + 1_000_000))
        read = watcher.poll()
        assert read is not None, f"the database completed after byte {cut:,} was not read"
        assert read.model_dump() == load_session(target, format).model_dump()
        return
    pytest.skip(f"{sample.name}: no readable prefix is completed without a newline byte")
