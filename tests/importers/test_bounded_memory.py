"""Issue 9 item 15: a decompression bomb and a huge sparse file are refused in bounded memory.

A 2 MB gzip that inflates to 2 GiB of NUL bytes, and a 2 GiB sparse file, used to be read
as one 2 GiB "line" (6.4 GB peak RSS) before anything looked at them. Both are built here
in a second or so, and refused by a child process whose own peak RSS is measured, under
detection and under every file format forced with ``--format``.
"""

from __future__ import annotations

import io
import json
import struct
import subprocess
import sys
import zlib
from pathlib import Path
from typing import BinaryIO, cast

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxtui.cli.main import main
from ctxtui.importers import FORMAT_NAMES, _jsonl, _stream

SIZE = 2 * 1024**3
PEAK_RSS_LIMIT_MB = 300

_CHILD = """
import contextlib, io, json, resource, sys, time
from ctxtui.cli.main import main
path, formats = sys.argv[1], sys.argv[2:]
results = []
for fmt in [None, *formats]:
    argv = ["report", path] + ([] if fmt is None else ["--format", fmt])
    err = io.StringIO()
    start = time.perf_counter()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = main(argv)
    results.append([fmt, code, err.getvalue(), time.perf_counter() - start])
# VmHWM is this process image's own peak; ru_maxrss would include the parent's size at
# fork (Linux keeps it across exec), and a pytest worker may be far bigger than the limit.
hwm = next(l for l in open("/proc/self/status") if l.startswith("VmHWM:"))
peak_mb = int(hwm.split()[1]) / 1024
print(json.dumps({"peak_mb": peak_mb, "results": results}))
"""


