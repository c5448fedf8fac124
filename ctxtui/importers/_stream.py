"""Bounded byte streams of a transcript file: decompression with a cap, bounded lines.

A hostile file (a small gzip that inflates to gigabytes of NUL bytes, a huge sparse file)
must not cost more memory than its useful data, so every read is bounded: binary content is
refused from the first few kilobytes, gzip and zstd are inflated a chunk at a time up to a
cap, and a line is never read past ``MAX_LINE_BYTES``. Corrupt and truncated compressed data
become one ``SessionLoadError`` line in plain words.
"""

from __future__ import annotations

import errno
import io
import os
import sqlite3
import stat
import zlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import IO, Any, BinaryIO, TypeVar, cast

from ctxtui.core.errors import ReadStoppedError, SessionLoadError, StopCheck

GZIP_MAGIC = b"\x1f\x8b"
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"

SNIFF_BYTES = 8192
"""How much of the (decompressed) start of a file decides that it is binary."""

MAX_LINE_BYTES = 256 * 1024 * 1024
"""A JSONL line longer than this is skipped unread: no agent writes one (a 32 MB PDF in
base64 is 43 MB), and reading it whole is how a file without newlines exhausts memory."""

MIN_INFLATE_CAP = 64 * 1024 * 1024
MAX_INFLATE_RATIO = 100
"""Compressed input may inflate to ``max(MIN_INFLATE_CAP, MAX_INFLATE_RATIO x its size)``.

Real transcripts compress 5-30x with gzip or zstd; a decompression bomb reaches 1000x. The
floor is small because a document of tiny messages costs tens of bytes of memory per
inflated byte once parsed and imported."""

T = TypeVar("T")

_IN_CHUNK = 64 * 1024
_OUT_CHUNK = 1024 * 1024
STOP_EVERY = 4096
"""Records read between two questions to ``Source.should_stop``: a few milliseconds of a
large read, so a stopped read ends at once, and the question costs nothing measurable."""
_ZSTD_IN_CHUNK = 1024
"""zstd has no output bound per call; one input byte can inflate ~32,000x (an RLE block), so
it is fed a kilobyte at a time (at most ~32 MB out per call)."""


class NotRegularFileError(OSError):
    """A path that is not a regular file where one is read (a FIFO, socket, device, directory).

    An ``OSError``, so every caller that survives an unreadable file survives this one too.
    """

    def __init__(self, path: str | os.PathLike[str], mode: int) -> None:
        self.problem = f"expected a regular file, found {file_kind(mode)}"
        super().__init__(errno.EINVAL, self.problem)
        self.filename = os.fspath(path)
        self.mode = mode


def file_kind(mode: int) -> str:
    """What a ``st_mode`` is, in words ("a FIFO (named pipe)", "a directory", ...)."""
    if stat.S_ISREG(mode):
        return "a regular file"
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "a special file"


_OPEN_FLAGS = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0)


def open_regular(path: str | os.PathLike[str]) -> BinaryIO:
    """``path`` opened for buffered binary reading, only if it is a regular file.

    The open itself never blocks (``O_NONBLOCK``: a FIFO opens at once instead of waiting for
    a writer) and what was opened is judged by ``fstat`` on the descriptor, not by an earlier
    look at the name, so a file swapped for a FIFO between the two is refused, not hung on.
    Raises ``NotRegularFileError`` for anything else, ``OSError`` when it cannot be opened.
    """
    fd = os.open(path, _OPEN_FLAGS)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotRegularFileError(path, mode)
        os.set_blocking(fd, True)
        return cast(BinaryIO, os.fdopen(fd, "rb"))
    except BaseException:
        os.close(fd)
        raise


def looks_binary(data: bytes) -> bool:
    """True when the start of the data is clearly not text (NULs or many control bytes)."""
    sample = data[:SNIFF_BYTES]
    if not sample:
        return False
    if b"\x00" in sample:
        return True
    controls = sum(1 for b in sample if b < 0x20 and b not in (9, 10, 12, 13))
    return controls * 10 > len(sample)


