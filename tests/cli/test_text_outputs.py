"""Every text output of every command on every bundled sample, read as a user reads it: no
``1 <plural>``, no dollar figure without a word saying whose it is (recorded, simulated,
a request's, a session's), and each figure ``report --json`` also gives equal to it.

The JSON is the reference: the text, the HTML page and the other commands word the same
figures, so a request numbered from 0 in one place and from 1 in another, or a trigger
rounded two ways, shows here as a difference.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from ctxtui.cli.main import main
from ctxtui.samples import samples_dir

SAMPLES = sorted(
    p
    for p in samples_dir().iterdir()
    if p.suffix in (".json", ".jsonl") and not p.name.endswith(".meta.json")
)
COMMANDS: tuple[tuple[str, ...], ...] = (
    ("report",),
    ("replay",),
    ("retention",),
    ("compare",),
    ("compare", "--replay"),
    ("compact",),
)

PLURAL_ONE = re.compile(r"(?<![\d,.$+−-])1 ([a-z][a-z-]*s)\b")
NOT_PLURAL = {"is", "was", "has", "its", "this", "as", "plus", "minus", "us"}
DOLLAR = re.compile(r"\$[\d,]+(?:\.\d+)?")
LABELS = (
    "recorded",
    "simulated",
    "cost",
    "request",
    "session",
    "sub-agent",
    "carry",
    "priced",
    "input",
    "output",
    "cache",
)
"""Words that say whose a dollar figure is; one of them must share its clause."""


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    capsys.readouterr()
    assert main(list(argv)) in (0, 1), argv
    captured = capsys.readouterr()
    return " ".join((captured.out + captured.err).split())  # wrapped lines read as one


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []

    def handle_data(self, data: str) -> None:
        self.parts.append(data)


def _html(capsys: pytest.CaptureFixture[str], sample: Path, tmp_path: Path) -> str:
    out = tmp_path / "page.html"
    _run(capsys, "report", str(sample), "--html", "-o", str(out), "--force")
    page = _Text()
    page.feed(out.read_text(encoding="utf-8"))
    return " ".join(" ".join(page.parts).split())


def outputs(
    capsys: pytest.CaptureFixture[str], sample: Path, tmp_path: Path
) -> Iterator[tuple[str, str]]:
    """``(what, text)`` for every text output of every command on ``sample``."""
    for argv in COMMANDS:
        yield " ".join(argv), _run(capsys, argv[0], str(sample), *argv[1:])
    yield "report --html", _html(capsys, sample, tmp_path)


def clauses(text: str) -> Iterator[str]:
    yield from re.split(r" · |; |: (?=[a-z])", text)


def unlabelled_dollars(text: str) -> list[str]:
    return [
        clause
        for clause in clauses(text)
        if DOLLAR.search(clause) and not any(label in clause.lower() for label in LABELS)
    ]


def one_plurals(text: str) -> list[str]:
    return [m.group(0) for m in PLURAL_ONE.finditer(text) if m.group(1) not in NOT_PLURAL]


def differences(text: str, doc: dict[str, Any]) -> list[str]:
    """Each figure of ``text`` that ``report --json`` (``doc``) gives differently."""
    found: list[str] = []

    def check(pattern: str, *expected: str) -> None:
        for m in re.finditer(pattern, text):
            if m.groups() != expected:
                found.append(f"{m.group(0)!r}, report --json: {expected}")

    reported = doc.get("reported")
    if reported:
        check(
            r"API reported ([\d,]+) prompt tok at request ([\d,]+)",
            f"{reported['prompt_tokens']:,}",
            f"{reported['request'] + 1:,}",
        )
    cost, cache = doc["cost"], doc["cache"]
    if cost["total_usd"] is not None:
        check(
            r"recorded cost \$([\d,.]+) over ([\d,]+) request",
            f"{cost['total_usd']:,.4f}",
            f"{cost['requests_priced']:,}",
        )
    if cache["hit_ratio"] is not None:
        check(r"recorded cost [^·]*· cache hit ratio ([\d.]+%)", f"{cache['hit_ratio']:.1%}")
    t = doc["totals"]
    check(
        r"^session .*? request ([\d,]+) of ([\d,]+) tok", f"{t['requested']:,}", f"{t['window']:,}"
    )
    check(r"request: ([\d,]+) -> ", f"{t['requested']:,}")
    check(r"(?:^| )prompt: ([\d,]+) -> ", f"{t['tokens']:,}")
    preset = re.escape(doc["policy"]["preset"])
    if t["trigger"] is not None:
        check(rf"(?:^| ){preset} window [^·]*?· .*?trigger at ([\d,]+) tok", f"{t['trigger']:,}")
    return found


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda p: p.name)
def test_every_text_output_says_each_figure_once_and_right(
    sample: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = json.loads(_run(capsys, "report", str(sample), "--json"))
    problems: list[str] = []
    for what, text in outputs(capsys, sample, tmp_path):
        problems += [f"{what}: '{p}'" for p in one_plurals(text)]
        problems += [f"{what}: no label for the dollars in {c!r}" for c in unlabelled_dollars(text)]
        problems += [f"{what}: {d}" for d in differences(text, doc)]
    assert problems == []


def test_the_listings_count_in_the_singular_too(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The listings, and the fleet over every sample (its dollars' words are the fleet's
    own issue, item 1: here only its counts are read)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))  # the fleet's index stays in tmp
    fleet = ("fleet", str(samples_dir()), "--workers", "1", "--no-cache")
    for argv in (("presets",), ("presets", "--knobs"), ("formats",), fleet):
        assert one_plurals(_run(capsys, *argv)) == [], argv


def test_the_checks_find_what_they_look_for() -> None:
    """The scans themselves: a wrong plural, a bare dollar figure and a figure off by one."""
    assert one_plurals("8 requests · 1 compactions · 1 request · 21 messages") == ["1 compactions"]
    assert unlabelled_dollars("$0.0236 · cache hit 99%") == ["$0.0236"]
    assert unlabelled_dollars("last request $0.0236 · cache hit 99%") == []
    assert unlabelled_dollars("what-if: $2.33 against $3.53 recorded") == []
    doc: dict[str, Any] = {
        "reported": {"prompt_tokens": 21_968, "request": 936},
        "cost": {"total_usd": None},
        "cache": {"hit_ratio": None},
        "totals": {"requested": 1, "tokens": 1, "window": 2, "trigger": None},
        "policy": {"preset": "plan"},
    }
    assert differences("API reported 21,968 prompt tok at request 937", doc) == []
    assert differences("API reported 21,968 prompt tok at request 936", doc) != []


def test_a_compaction_that_grows_the_prompt_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    """On the markup sample the stand-in summary is longer than the few messages it
    replaces: ``compact`` says the prompt grows, never a negative saving."""
    assert main(["compact", str(samples_dir() / "markup_and_ansi.json")]) == 0
    out = capsys.readouterr().out
    grows = re.search(r"prompt: ([\d,]+) -> ([\d,]+) tok \(grows by ([\d,]+) tok: ", out)
    assert grows is not None, out
    before, after, by = (int(g.replace(",", "")) for g in grows.groups())
    assert after - before == by > 0
    assert "saved -" not in out
