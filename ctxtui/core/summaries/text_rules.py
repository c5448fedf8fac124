"""The text rules of the stand-in summary: what it may quote, which paths it names, what a
decision sounds like. Quotes come from the untrusted transcript, so escapes and bidi controls
never reach the summary (nor the next LLM prompt) raw.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

_ANSI = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI: colours, cursor moves
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"  # OSC: titles, hyperlinks (to BEL or ST)
    r"|\x1b[PX^_][^\x1b]*(?:\x1b\\)?"  # DCS, SOS, PM, APC strings
    r"|\x1b[@-Z\\-_]"  # other two-character escapes
    r"|\x9b[0-?]*[ -/]*[@-~]"  # 8-bit CSI
)
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")
"""Control characters other than tab and line breaks, C1 controls, and bidi overrides."""


def clean_text(text: str) -> str:
    """``text`` without ANSI escapes and control characters; tabs and line breaks stay, and a
    carriage return becomes a line break (a redrawn progress bar reads as lines)."""
    if text.isprintable():
        return text
    text = _ANSI.sub("", text)
    return _CONTROL.sub("", text.replace("\r\n", "\n").replace("\r", "\n"))


_DIFF = re.compile(r"(?:^|\n|\\n)(?:---|\+\+\+) [ab]/|diff --git a/")
"""A diff's file headers, at a line start or after a JSON-escaped newline (tool arguments)."""
_SIDE = re.compile(r"^[ab]/(?=.)")


def is_diff(text: str) -> bool:
    """Whether ``text`` holds a unified diff's file headers (``--- a/x``, ``+++ b/x``)."""
    return _DIFF.search(text) is not None


def file_paths(text: str) -> Iterator[str]:
    """The paths ``PATH`` finds in ``text``; in a diff (only), ``a/x`` and ``b/x`` read as
    ``x``."""
    if "/" not in text and "." not in text:
        return  # every path has a slash or an extension's dot: a C scan skips the regex
    strip: bool | None = None  # asked once, at the first path: most texts have none
    for match in PATH.finditer(text):
        if strip is None:
            strip = is_diff(text)
        path = match.group(1)
        yield _SIDE.sub("", path) if strip else path


def patch_target(text: str) -> str:
    """The file a diff changes (its ``+++ b/x`` header, else ``--- a/x``), or ``""``."""
    for prefix in ("+++ ", "--- "):
        for line in text.splitlines():
            if line.startswith(prefix):
                path = line[len(prefix) :].strip().split("\t", 1)[0]
                if path and path != "/dev/null":
                    return _SIDE.sub("", path)
    return ""


DECISION = re.compile(
    r"\b(decided|decide to|instead|because|will use|i'll use|we'll use|going to use|"
    r"chose|choose|opted|rather than|switch(?:ed)? to|settled on|let's|let us|found it)\b",
    re.IGNORECASE,
)
"""What a decision sounds like in an assistant's reply: a choice made, a cause found."""

_DECISION_FRAGMENTS = (
    "dec", "tead", "becau", "ll u", "to u", "cho", "opted", "rather", "tch", "ettled", "let",
    "found",
)  # fmt: skip
"""A piece of every ``DECISION`` alternative, free of the letters (i, s, k) that match other
characters case-insensitively (İ, ſ, the Kelvin sign), so ``str.lower`` finds it wherever the
pattern could match."""


def states_decision(text: str) -> bool:
    """``DECISION.search(text)``, but a text with none of the words is refused without the
    slow regular expression."""
    lower = text.lower()
    if not any(fragment in lower for fragment in _DECISION_FRAGMENTS):
        return False
    return DECISION.search(text) is not None


SHORT_SENTENCE_WORDS = 4
"""A matching sentence this short ("Found it.") is a heading: the next sentence says what."""


def decision_sentences(sentences: Iterable[str]) -> Iterator[str]:
    """The sentences that state a decision; a short one is joined to the sentence after it."""
    listed = list(sentences)
    for k, sentence in enumerate(listed):
        if not states_decision(sentence):
            continue
        if len(sentence.split()) < SHORT_SENTENCE_WORDS and k + 1 < len(listed):
            yield f"{sentence} {listed[k + 1]}"
        else:
            yield sentence


EXTENSIONS = (
    "py|ts|tsx|js|jsx|go|rs|rb|java|kt|c|h|cc|cpp|hpp|md|toml|yaml|yml|json|jsonl|txt|cfg|ini|"
    "sh|sql|html|css|tcss|lock"
)
"""File extensions that make a bare name (no slash) a path."""
PATH = re.compile(
    rf"(?<![\w/.-])((?:\.{{0,2}}/)?(?:[\w.-]+/)+[\w.-]+|[\w-]+\.(?:{EXTENSIONS}))(?![\w/])"
)
ERROR_LINE = re.compile(r"(?:Error|Exception)\b|Traceback|\bFAILED\b|\bfailed\b|\berror:|\bpanic:")
ERROR_HINTS = ("Error", "Exception", "Traceback", "FAILED", "failed", "error:", "panic:")
"""Substrings every ``ERROR_LINE`` match contains: a cheap test that skips clean outputs."""
CODE_LINE = re.compile(
    r"^\s*+(?:\d++(?:\s*+[:|])?\s++)?(?:(?:raise|except|class|def|import|from|throw|catch|"
    r"assert|if|elif|return|try)\b|#|//|/?\*)"
)
"""A line of source code (a file read, maybe with line numbers): ``raise FooError(...)`` there
is a definition, not an error that happened, and would crowd the real ones out. Possessive
runs of spaces, so that ``1`` and 30,000 spaces is one pass, not a split tried per space."""


def error_lines(text: str) -> Iterator[str]:
    """The lines of ``text`` that hold an error marker, found in one scan of the whole text
    (a regex call per hit, not per line)."""
    end = -1
    for match in ERROR_LINE.finditer(text):
        if match.start() <= end:
            continue  # this line was already yielded
        start = text.rfind("\n", 0, match.start()) + 1
        end = text.find("\n", match.end())
        if end == -1:
            end = len(text)
        yield text[start:end]


SENTENCE_SPLIT = re.compile(r"(?<=[.!?])\s+|\n+")
CONSTRAINT = re.compile(
    r"\b(please|must|never|don't|do not|only|without|always|avoid|should not|shouldn't|"
    r"cannot|can't|no more than|at most|at least|make sure)\b",
    re.IGNORECASE,
)
PLAN_MARKER = re.compile(
    r"\b(next|then|plan|i will|i'll|we will|we'll|let me|todo|remaining|after that)\b",
    re.IGNORECASE,
)
LIST_LINE = re.compile(r"^\s*(?:[-*]|\d+[.)])\s+(.+)$")


def sentences(text: str) -> list[str]:
    return [s.strip() for s in SENTENCE_SPLIT.split(text) if s and s.strip()]