def binary_problem(data: bytes) -> str | None:
    """The refusal for binary ``data``, or ``None`` when it may be text."""
    if not looks_binary(data):
        return None
    first = " ".join(f"{b:02x}" for b in data[:8])
    return f"expected JSON text, found binary data (starts {first})"


class _Inflating(io.RawIOBase):
    """The decompressed bytes of a gzip or zstd file, inflated a bounded chunk at a time.

    Several gzip members or zstd frames follow one another, as ``cat a.gz b.gz`` makes; NUL
    padding after the last is ignored. A stream that stops inside a member or frame is
    *truncated*, not empty, and more output than ``cap`` bytes is refused.
    """

    def __init__(self, raw: BinaryIO, name: str, kind: str, cap: int) -> None:
        super().__init__()
        self._raw = raw
        self._name = name
        self._kind = kind
        self._cap = cap
        self._out = 0
        self._feed = b""
        self._feed_pos = 0
        """zstd is fed from here on in ``_feed`` (gzip keeps its own ``unconsumed_tail``)."""
        self._pending = memoryview(b"")
        self._decoder: Any = None
        self._raw_eof = False

    def readable(self) -> bool:
        return True

    def close(self) -> None:
        if not self.closed:
            self._raw.close()
        super().close()

    def readinto(self, buffer: Any) -> int:
        view = memoryview(buffer).cast("B")
        while not self._pending:
            if not self._inflate_some():
                return 0
        n = min(len(view), len(self._pending))
        view[:n] = self._pending[:n]
        self._pending = self._pending[n:]
        return n

    def _fill(self) -> bool:
        """Make sure there is input to feed; ``False`` at the end of the file."""
        if not self._feed and not self._raw_eof:
            try:
                self._feed = self._raw.read(_IN_CHUNK)
            except OSError as exc:
                raise self._error(f"cannot read the file ({exc.strerror})") from None
            self._raw_eof = not self._feed
        return bool(self._feed)

    def _inflate_some(self) -> bool:
        """Inflate the next chunk into ``_pending``; ``False`` when the stream is over."""
        if not self._fill():
            if self._decoder is not None:
                raise self._error(
                    f"truncated compressed data: the file ends inside the {self._kind} stream"
                )
            return False
        if self._decoder is None:
            self._feed = self._feed.lstrip(b"\x00")  # padding between or after members
            if not self._feed:
                return True
            self._decoder = self._new_decoder()
        out = self._decode()
        self._out += len(out)
        if self._out > self._cap:
            raise self._error(
                f"refused: the {self._kind} data inflates to more than "
                f"{self._cap // 2**20:,} MiB (a decompression bomb?)"
            )
        self._pending = memoryview(out)
        return True

    def _new_decoder(self) -> Any:
        """A decoder for the member or frame that starts the input still to feed."""
        magic = GZIP_MAGIC if self._kind == "gzip" else ZSTD_MAGIC
        while len(self._feed) < len(magic) and not self._raw_eof:
            more = self._raw.read(_IN_CHUNK)
            self._raw_eof = not more
            self._feed += more
        if not self._feed.startswith(magic):
            raise self._error(
                f"corrupt compressed data: unexpected bytes after the {self._kind} stream"
            )
        if self._kind == "gzip":
            return zlib.decompressobj(wbits=31)
        import zstandard

        return zstandard.ZstdDecompressor().decompressobj()

    def _decode(self) -> bytes:
        decoder = self._decoder
        try:
            if self._kind == "gzip":
                out: bytes = decoder.decompress(self._feed, _OUT_CHUNK)
                self._feed = decoder.unconsumed_tail
            else:
                start = self._feed_pos
                self._feed_pos = min(start + _ZSTD_IN_CHUNK, len(self._feed))
                out = decoder.decompress(memoryview(self._feed)[start : self._feed_pos])
                if self._feed_pos == len(self._feed):
                    self._feed, self._feed_pos = b"", 0
        except zlib.error as exc:
            raise self._error(
                f"corrupt compressed data: bad gzip stream ({_detail(exc)})"
            ) from None
        except Exception as exc:  # zstandard.ZstdError derives from Exception only
            raise self._error(
                f"corrupt compressed data: bad zstd stream ({_detail(exc)})"
            ) from None
        if decoder.eof:
            self._feed = decoder.unused_data + self._feed[self._feed_pos :]
            self._feed_pos = 0
            self._decoder = None
        return out

    def _error(self, problem: str) -> SessionLoadError:
        return SessionLoadError(self._name, problem)


