"""Truncation of huge tool outputs: the plan's ``TruncateToolOutput`` with defects X30–X39 fixed.

What the model would see (``render``): whether an output is truncated, its preview and the
notice naming where the rest went. The planner needs nothing more, so it never writes a file;
the write path an agent would run at ingest time (``truncate_tool_output``) is
``ctxtui.system.truncation_files``, which words its result with these same functions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ctxtui.core.wording import plural

ENCODING = "utf-8"
ERRORS = "surrogatepass"
"""Never fail on a lone surrogate decoded from JSON: an output is measured and saved this way."""
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]+")
NAME_LIMIT = 64
"""Characters of a tool's name kept in a saved file's name."""
SAVED_PREFIX = "tool_"
SAVED_SUFFIX = ".txt"
"""A saved output is named SAVED_PREFIX + tool name + mkstemp's 8 characters + SAVED_SUFFIX."""
SEPARATOR = "\n\n"
"""Between the preview and the notice, in the one text the model is sent."""


@dataclass(frozen=True, slots=True)
class TruncatedResult:
    """What the model would see, and where the whole output went. ``hint`` says how much is
    shown and where the rest is (X38); ``text`` joins them, so no caller drops the notice."""

    preview: str
    full_path: str | None
    was_truncated: bool
    hint: str

    @property
    def text(self) -> str:
        """Preview and notice as sent to the model; the output itself when not truncated."""
        if not self.was_truncated:
            return self.preview
        return f"{self.preview}{SEPARATOR}{self.hint}" if self.preview else self.hint


def check_limits(max_lines: int, max_bytes: int) -> None:
    """Reject limits ≤ 0, which would "truncate" every output to nothing (X39)."""
    if max_lines <= 0:
        raise ValueError(f"max_lines must be at least 1, got {max_lines:,}")
    if max_bytes <= 0:
        raise ValueError(f"max_bytes must be at least 1, got {max_bytes:,}")


def count_lines(output: str) -> int:
    """Lines of ``output``; a trailing newline ends a line rather than starting one (X36)."""
    if not output:
        return 0
    return output.count("\n") + (0 if output.endswith("\n") else 1)


def byte_size(output: str) -> int:
    """UTF-8 size of ``output``, the unit of ``max_bytes`` (its length when ASCII, an O(1) test)."""
    if output.isascii():
        return len(output)
    return len(output.encode(ENCODING, ERRORS))


def needs_truncation(output: str, max_lines: int, max_bytes: int) -> bool:
    """True when the output is over either limit."""
    check_limits(max_lines, max_bytes)
    return count_lines(output) > max_lines or byte_size(output) > max_bytes


def preview_of(output: str, max_lines: int, max_bytes: int) -> str:
    """The first ``max_lines`` lines cut to ``max_bytes`` bytes, never inside a character (X35):
    always a prefix of the output, so preview plus saved file lose no byte."""
    if not needs_truncation(output, max_lines, max_bytes):
        return output
    return _cut(output, max_lines, max_bytes)


def _cut(output: str, max_lines: int, max_bytes: int) -> str:
    """``preview_of`` for an output already known to be over a limit."""
    cut = 0
    for _ in range(max_lines):
        nl = output.find("\n", cut)
        if nl < 0:
            cut = len(output)
            break
        cut = nl + 1
    head = output[:cut].removesuffix("\n") if cut < len(output) else output
    return utf8_head(head, max_bytes)


def utf8_head(text: str, limit: int) -> str:
    """The longest prefix of ``text`` within ``limit`` UTF-8 bytes, never inside a character."""
    raw = text.encode(ENCODING, ERRORS)
    if len(raw) <= limit:
        return text
    end = limit
    while end > 0 and (raw[end] & 0xC0) == 0x80:  # a continuation byte: back to the lead byte
        end -= 1
    return raw[:end].decode(ENCODING, ERRORS)


def sanitize_tool_name(tool_name: str) -> str:
    """A file-name-safe form of a tool name that cannot leave the directory (X31)."""
    safe = _UNSAFE.sub("_", tool_name).strip("_")[:NAME_LIMIT]
    return safe or "tool"


def hint_for(path: str) -> str:
    """The plan's hint, with the path it forgot to format in (X34)."""
    return f"Tool output truncated. Full output saved to {path}. Use read_file or grep to access."


def unsaved_hint(problem: str) -> str:
    """The hint when the output could not be saved: the preview still reaches the model (X37)."""
    return f"Tool output truncated. The full output could not be saved ({problem})."


def shown_marker(shown_lines: int, lines: int, shown_bytes: int, size: int) -> str:
    """How much of the output the preview holds, so it is never mistaken for the whole (X38)."""
    of_lines, of_bytes = plural(lines, "line"), plural(size, "byte")
    return f"...{shown_lines:,} of {of_lines} ({shown_bytes:,} of {of_bytes}) shown..."


