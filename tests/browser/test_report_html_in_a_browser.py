"""``report --html``'s page in a real headless Chromium (issue 29 item 10): it opens with no
console error and no request beyond its own file, draws the gauge, the timeline's four series
and the tables, and the figures it shows are ``report --json``'s. Run by ``make test-browser``
(skipped without Chromium or Playwright; ``CTXTUI_REQUIRE_BROWSER=1`` fails instead)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ctxtui.cli.main import main
from tests.browser.test_serve_in_a_browser import CHROMIUM, CHROMIUM_FLAGS, _require_browser
from tests.cli.test_report_html import SAMPLE, WINDOW, expected_figures, number


def errors_of(seen: list[str]) -> Callable[[Any], None]:
    """A console listener that keeps the page's errors in ``seen``."""

    def listen(message: Any) -> None:
        if message.type == "error":
            seen.append(message.text)

    return listen


def test_the_html_report_in_chromium(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _require_browser()
    from playwright.sync_api import sync_playwright

    assert main(["report", str(SAMPLE), "--json", *WINDOW]) == 0
    doc: dict[str, Any] = json.loads(capsys.readouterr().out)
    out = tmp_path / "report.html"
    assert main(["report", str(SAMPLE), "--html", "-o", str(out), *WINDOW]) == 0
    url = out.as_uri()

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS)
        try:
            for scheme in ("light", "dark"):
                view = {"width": 1100, "height": 900}
                page = browser.new_page(viewport=view, color_scheme=scheme)  # type: ignore[arg-type]
                errors: list[str] = []
                requests: list[str] = []
                page.on("console", errors_of(errors))
                page.on("pageerror", lambda e, seen=errors: seen.append(str(e)))
                page.on("request", lambda r, seen=requests: seen.append(r.url))
                page.goto(url)
                page.wait_for_load_state("load")
                assert errors == [], (scheme, errors)
                assert requests == [url], (scheme, requests)
                shown = page.eval_on_selector_all(
                    "[data-figure]", "els => els.map(e => [e.dataset.figure, e.textContent])"
                )
                assert {k: number(v) for k, v in shown} == expected_figures(doc)
                rows = page.locator("#messages tbody tr").count()
                assert rows == len(doc["messages"])
                assert page.locator("#tools tbody tr").count() == len(doc["tools"])
                # what is drawn: the gauge's blocks have width, each series its own colour
                widths = page.eval_on_selector_all(
                    ".gauge span", "els => els.map(e => e.getBoundingClientRect().width)"
                )
                assert widths and all(w > 0 for w in widths)
                colours = page.eval_on_selector_all(
                    "svg [data-series]",
                    "els => els.map(e => [e.dataset.series, getComputedStyle(e).stroke])",
                )
                by_series = dict(colours)
                assert set(by_series) == {"simulated", "reported", "window", "trigger"}
                assert len(set(by_series.values())) == 4, by_series
                box = page.locator("svg#timeline").bounding_box()
                assert box is not None and box["width"] > 500 and box["height"] > 100
                page.close()
        finally:
            browser.close()
