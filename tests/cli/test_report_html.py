"""``ctxtui report FILE --html -o report.html`` (issue 29 item 10): one self-contained page whose
figures are ``report --json``'s, written with every write's checks, parsed as well-formed HTML.
The browser half (tests/browser/test_report_html_in_a_browser.py) opens it in Chromium."""

from __future__ import annotations

import json
import os
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from ctxtui.cli.main import main
from ctxtui.samples import samples_dir

SAMPLE = samples_dir() / "claude_code_replay.jsonl"
WINDOW = ["--preset", "plan", "--context-window", "10000"]  # a plan that prunes
VOID = {"meta", "br", "img", "input", "link", "hr", "col", "wbr", "area", "base", "source"}
SVG_EMPTY = {"line", "polyline", "path", "circle", "rect"}


class Page(HTMLParser):
    """Checks nesting (every element closed in order) and collects what a test reads."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.errors: list[str] = []
        self.figures: dict[str, str] = {}
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self._figure: str | None = None
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        if tag not in VOID:
            self.stack.append(tag)
        self._figure = dict(attrs).get("data-figure") or self._figure

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        if tag not in VOID | SVG_EMPTY:
            self.errors.append(f"<{tag}/> is not a void element")

    def handle_endtag(self, tag: str) -> None:
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes {self.stack[-1:]}")
            return
        self.stack.pop()

    def handle_data(self, data: str) -> None:
        self.text.append(data)
        if self._figure is not None:
            self.figures[self._figure] = data
            self._figure = None


def parse(html: str) -> Page:
    page = Page()
    page.feed(html)
    page.close()
    assert page.errors == [] and page.stack == [], (page.errors, page.stack)
    return page


def number(text: str) -> float:
    return float(text.replace(",", "").rstrip("%").lstrip("$"))


def expected_figures(doc: dict[str, Any]) -> dict[str, float]:
    """Each figure the page tags, from the JSON document (a ratio shown as a percentage)."""
    out: dict[str, float] = {}
    for key in (
        "totals.requested",
        "totals.window",
        "totals.tokens",
        "totals.output_reserve",
        "totals.trigger",
        "fresh_tail.start",
        "fresh_tail.tokens",
        "session.message_count",
        "reported.prompt_tokens",
    ):
        section, field = key.split(".")
        out[key] = float(doc[section][field])
    out["totals.used_ratio"] = round(doc["totals"]["used_ratio"] * 100, 1)
    # one numbering: the page numbers requests from 1, as report's text and the app do
    out["reported.request"] = doc["reported"]["request"] + 1
    # one figure for the trigger and the window, in the summary and on the chart
    out["timeline.trigger"] = float(doc["totals"]["trigger"])
    out["timeline.window"] = float(doc["totals"]["window"])
    cost = doc.get("cost") or {}
    if cost.get("total_usd") is not None:
        out["cost.total_usd"] = round(cost["total_usd"], 4)
    if cost.get("subagents"):
        out["cost.total_with_subagents_usd"] = round(cost["total_with_subagents_usd"], 4)
    if doc["cache"]["hit_ratio"] is not None:
        out["cache.hit_ratio"] = round(doc["cache"]["hit_ratio"] * 100, 1)
    return out


@pytest.fixture
def report_json(capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    assert main(["report", str(SAMPLE), "--json", *WINDOW]) == 0
    doc: dict[str, Any] = json.loads(capsys.readouterr().out)
    return doc


def write_page(tmp_path: Path) -> Path:
    out = tmp_path / "report.html"
    assert main(["report", str(SAMPLE), "--html", "-o", str(out), *WINDOW]) == 0
    return out


def test_the_page_is_well_formed_and_self_contained(tmp_path: Path) -> None:
    html = write_page(tmp_path).read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>")
    page = parse(html)
    names = [tag for tag, _ in page.tags]
    assert "script" not in names and "link" not in names and "img" not in names
    for _, attrs in page.tags:
        for name, value in attrs.items():
            assert not (name in ("src", "href") and value), (name, value)
    assert "http://" not in html.replace('xmlns="http://www.w3.org/2000/svg"', "")
    assert "https://" not in html and "@import" not in html and "url(" not in html
    csp = next(a for t, a in page.tags if t == "meta" and a.get("http-equiv"))
    assert "default-src 'none'" in (csp["content"] or "")
    assert names.count("svg") == 1 and "polyline" in names
    assert {a.get("data-series") for _, a in page.tags} >= {
        "simulated", "reported", "window", "trigger",
    }  # fmt: skip


def test_the_figures_are_report_json_s(tmp_path: Path, report_json: dict[str, Any]) -> None:
    page = parse(write_page(tmp_path).read_text(encoding="utf-8"))
    expected = expected_figures(report_json)
    shown = {key: number(text) for key, text in page.figures.items()}
    assert shown == expected
    rows = [a for t, a in page.tags if t == "tr" and (a.get("class") or "").startswith("zone-")]
    assert len(rows) == len(report_json["messages"])
    assert [r["class"] for r in rows] == [f"zone-{m['zone']}" for m in report_json["messages"]]
    assert ["pruned" in "".join(page.text)] == [bool(report_json["prune"]["pruned"])]


def test_the_page_escapes_what_the_session_holds(tmp_path: Path) -> None:
    session = tmp_path / "<b>odd\x1b[31m.json"
    chat = {
        "messages": [
            {"role": "user", "content": "run it"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "c1",
                        "type": "function",
                        "function": {"name": "<script>x</script>", "arguments": "{}"},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": "c1", "content": "\x1b[31mred\x1b[0m"},
        ]
    }
    session.write_text(json.dumps(chat))
    out = tmp_path / "page.html"
    assert main(["report", str(session), "--html", "-o", str(out)]) == 0
    html = out.read_text(encoding="utf-8")
    parse(html)
    assert "<script>" not in html and "\x1b" not in html
    assert "&lt;script&gt;x&lt;/script&gt;" in html and "␛[31m" in html


def test_the_write_is_atomic_and_checked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = write_page(tmp_path)
    before = out.read_bytes()
    assert main(["report", str(SAMPLE), "--html", "-o", str(out)]) == 2
    assert "file exists" in capsys.readouterr().err
    assert out.read_bytes() == before
    link = tmp_path / "link.html"
    link.symlink_to(out)
    assert main(["report", str(SAMPLE), "--html", "-o", str(link), "--force"]) == 2
    assert "symbolic link" in capsys.readouterr().err
    copy = tmp_path / "session.jsonl"
    copy.write_bytes(SAMPLE.read_bytes())
    assert main(["report", str(copy), "--html", "-o", str(copy), "--force"]) == 2
    assert "source session" in capsys.readouterr().err
    assert main(["report", str(SAMPLE), "--html", "-o", str(out), "--force", *WINDOW]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "link.html",
        "report.html",
        "session.jsonl",
    ]  # fmt: skip  (no temporary file left)
    assert os.stat(out).st_size > 0


def test_minus_o_needs_a_format(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", str(SAMPLE), "-o", str(tmp_path / "x.txt")]) == 2
    assert "expected --html or --json" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_the_page_names_the_tools_and_shows_no_call_id(tmp_path: Path) -> None:
    html = write_page(tmp_path).read_text(encoding="utf-8")
    assert "toolu_" not in html
    page = parse(html)
    assert "grep" in page.text and "read_file" in page.text


def test_a_session_with_sub_agents_gives_both_totals_as_report_json_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.cli.test_cost_cli import _transcript

    path = tmp_path / "s.jsonl"
    _transcript(path, "claude-sonnet-4-5")
    _transcript(tmp_path / "s" / "subagents" / "agent-a1.jsonl", "claude-sonnet-4-5", "a1")
    assert main(["report", str(path), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    out = tmp_path / "page.html"
    assert main(["report", str(path), "--html", "-o", str(out)]) == 0
    page = parse(out.read_text(encoding="utf-8"))
    shown = {key: number(text) for key, text in page.figures.items()}
    assert shown["cost.total_with_subagents_usd"] == round(
        doc["cost"]["total_with_subagents_usd"], 4
    )
    assert shown["cache.hit_ratio"] == round(doc["cache"]["hit_ratio"] * 100, 1)
    assert "with 1 sub-agent" in "".join(page.text)
