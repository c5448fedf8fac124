"""The native writer: round-trips, atomic, refuses the source and existing files."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest

from ctxtui.core.session.models import Message, Session, SessionMeta
from ctxtui.importers import load_session, source_protection
from ctxtui.system.export import NATIVE_SCHEMA, ExportError, check_target, write_session


def _write(session: Session, path: Path | str, **kw: Any) -> Path:
    """Write as every shell does: protecting what the session's source is read from."""
    protected = source_protection(session.meta.source_path)
    return write_session(session, path, protected=protected, **kw)


def _read_back(path: Path) -> Session:
    doc = json.loads(path.read_bytes())
    assert doc["schema"] == NATIVE_SCHEMA
    return Session.model_validate(doc["session"])


def _session(source: Path | None = None) -> Session:
    return Session(
        messages=(Message(role="user", content="héllo"), Message(role="assistant", content="hi")),
        system_prompt="be brief",
        meta=SessionMeta(source_path=str(source) if source else None, format="openai"),
    )


def test_round_trip(tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    s = _session()
    assert _write(s, out) == out
    assert _read_back(out) == s
    assert [p.name for p in tmp_path.iterdir()] == ["out.json"]  # no temp file left behind


def test_refuses_the_source_file(tmp_path: Path) -> None:
    src = tmp_path / "src.json"
    src.write_text("original")
    before = (src.read_bytes(), src.stat().st_mtime_ns)
    for target in (src, tmp_path / "." / "src.json"):
        with pytest.raises(ExportError, match="source session"):
            _write(_session(src), target, force=True)
    assert (src.read_bytes(), src.stat().st_mtime_ns) == before


def test_refuses_the_source_through_a_symlink(tmp_path: Path) -> None:
    src = tmp_path / "src.json"
    src.write_text("original")
    link = tmp_path / "link.json"
    link.symlink_to(src)
    with pytest.raises(ExportError, match="source session"):
        _write(_session(src), link, force=True)
    assert src.read_text() == "original"


def test_existing_file_needs_force(tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    out.write_text("old")
    with pytest.raises(ExportError, match="--force"):
        _write(_session(), out)
    assert out.read_text() == "old"
    _write(_session(), out, force=True)
    assert _read_back(out).system_prompt == "be brief"


def test_failure_leaves_no_partial_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "out.json"
    out.write_text("old")

    def boom(self: Path, target: Path) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(Path, "replace", boom)
    with pytest.raises(ExportError, match="write failed"):
        _write(_session(), out, force=True)
    assert out.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["out.json"]


def test_directory_target_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ExportError, match="directory"):
        _write(_session(), tmp_path)


def test_the_file_is_read_back_as_native_not_as_openai_chat(tmp_path: Path) -> None:
    """A bare session dump was detected as OpenAI Chat; the envelope makes it native."""
    s = _session().model_copy(update={"system_prompt": "be brief"})
    out = _write(s, tmp_path / "out.json")
    loaded = load_session(out)
    assert loaded.meta.format == "native"
    assert loaded.messages == s.messages and loaded.system_prompt == s.system_prompt


def test_a_special_file_is_never_replaced(tmp_path: Path) -> None:
    """Renaming over /dev/null (as root) would replace the device: refused even with force."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(ExportError, match="expected a regular file path, found a special file"):
        _write(_session(), fifo, force=True)
    assert stat.S_ISFIFO(fifo.stat().st_mode)


def test_an_empty_path_is_refused() -> None:
    with pytest.raises(ExportError, match="expected a file path, found an empty string"):
        check_target(_session(), "", protected=())


def test_a_missing_directory_is_named(tmp_path: Path) -> None:
    target = tmp_path / "nope" / "out.json"
    with pytest.raises(ExportError, match=r"expected an existing directory .*nope, found none"):
        _write(_session(), target)
    assert not (tmp_path / "nope").exists()


def test_an_unwritable_directory_is_refused_before_writing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    locked = tmp_path / "ro"
    locked.mkdir()
    real_access = os.access
    monkeypatch.setattr(  # root ignores modes, so the check is simulated
        os, "access", lambda p, m, **kw: False if Path(p) == locked else real_access(p, m, **kw)
    )
    with pytest.raises(ExportError, match=r"cannot write in .*ro: permission denied"):
        _write(_session(), locked / "out.json")
    assert list(locked.iterdir()) == []


def test_a_source_path_that_is_not_utf8_still_writes_valid_utf8(tmp_path: Path) -> None:
    s = _session().model_copy(
        update={"meta": SessionMeta(source_path=str(tmp_path / "bad\udcffname.json"))}
    )
    out = _write(s, tmp_path / "out.json")
    text = out.read_bytes().decode("utf-8")  # strict: raises on any invalid byte
    assert "bad\ufffdname.json" in text
