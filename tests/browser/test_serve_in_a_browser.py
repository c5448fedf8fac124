"""``ctxtui serve`` in a real headless Chromium: the app renders and answers keys in a browser.

The terminal is drawn on a canvas, so the test reads what the page was sent: the bytes of the
websocket frames, with escape sequences stripped, collected separately after each key. It runs
alone (``make test-browser``; ``make test`` leaves it out). It is skipped when no Chromium or
Playwright is installed, and ``CTXTUI_REQUIRE_BROWSER=1`` (set by ``.ci/run``, which installs
both) turns that skip into a failure so CI cannot pass without running it.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from ctxtui.samples import demo_session_path

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ESCAPES = re.compile(
    r"\x1b(\[[0-9;?<>=]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[()][0-9A-Za-z]|.)"
)


def _missing() -> str | None:
    if CHROMIUM is None:
        return "no chromium on PATH (apt-get install chromium)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright package is not installed"
    return None


def _require_browser() -> None:
    reason = _missing()
    if reason is None:
        return
    if os.environ.get("CTXTUI_REQUIRE_BROWSER") == "1":
        pytest.fail(f"browser test required but cannot run: {reason}")
    pytest.skip(reason)


@pytest.fixture
def served(tmp_path: Path) -> Iterator[str]:
    """The URL ``ctxtui serve`` prints (it holds the launch's token: no other URL opens it)."""
    _require_browser()
    env = {**os.environ, "HOME": str(tmp_path), "TEXTUAL_ANIMATIONS": "none"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "ctxtui", "serve", str(demo_session_path()), "--port", "0"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env,
    )
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline().decode()
        match = re.search(r"serving on (http://\S+)", line)
        if match is None:
            pytest.fail(f"ctxtui serve did not start: {line[-500:]}")
        yield match[1]
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


def test_the_app_renders_and_answers_keys_in_a_browser(served: str, tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    frames: list[bytes] = []

    def screen_since(mark: int) -> str:
        text = b"".join(frames[mark:]).decode("utf-8", "replace")
        return ESCAPES.sub("", text)

    def wait_for(words: str, mark: int, seconds: float = 15) -> str:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            page.wait_for_timeout(100)
            seen = screen_since(mark)
            if words in seen:
                return seen
        raise AssertionError(f"{words!r} never reached the page; it got: {seen[-400:]!r}")

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS)
        try:
            page = browser.new_page(viewport={"width": 1200, "height": 800})
            page.on(
                "websocket",
                lambda ws: ws.on(
                    "framereceived", lambda f: frames.append(f) if isinstance(f, bytes) else None
                ),
            )
            page.goto(served)
            first = wait_for("tokenizer plan", 0)  # the session bar: the app is up
            assert "demo.json" in first
            page.locator(".textual-terminal").click()

            mark = len(frames)
            page.keyboard.press("t")
            assert "fresh tail" in wait_for("fresh tail", mark)

            mark = len(frames)
            page.keyboard.press("c")  # the plan preset: the preview opens at once
            preview = wait_for("Compaction preview", mark)
            assert "Summary of Previous Conversation" in preview
            assert "LLM prompt" in preview
            shot = tmp_path / "serve-preview.png"
            page.screenshot(path=str(shot))
            assert shot.stat().st_size > 10_000
        finally:
            browser.close()
