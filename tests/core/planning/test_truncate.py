"""Truncation: the plan's §1.7 vectors, and defects X30–X39 shown fixed (the rule in the
core, the saved files in ``ctxtui.system.truncation_files``)."""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxtui.core.planning.truncation import (
    byte_size,
    count_lines,
    hint_for,
    needs_truncation,
    preview_of,
    sanitize_tool_name,
)
from ctxtui.system import truncation_files as truncate
from ctxtui.system.truncation_files import (
    KEEP_SECONDS,
    MARKER_NAME,
    MARKER_TEXT,
    sweep_saved_outputs,
    truncate_tool_output,
)


def test_plan_vector_short_output_is_not_truncated(tmp_path: Path) -> None:
    result = truncate_tool_output("line1\nline2", 10, 1000, "test", directory=tmp_path)
    assert not result.was_truncated
    assert result.preview == "line1\nline2"
    assert result.full_path is None
    assert list(tmp_path.iterdir()) == []


def test_plan_vector_hundred_lines_keep_five(tmp_path: Path) -> None:
    output = "line\n" * 100
    result = truncate_tool_output(output, 5, 1000, "test", directory=tmp_path)
    assert result.was_truncated
    assert result.full_path is not None
    assert result.preview == "\n".join(["line"] * 5)
    assert len(result.preview.encode()) == 24
    assert Path(result.full_path).read_text() == output


def test_x36_trailing_newline_is_not_an_extra_line() -> None:
    assert count_lines("a\nb\n") == 2
    assert not needs_truncation("a\nb\n", 2, 1000)
    assert needs_truncation("a\nb\nc", 2, 1000)


def test_x35_byte_cut_never_splits_a_character() -> None:
    preview = preview_of("é" * 10, 100, 5)
    assert preview == "é" * 2  # 4 bytes: a third é would need bytes 5 and 6
    assert len(preview.encode()) <= 5


@pytest.mark.parametrize(("max_lines", "max_bytes"), [(0, 10), (10, 0), (-1, 10), (10, -5)])
def test_x39_limits_below_one_are_rejected(max_lines: int, max_bytes: int) -> None:
    with pytest.raises(ValueError, match="at least 1"):
        preview_of("anything", max_lines, max_bytes)


def test_x30_each_call_gets_its_own_file(tmp_path: Path) -> None:
    first = truncate_tool_output("a\n" * 10, 1, 1000, "bash", directory=tmp_path)
    second = truncate_tool_output("b\n" * 10, 1, 1000, "bash", directory=tmp_path)
    assert first.full_path != second.full_path
    assert first.full_path is not None and second.full_path is not None
    assert Path(first.full_path).read_text() == "a\n" * 10
    assert Path(second.full_path).read_text() == "b\n" * 10


@pytest.mark.parametrize("name", ["../../etc/passwd", "..", "a\\b", "/abs", "mcp/server:tool", ""])
def test_x31_tool_name_cannot_leave_the_directory(tmp_path: Path, name: str) -> None:
    result = truncate_tool_output("x\n" * 5, 1, 1000, name, directory=tmp_path)
    assert result.full_path is not None
    assert Path(result.full_path).parent == tmp_path
    assert "/" not in sanitize_tool_name(name) and ".." not in sanitize_tool_name(name)


def test_x32_private_directory_and_file(tmp_path: Path) -> None:
    folder = tmp_path / "fresh" / "outputs"
    result = truncate_tool_output("x\n" * 5, 1, 1000, "bash", directory=folder)
    assert result.full_path is not None
    assert stat.S_IMODE(os.stat(result.full_path).st_mode) == 0o600
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700


def test_x34_hint_names_the_path(tmp_path: Path) -> None:
    result = truncate_tool_output("x\n" * 5, 1, 1000, "bash", directory=tmp_path)
    assert result.full_path is not None
    assert result.hint.endswith(hint_for(result.full_path))
    assert result.full_path in result.hint
    assert "%!s" not in result.hint