@dataclass(frozen=True, slots=True)
class Measure:
    """An output's size as truncation reckons it: ``count_lines`` and ``byte_size``."""

    lines: int
    size: int

    @classmethod
    def of(cls, output: str) -> Measure:
        return cls(count_lines(output), byte_size(output))


@dataclass(frozen=True, slots=True)
class Saved:
    """Where the whole output went: the saved file (``path``), or why it is not saved."""

    path: str | None
    problem: str = ""

    @property
    def hint(self) -> str:
        return hint_for(self.path) if self.path is not None else unsaved_hint(self.problem)


def notice_for(shown: Measure, whole: Measure, saved: Saved) -> str:
    """The marker and the hint that follow a preview: counts, then where the rest went."""
    marker = shown_marker(shown.lines, whole.lines, shown.size, whole.size)
    return f"{marker}\n{saved.hint}"


def render(output: str, max_lines: int, max_bytes: int, saved: Saved) -> TruncatedResult:
    """What the model sees for ``output``, without writing anything: preview, separator and
    notice within ``max_bytes`` (X38), or the notice alone when it does not fit. The room is
    reckoned with the whole output's counts, never shorter than those shown."""
    return render_measured(output, Measure.of(output), max_lines, max_bytes, saved)


def render_measured(
    output: str, whole: Measure, max_lines: int, max_bytes: int, saved: Saved
) -> TruncatedResult:
    """``render`` of an output whose ``count_lines`` and ``byte_size`` are already known."""
    check_limits(max_lines, max_bytes)
    if whole.lines <= max_lines and whole.size <= max_bytes:
        return TruncatedResult(preview=output, full_path=None, was_truncated=False, hint="")
    widest = notice_for(whole, whole, saved)
    room = max_bytes - byte_size(widest) - byte_size(SEPARATOR)
    # room < max_bytes and the output is over a limit, so it is over (max_lines, room) too
    preview = _cut(output, max_lines, room) if room > 0 else ""
    hint = notice_for(Measure.of(preview), whole, saved)
    return TruncatedResult(preview=preview, full_path=saved.path, was_truncated=True, hint=hint)


OPENCODE_HINT = (
    "The tool call succeeded but the output was truncated. Full output saved to: {path}\n"
    "Use the Task tool to have explore agent process this file with Grep and Read (with "
    "offset/limit). Do NOT read the full file yourself - delegate to save context."
)
"""OpenCode's hint for an agent that may use the task tool, as its default agent may
(``Truncate.output``, ``packages/opencode/src/tool/truncation.ts``)."""


OPENCODE_PATH = "~/.local/share/opencode/tool-output/tool_" + "x" * 26
"""Where OpenCode saves an output (``Truncate.DIR``, an ascending id), as long as its own."""


def whole_lines_head(
    output: str, max_lines: int, max_bytes: int, path: str = OPENCODE_PATH
) -> str | None:
    """OpenCode's ``Truncate.output`` (head): whole lines while they fit ``max_bytes`` (a
    newline between lines counted), up to ``max_lines``, so a first line over the limit keeps
    nothing; then ``...N bytes truncated...`` (or lines) and the hint. ``None`` within both."""
    rows = output.split("\n")
    total = byte_size(output)
    if len(rows) <= max_lines and total <= max_bytes:
        return None
    kept = 0
    size = 0
    hit_bytes = False
    for k, row in enumerate(rows[:max_lines]):
        step = byte_size(row) + (1 if k > 0 else 0)
        if size + step > max_bytes:
            hit_bytes = True
            break
        size += step
        kept += 1
    removed, unit = (total - size, "bytes") if hit_bytes else (len(rows) - kept, "lines")
    preview = "\n".join(rows[:kept])
    return f"{preview}\n\n...{removed} {unit} truncated...\n\n{OPENCODE_HINT.format(path=path)}"


def harness_cap(output: str, max_chars: int) -> str | None:
    """Claude Code's cap on a Bash output (``BASH_MAX_OUTPUT_LENGTH``, 30,000 characters,
    middle-truncated: anthropics/claude-code#19901): half the characters from each end and a
    marker naming the lines left out (the marker's wording is ctxtui's). ``None`` within it."""
    if len(output) <= max_chars:
        return None
    half = max_chars // 2
    head, tail = output[:half], output[len(output) - (max_chars - half) :]
    gone = output[half : len(output) - len(tail)]
    return f"{head}\n\n... [{gone.count(chr(10)) + 1} lines truncated] ...\n\n{tail}"


PLANNED_DIRECTORY = Path("~/.cache/ctxtui/tool-output")
"""The directory a plan's hints name: the Linux default in ``~`` form, the same on every
machine, so a plan (and a snapshot of it) does not depend on who runs it or where."""


def planned_path(tool_name: str, directory: Path | None = None) -> str:
    """A saved-file path as long as ``mkstemp``'s, so the planner counts the hint unwritten."""
    folder = directory if directory is not None else PLANNED_DIRECTORY
    return str(folder / f"{SAVED_PREFIX}{sanitize_tool_name(tool_name)}_xxxxxxxx{SAVED_SUFFIX}")