def gzip_of_zeros(path: Path, size: int = SIZE, chunk: int = 1 << 20, byte: bytes = b"\0") -> None:
    """One gzip member inflating to ``size`` copies of ``byte``, written without compressing
    them all.

    Deflate blocks cut by a full flush refer to nothing before them, so the compressed block
    of one chunk is repeated; the trailer's CRC-32 is still computed honestly.
    """
    zeros = byte * chunk
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    first = packer.compress(zeros) + packer.flush(zlib.Z_FULL_FLUSH)
    block = packer.compress(zeros) + packer.flush(zlib.Z_FULL_FLUSH)
    crc = 0
    for _ in range(size // chunk):
        crc = zlib.crc32(zeros, crc)
    with path.open("wb") as fh:
        fh.write(first)
        for _ in range(size // chunk - 1):
            fh.write(block)
        fh.write(b"\x03\x00" + struct.pack("<II", crc, size & 0xFFFFFFFF))  # final empty block


def _refuse_in_child(path: Path) -> dict[str, object]:
    file_formats = [f for f in FORMAT_NAMES if f != "native"] + ["native"]
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, str(path), *file_formats],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    report: dict[str, object] = json.loads(done.stdout)
    return report


@pytest.mark.parametrize("kind", ["gzip bomb", "sparse file"])
def test_binary_giants_are_refused_in_bounded_memory(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "session.jsonl"
    if kind == "gzip bomb":
        gzip_of_zeros(path)
        assert path.stat().st_size < 3 * 1024**2
    else:
        with path.open("wb") as fh:
            fh.truncate(SIZE)
    report = _refuse_in_child(path)
    results = report["results"]
    assert isinstance(results, list) and len(results) == len(FORMAT_NAMES) + 1
    for fmt, code, err, _seconds in results:
        lines = err.splitlines()
        assert code == 2 and len(lines) == 1, (fmt, err)
        if fmt not in ("opencode",):  # a file forced as OpenCode is not a storage directory
            assert "found binary data (starts 00 00 00 00" in lines[0], (fmt, err)
    peak_mb = report["peak_mb"]
    assert isinstance(peak_mb, float) and peak_mb < PEAK_RSS_LIMIT_MB, report


def test_the_bomb_really_inflates_to_its_size(tmp_path: Path) -> None:
    """The input above is what it claims: a valid gzip of 2 GiB, checked on a small one."""
    import gzip

    path = tmp_path / "small.gz"
    gzip_of_zeros(path, size=8 << 20)
    assert gzip.decompress(path.read_bytes()) == bytes(8 << 20)


def test_a_newline_bomb_is_refused_at_the_cap_without_a_loop_per_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A gzip of 2 GiB of newlines passes the binary sniff (newlines are text) and used to be
    read one empty line at a time: 215 s to reach the inflate cap, 512 MiB then. Runs of blank
    lines are now skipped a buffer at a time: the file is refused at its cap (100 times its
    2 MB) after a few thousand reads instead of 202 Mi of them."""
    path = tmp_path / "session.jsonl"
    gzip_of_zeros(path, byte=b"\n")
    calls = _count_reads(monkeypatch)
    assert main(["report", str(path)]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1 and "inflates to more than 202 MiB" in lines[0], lines  # 100x
    assert 0 < calls["readline"] < 1_000 and 0 < calls["read"] < 20_000, calls


def _count_reads(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """Count the reads of every stream the JSONL reader opens from here on."""
    calls = {"readline": 0, "read": 0}
    real = _stream.Source.stream

    class Counting:
        def __init__(self, fh: BinaryIO) -> None:
            self._fh = fh

        def __enter__(self) -> Counting:
            return self

        def __exit__(self, *exc: object) -> None:
            self._fh.close()

        def readline(self, limit: int = -1) -> bytes:
            calls["readline"] += 1
            assert calls["readline"] < 100_000, "one read per line"  # fail now, not in minutes
            return self._fh.readline(limit)

        def read(self, size: int = -1) -> bytes:
            calls["read"] += 1
            return self._fh.read(size)

        def peek(self, size: int = 0) -> bytes:
            return cast(io.BufferedReader, self._fh).peek(size)

    monkeypatch.setattr(
        _stream.Source, "stream", lambda source, offset=0: Counting(real(source, offset))
    )
    return calls


_LINES = st.lists(
    st.sampled_from(["", " ", "\r", " \t\r", "\x0b", '{"a": 1}', "x", "  [2]"]), max_size=40
)


@settings(max_examples=300)
@given(lines=_LINES, final_newline=st.booleans(), buffer_size=st.integers(1, 16))
def test_blank_runs_are_skipped_and_every_other_line_keeps_its_number(
    lines: list[str], final_newline: bool, buffer_size: int
) -> None:
    """Whatever the buffer cuts, every line with content comes out with its own number and
    whether it ended in a newline, as a plain split of the file gives them."""
    data = "\n".join(lines).encode() + (b"\n" if final_newline and lines else b"")
    expected = [
        (n, line.encode(), n < len(lines) or final_newline)
        for n, line in enumerate(lines, start=1)
        if line.strip()
    ]
    fh = io.BufferedReader(io.BytesIO(data), buffer_size)
    got = [row for row in _stream.numbered_lines(fh) if row[1] is None or row[1].strip()]
    assert got == expected


@pytest.mark.parametrize("fmt", [None, "openai-chat", "claude-code", "codex", "picoclaw"])
def test_a_flood_of_tiny_records_is_refused_past_the_record_cap(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    fmt: str | None,
) -> None:
    """A 75 KB gzip holds a million tiny records, and each message costs ~2 KB: the cap keeps
    that from becoming gigabytes. Values count, on one line or many; blank and corrupt lines,
    which keep nothing, do not."""
    monkeypatch.setattr(_jsonl, "MAX_RECORDS", 50)
    record = '{"role": "user", "content": "x"}'
    flag = [] if fmt is None else ["--format", fmt]
    for name, text, line in [
        ("lines.jsonl", (record + "\n") * 51, 51),
        ("values.jsonl", record + "\n" + record * 50 + "\n", 2),
    ]:
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        assert main(["report", str(path), *flag]) == 2
        err = capsys.readouterr().err.splitlines()
        assert len(err) == 1 and f"{name}:{line}: more than 50 JSON values" in err[0]
    path = tmp_path / "fifty.jsonl"
    path.write_text(record + "\n" + ("not json\n\u00a0\n" + record + "\n") * 49 + " \r")
    assert main(["report", str(path), "--format", "openai-chat"]) == 0


def test_sharegpt_counts_the_conversations_it_does_not_keep_past_the_cap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(_jsonl, "MAX_RECORDS", 50)
    conversation = json.dumps({"conversations": [{"from": "human", "value": "hi"}]})
    path = tmp_path / "dataset.jsonl"
    path.write_text((conversation + "\n") * 60, encoding="utf-8")
    assert main(["report", str(path), "--format", "sharegpt"]) == 0
    assert "60 conversations in the file; showing the first" in capsys.readouterr().out