def test_x32_an_existing_directory_is_never_chmodded(tmp_path: Path) -> None:
    """Issue 9 item 6: a 0755 workspace was silently made 0700; the file itself is private."""
    folder = tmp_path / "shared"
    folder.mkdir(mode=0o755)
    folder.chmod(0o755)
    result = truncate_tool_output("x\n" * 5, 1, 1000, "bash", directory=folder)
    assert result.full_path is not None
    assert stat.S_IMODE(folder.stat().st_mode) == 0o755
    assert stat.S_IMODE(os.stat(result.full_path).st_mode) == 0o600
    assert not (folder / MARKER_NAME).exists()  # not created here, so never swept


def test_x32_a_symlinked_directory_is_refused(tmp_path: Path) -> None:
    real = tmp_path / "elsewhere"
    real.mkdir()
    link = tmp_path / "outputs"
    link.symlink_to(real)
    result = truncate_tool_output("x\n" * 5, 1, 1000, "bash", directory=link)
    assert result.was_truncated and result.full_path is None
    assert "could not be saved" in result.hint
    assert list(real.iterdir()) == []


def test_x33_the_output_can_be_saved_inside_the_agents_workspace(tmp_path: Path) -> None:
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    result = truncate_tool_output("x\n" * 5, 1, 1000, "bash", directory=workspace / ".out")
    assert result.full_path is not None
    assert Path(result.full_path).is_relative_to(workspace)
    assert result.full_path in result.text  # read_file/grep within the workspace can open it


def test_x38_the_preview_is_marked_with_counts_and_fits_with_its_notice(tmp_path: Path) -> None:
    output = "".join(f"line {k}\n" for k in range(1_000))
    result = truncate_tool_output(output, 10_000, 400, "bash", directory=tmp_path)
    shown_lines, shown_bytes = count_lines(result.preview), byte_size(result.preview)
    lines, size = count_lines(output), byte_size(output)
    marker = f"...{shown_lines:,} of {lines:,} lines ({shown_bytes:,} of {size:,} bytes) shown..."
    assert marker in result.text
    assert result.text.startswith(result.preview) and result.preview
    assert byte_size(result.text) <= 400


def test_x38_a_limit_below_the_notice_sends_the_notice_alone(tmp_path: Path) -> None:
    result = truncate_tool_output("x" * 500, 10, 20, "bash", directory=tmp_path)
    assert result.preview == ""
    assert result.text == result.hint
    assert "...0 of 1 line (0 of 500 bytes) shown..." in result.hint  # never "1 lines"


def _age(path: Path, seconds: float) -> None:
    os.utime(path, (seconds, seconds), follow_symlinks=False)


def test_x39_old_saved_outputs_are_swept_and_nothing_else(tmp_path: Path) -> None:
    now = 1_000_000_000.0
    folder = tmp_path / "outputs"
    saved = truncate_tool_output("x\n" * 5, 1, 1000, "bash", directory=folder).full_path
    assert saved is not None and (folder / MARKER_NAME).is_file()
    old, fresh = Path(saved), folder / "tool_bash_abcd1234.txt"
    fresh.write_text("x")
    lookalike = folder / "tool_bash_old.txt"  # not a name mkstemp gives
    foreign = folder / "notes.txt"
    target = tmp_path / "target.txt"
    for f in (lookalike, foreign, target):
        f.write_text("x")
    link = folder / "tool_link_abcd1234.txt"
    link.symlink_to(target)
    for f in (old, lookalike, foreign, target, link):
        _age(f, now - KEEP_SECONDS - 1)
    _age(fresh, now - KEEP_SECONDS + 60)
    assert sweep_saved_outputs(folder, now=now) == 1
    assert not old.exists()
    assert sorted(p.name for p in folder.iterdir()) == sorted(
        [MARKER_NAME, "notes.txt", "tool_bash_abcd1234.txt", "tool_bash_old.txt", link.name]
    )


