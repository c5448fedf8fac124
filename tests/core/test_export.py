"""The native writer: round-trips, atomic, refuses the source and existing files."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxtui.core.export import ExportError, write_session
from ctxtui.core.models import Message, Session, SessionMeta


def _session(source: Path | None = None) -> Session:
    return Session(
        messages=(Message(role="user", content="héllo"), Message(role="assistant", content="hi")),
        system_prompt="be brief",
        meta=SessionMeta(source_path=str(source) if source else None, format="openai"),
    )


def test_round_trip(tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    s = _session()
    assert write_session(s, out) == out
    assert Session.model_validate_json(out.read_bytes()) == s
    assert [p.name for p in tmp_path.iterdir()] == ["out.json"]  # no temp file left behind


def test_refuses_the_source_file(tmp_path: Path) -> None:
    src = tmp_path / "src.json"
    src.write_text("original")
    before = (src.read_bytes(), src.stat().st_mtime_ns)
    for target in (src, tmp_path / "." / "src.json"):
        with pytest.raises(ExportError, match="source session"):
            write_session(_session(src), target, force=True)
    assert (src.read_bytes(), src.stat().st_mtime_ns) == before


def test_refuses_the_source_through_a_symlink(tmp_path: Path) -> None:
    src = tmp_path / "src.json"
    src.write_text("original")
    link = tmp_path / "link.json"
    link.symlink_to(src)
    with pytest.raises(ExportError, match="source session"):
        write_session(_session(src), link, force=True)
    assert src.read_text() == "original"


def test_existing_file_needs_force(tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    out.write_text("old")
    with pytest.raises(ExportError, match="--force"):
        write_session(_session(), out)
    assert out.read_text() == "old"
    write_session(_session(), out, force=True)
    assert Session.model_validate_json(out.read_text()).system_prompt == "be brief"


def test_failure_leaves_no_partial_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "out.json"
    out.write_text("old")

    def boom(self: Path, target: Path) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(Path, "replace", boom)
    with pytest.raises(ExportError, match="write failed"):
        write_session(_session(), out, force=True)
    assert out.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["out.json"]


def test_directory_target_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ExportError, match="directory"):
        write_session(_session(), tmp_path)
