"""``ctxtui cache clear`` removes only what ctxtui wrote, says what it kept, and an
unwritable cache directory is one line and exit 2."""

from __future__ import annotations

import errno
import sqlite3
from pathlib import Path

import pytest

from ctxtui.cli.main import main
from ctxtui.fleet.index import FleetIndex
from ctxtui.system.count_cache import CountCache
from ctxtui.system.fact_cache import FactCache


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    directory = tmp_path / "cache"
    directory.mkdir()
    monkeypatch.setenv("CTXTUI_CACHE_DIR", str(directory))
    return directory


def _ctxtuis_files(directory: Path) -> list[Path]:
    counts = CountCache(directory)
    assert counts.store("tiktoken:cl100k_base", [(b"k" * 16, 5)])
    facts = FactCache(directory)
    assert facts.store([(b"k" * 16, (("path", "a.py", "a.py", 1),))], {})
    with FleetIndex(directory / "fleet.sqlite3", lambda _w: None) as index:
        assert index.usable
    return [counts.path("tiktoken:cl100k_base"), facts.path, directory / "fleet.sqlite3"]


def test_only_ctxtuis_files_are_removed_and_the_rest_is_named(
    cache: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A user's ``novel.counts`` and another program's ``fleet.sqlite3`` share the names
    ctxtui uses: both are kept, and said to be."""
    novel = cache / "novel.counts"
    novel.write_text("It was a dark and stormy night.\n")
    ours = _ctxtuis_files(cache)
    assert main(["cache", "clear"]) == 0
    out = capsys.readouterr().out
    assert novel.read_text().startswith("It was")
    assert f"kept {novel}: not written by ctxtui" in out
    assert not any(p.exists() for p in ours)
    assert all(f"removed {p}" in out for p in ours)

    database = cache / "fleet.sqlite3"
    con = sqlite3.connect(database)
    con.execute("CREATE TABLE accounts (name, balance)")
    con.execute("INSERT INTO accounts VALUES ('me', 10)")
    con.commit()
    con.close()
    assert main(["cache", "clear"]) == 0
    out = capsys.readouterr().out
    assert f"kept {database}: not written by ctxtui" in out
    with sqlite3.connect(database) as con:
        assert con.execute("SELECT balance FROM accounts").fetchone() == (10,)


def test_a_symlink_named_like_a_cache_file_is_kept(
    cache: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "elsewhere.counts"
    CountCache(tmp_path).store("elsewhere", [(b"k" * 16, 5)])
    (cache / "x.counts").symlink_to(target)
    assert main(["cache", "clear"]) == 0
    assert target.exists() and (cache / "x.counts").is_symlink()
    assert "kept" in capsys.readouterr().out


def test_an_unwritable_cache_directory_is_one_line_and_exit_2(
    cache: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """As root a directory's mode does not stop an unlink: the refusal is raised instead."""
    ours = _ctxtuis_files(cache)

    def refuse(self: Path, missing_ok: bool = False) -> None:
        raise PermissionError(errno.EACCES, "Permission denied", str(self))

    monkeypatch.setattr(Path, "unlink", refuse)
    assert main(["cache", "clear"]) == 2
    captured = capsys.readouterr()
    assert captured.err.count("\n") == 1
    assert f"ctxtui cache: error: cannot remove {ours[-1]}: Permission denied" in captured.err
    assert all(p.exists() for p in ours)


def test_a_read_only_cache_directory_as_a_real_process(cache: Path) -> None:
    """The same refusal from a real process, as root without ``CAP_DAC_OVERRIDE`` (which
    would let it delete in any directory) when the test runs as root."""
    import os
    import shutil
    import subprocess
    import sys

    _ctxtuis_files(cache)
    prefix: list[str] = []
    if os.geteuid() == 0:
        if shutil.which("setpriv") is None:
            pytest.skip("root without setpriv: a directory's mode cannot stop it")
        prefix = ["setpriv", "--bounding-set=-dac_override", "--inh-caps=-dac_override", "--"]
    cache.chmod(0o555)
    try:
        done = subprocess.run(
            [*prefix, sys.executable, "-m", "ctxtui", "cache", "clear"],
            capture_output=True,
            text=True,
            timeout=60,
            env={**os.environ, "CTXTUI_CACHE_DIR": str(cache)},
        )
    finally:
        cache.chmod(0o755)
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and "Permission denied" in done.stderr
    assert "Traceback" not in done.stderr and (cache / "fleet.sqlite3").exists()


def test_a_facts_file_of_another_program_is_kept(
    cache: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    foreign = cache / "facts.msgpack"
    foreign.write_bytes(b"\x81\xa1k\xa1v")  # a msgpack map, without ctxtui's header
    assert main(["cache", "clear"]) == 0
    assert f"kept {foreign}: not written by ctxtui" in capsys.readouterr().out
    assert foreign.exists()