def test_x39_a_directory_it_did_not_create_is_never_swept(tmp_path: Path) -> None:
    """Issue 9 item 6: the sweep deleted any old ``tool_*.txt`` of a workspace it was given."""
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    mine = [workspace / "tool_notes.txt", workspace / "tool_bash_abcd1234.txt"]
    for f in mine:
        f.write_text("the user's")
        _age(f, 1.0)
    truncate_tool_output("x\n" * 5, 1, 1000, "bash", directory=workspace)
    assert sweep_saved_outputs(workspace) == 0
    assert all(f.read_text() == "the user's" for f in mine)


def test_x39_a_forged_or_edited_marker_disables_the_sweep(tmp_path: Path) -> None:
    folder = tmp_path / "outputs"
    saved = truncate_tool_output("x\n" * 5, 1, 1000, "bash", directory=folder).full_path
    assert saved is not None
    _age(Path(saved), 1.0)
    (folder / MARKER_NAME).write_bytes(MARKER_TEXT + b"edited\n")
    assert sweep_saved_outputs(folder) == 0 and Path(saved).exists()


def test_x39_truncating_sweeps_its_own_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "outputs"
    stale = truncate_tool_output("x\n" * 5, 1, 1000, "bash", directory=folder).full_path
    assert stale is not None
    _age(Path(stale), 1.0)
    monkeypatch.setattr(truncate, "_SWEPT", {})  # the hourly limit is per process
    truncate_tool_output("y\n" * 5, 1, 1000, "bash", directory=folder)
    assert not Path(stale).exists()


def test_x37_failed_write_still_returns_the_preview(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    result = truncate_tool_output("x\n" * 5, 1, 1000, "bash", directory=blocker)
    assert result.was_truncated
    assert result.full_path is None
    assert result.preview == "x"
    assert "could not be saved" in result.hint


_outputs = st.text(alphabet=st.sampled_from("ab é€\n😀"), max_size=300)


@settings(max_examples=500)
@given(output=_outputs, max_lines=st.integers(1, 20), max_bytes=st.integers(1, 200))
def test_preview_is_a_prefix_within_limits(output: str, max_lines: int, max_bytes: int) -> None:
    preview = preview_of(output, max_lines, max_bytes)
    assert output.startswith(preview)
    if needs_truncation(output, max_lines, max_bytes):
        assert len(preview.encode()) <= max_bytes
        assert count_lines(preview) <= max_lines
    else:
        assert preview == output


@settings(max_examples=500)
@given(output=_outputs, max_lines=st.integers(1, 20), max_bytes=st.integers(1, 400))
def test_truncation_loses_no_byte(output: str, max_lines: int, max_bytes: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        result = truncate_tool_output(output, max_lines, max_bytes, "t", directory=Path(folder))
        if result.was_truncated:
            assert result.full_path is not None
            saved = Path(result.full_path).read_bytes()
            assert saved == output.encode()
            assert saved.startswith(result.preview.encode())
            assert count_lines(result.preview) <= max_lines
            if result.preview:  # the notice fit, so everything sent fits the limit (X38)
                assert byte_size(result.text) <= max_bytes
        else:
            assert result.preview == result.text == output


def test_planned_path_is_the_same_for_every_user(monkeypatch: pytest.MonkeyPatch) -> None:
    """Plans count the hint with a fixed path, so figures do not depend on who runs ctxtui."""
    from ctxtui.core.planning.truncation import planned_path

    first = planned_path("bash")
    monkeypatch.setenv("HOME", "/home/somebody-with-a-much-longer-name")
    monkeypatch.setenv("XDG_CACHE_HOME", "/var/cache/elsewhere")
    assert planned_path("bash") == first
    assert first.startswith("~/.cache/ctxtui/tool-output/")