def _detail(exc: BaseException) -> str:
    """The decompressor's own words without its prefix ('Error -3 while decompressing data: ')."""
    text = str(exc).strip() or "unreadable"
    _head, sep, tail = text.rpartition(": ")
    return tail if sep and tail else text


_MISSING = frozenset({errno.ENOENT, errno.ENOTDIR, errno.ELOOP})
"""Open errors that mean the path names nothing readable (a dangling or looping link)."""


def _open_problem(exc: OSError) -> str:
    if exc.errno in _MISSING:
        return "no such file or directory"
    if isinstance(exc, PermissionError):
        return "permission denied: the file is not readable"
    return f"cannot read the file ({exc.strerror})"


class _Window(io.RawIOBase):
    """A descriptor's bytes from ``offset`` on, read with ``pread``: each window keeps its own
    position, so several may read one descriptor, and closing one leaves it open."""

    def __init__(self, fd: int, offset: int) -> None:
        super().__init__()
        self._fd = fd
        self._pos = offset

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        data = os.pread(self._fd, len(buffer), self._pos)
        n = len(data)
        memoryview(buffer).cast("B")[:n] = data
        self._pos += n
        return n

    def seekable(self) -> bool:
        return True

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        if whence == io.SEEK_CUR:
            offset += self._pos
        elif whence != io.SEEK_SET:
            raise io.UnsupportedOperation("a window seeks from its start or where it is")
        self._pos = offset
        return offset

    def tell(self) -> int:
        return self._pos


class Source:
    """A transcript checked and opened once: what format detection and the importer read.

    ``open_source`` opens the path without blocking and judges what it opened by ``fstat``, so
    a FIFO is refused rather than waited on, and a name swapped afterwards changes nothing:
    every read (the magic bytes, the text head, each stream) reads this one descriptor at its
    own offset. A directory (OpenCode storage, a PicoClaw sessions directory) is a source
    too, with no bytes to read. ``document`` holds the file parsed whole once someone did
    (detection, then the importer), and ``dropped`` counts the token counts the importer
    dropped as out of range (``_parts.as_int``), for the session's one warning.
    ``should_stop`` is asked every ``STOP_EVERY`` records (``check_stop``): a long read its
    caller no longer wants ends there with ``ReadStoppedError``.
    """

    def __init__(self, path: Path, fd: int, st: os.stat_result) -> None:
        self.path = path
        self.size = st.st_size
        self.is_dir = stat.S_ISDIR(st.st_mode)
        self.inode = st.st_ino
        self.document: Any = None
        self.dropped = Dropped()
        self.should_stop: StopCheck | None = None
        self._fd = fd
        self._kind: str | None = None

    def __enter__(self) -> Source:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    @property
    def name(self) -> str:
        return str(self.path)

    def check_stop(self) -> None:
        """Raise ``ReadStoppedError`` when the caller asked the read to stop."""
        if self.should_stop is not None and self.should_stop():
            raise ReadStoppedError(self.name)

    def problem(self, text: str, line: int | None = None) -> SessionLoadError:
        return SessionLoadError(self.name, text, line)

    def magic(self, size: int = 16) -> bytes:
        """The first bytes as stored (not decompressed), for format sniffing; empty for a
        directory."""
        if self.is_dir:
            return b""
        return self.read_at(size, 0)

    def read_at(self, size: int, offset: int) -> bytes:
        """Up to ``size`` stored bytes from ``offset`` (not decompressed)."""
        try:
            return os.pread(self._fd, size, offset)
        except OSError as exc:
            raise self.problem(f"cannot read the file ({exc.strerror})") from None

    def raw(self, offset: int = 0) -> BinaryIO:
        """The bytes as stored from ``offset`` on, buffered (no decompression, no checks)."""
        if self.is_dir:
            raise self.problem("expected a file, found a directory")
        return cast(BinaryIO, io.BufferedReader(_Window(self._fd, offset), _IN_CHUNK))

    def compression(self) -> str:
        """``gzip``, ``zstd`` or ``""``, told by magic bytes (a renamed file still works);
        refuses zstd without the optional zstandard package, and binary content (its first
        ``SNIFF_BYTES``, decompressed), before any caller reads a line."""
        if self._kind is None:
            kind = self._magic_kind()
            with self._open(kind) as fh:
                try:
                    head = fh.read(SNIFF_BYTES)
                except OSError as exc:
                    raise self.problem(f"cannot read the file ({exc.strerror})") from None
            problem = binary_problem(head)
            if problem is not None:
                raise self.problem(problem)
            self._kind = kind
        return self._kind

    def _magic_kind(self) -> str:
        magic = self.magic(4)
        if magic.startswith(GZIP_MAGIC):
            return "gzip"
        if not magic.startswith(ZSTD_MAGIC):
            return ""
        try:
            import zstandard  # noqa: F401
        except ImportError:
            raise self.problem(
                "zstd-compressed file, but the 'zstandard' package is not installed "
                "(pip install zstandard, or decompress it with 'zstd -d')"
            ) from None
        return "zstd"

    def _open(self, kind: str, offset: int = 0) -> BinaryIO:
        raw = self.raw(offset)
        if not kind:
            return raw
        cap = max(MIN_INFLATE_CAP, MAX_INFLATE_RATIO * self.size)
        return cast(BinaryIO, io.BufferedReader(_Inflating(raw, self.name, kind, cap), _IN_CHUNK))

    def stream(self, offset: int = 0) -> BinaryIO:
        """The (decompressed) bytes from ``offset`` on, inflated a bounded chunk at a time;
        binary content is refused first (``compression``). An offset counts decompressed
        bytes only in a plain file: a compressed one is read from its start."""
        kind = self.compression()
        return self._open(kind, offset if not kind else 0)

    def read_all(self) -> bytes:
        """Every (decompressed) byte; a plain file is read straight into one ``bytes``."""
        kind = self.compression()
        if kind:
            with self._open(kind) as fh:
                try:
                    return fh.read()
                except OSError as exc:
                    raise self.problem(f"cannot read the file ({exc.strerror})") from None
        parts: list[bytes] = []
        offset = 0
        while piece := self.read_at(max(self.size - offset, _OUT_CHUNK), offset):
            parts.append(piece)
            offset += len(piece)
        return parts[0] if len(parts) == 1 else b"".join(parts)


class Dropped:
    """How many token counts one load dropped as out of range (``_parts.as_int``)."""

    __slots__ = ("count",)

    def __init__(self) -> None:
        self.count = 0


def stopping(items: Sequence[T], should_stop: StopCheck | None) -> Iterable[T]:
    """``items``, asking ``should_stop`` every ``STOP_EVERY`` of them: for an importer's
    steps after the lines are read (a chain converted), which a stopped read also ends."""
    if should_stop is None:
        return items
    return _stopping(items, should_stop)


def _stopping(items: Sequence[T], should_stop: StopCheck) -> Iterator[T]:
    for k, item in enumerate(items):
        if not k % STOP_EVERY and k and should_stop():
            raise ReadStoppedError()
        yield item


def open_source(path: Path) -> Source:
    """``path`` opened once as a ``Source``, or one line saying why it cannot be read.

    A regular file or a directory; anything else (a FIFO, a socket, a device) is refused
    without blocking.
    """
    try:
        fd = os.open(path, _OPEN_FLAGS)
    except OSError as exc:
        raise SessionLoadError(str(path), _open_problem(exc)) from None
    try:
        st = os.fstat(fd)
        if not (stat.S_ISREG(st.st_mode) or stat.S_ISDIR(st.st_mode)):
            raise SessionLoadError(
                str(path), f"expected a regular file, found {file_kind(st.st_mode)}"
            )
    except BaseException:
        os.close(fd)
        raise
    return Source(path, fd, st)


def open_file(path: Path) -> Source:
    """``open_source`` for a path that must be a file (not a directory)."""
    source = open_source(path)
    if source.is_dir:
        source.close()
        raise SessionLoadError(str(path), "expected a file, found a directory")
    return source


def numbered_lines(
    fh: IO[bytes], limit: int = MAX_LINE_BYTES, first: int = 0
) -> Iterator[tuple[int, bytes | None, bool]]:
    """Numbered raw lines without their terminator, each with whether it ended in a newline.

    A line longer than ``limit`` is skipped without being kept (read in bounded pieces up to
    its newline) and yielded as ``None``, so the caller can say so. Blank lines hold nothing
    for any reader and are not yielded, and after two in a row the rest of the run is skipped
    a buffer at a time, so a file of newlines alone costs no Python loop per line; the
    numbers still count every line, from ``first`` (the lines before where ``fh`` starts).
    """
    peek = getattr(fh, "peek", None)
    number = first
    blanks = 0  # blank lines in a row: a peek copies the whole buffer, so only runs pay it
    while True:
        raw = fh.readline(limit + 1)
        if not raw:
            return
        number += 1
        if raw.endswith(b"\n"):
            if not raw.strip():
                blanks += 1
                if blanks > 1 and peek is not None:
                    number += _skip_blank_lines(fh, peek)
                continue
            blanks = 0
            yield number, raw[:-1], True
            continue
        if len(raw) <= limit:
            yield number, raw, False
            return
        del raw
        complete = False
        while True:
            piece = fh.readline(_OUT_CHUNK)
            if not piece:
                break
            if piece.endswith(b"\n"):
                complete = True
                break
        yield number, None, complete
        if not complete:
            return


_BLANK = b" \t\n\r\x0b\x0c"
"""What ``bytes.strip`` removes: a line of these alone is blank."""


def _skip_blank_lines(fh: IO[bytes], peek: Callable[[int], bytes]) -> int:
    """Consume the whole blank lines at the front of ``fh``'s buffer, refill and repeat;
    returns how many lines were consumed. A blank line split across two buffers is left to
    ``numbered_lines``, which reads it as a line like any other."""
    skipped = 0
    while True:
        head = peek(1)
        blank = len(head) - len(head.lstrip(_BLANK))
        cut = head.rfind(b"\n", 0, blank) + 1
        if not cut:
            return skipped
        skipped += head.count(b"\n", 0, cut)
        fh.read(cut)


SQLITE_ERRORS = (sqlite3.Error, UnicodeDecodeError)
"""What reading a damaged SQLite file raises: ``sqlite3`` decodes its own error messages as
strict UTF-8, so a byte-flipped schema quoted in one raises ``UnicodeDecodeError`` instead."""


def sqlite_problem(exc: BaseException) -> str:
    """The reason of a ``SQLITE_ERRORS`` exception in words (never a class name)."""
    if isinstance(exc, UnicodeDecodeError):
        return "malformed database: its schema holds bytes that are not UTF-8"
    # One line, of a readable length: SQLite quotes a damaged schema's SQL in its messages.
    text = " ".join(str(exc).split()) or "unreadable database"
    return text if len(text) <= SQLITE_PROBLEM_CHARS else text[:SQLITE_PROBLEM_CHARS] + "…"


SQLITE_PROBLEM_CHARS = 160
