"""The compaction preview's `s`: the prompt sent to a real OpenAI-compatible server on
127.0.0.1 (tests/llm/server.py), its answer streamed into the summary tab, and the failures."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from textual.widgets import Label, Static, TabbedContent

from ctxtui.llm.wire import SummarizerError
from ctxtui.tui.app import make_app
from ctxtui.tui.llm_job import endpoint_for
from ctxtui.tui.screens.compaction import CompactionPreviewScreen
from ctxtui.tui.screens.main import MainScreen
from ctxtui.tui.settings import (
    DETERMINISTIC_CONFIG_PATH,
    default_config_path,
    deterministic_settings,
    load_settings,
)
from ctxtui.tui.widgets.llm_summary import LLMSummaryView
from tests.llm.hostile import hostile
from tests.llm.server import SUMMARY, Behaviour, serve
from tests.tui.main_fixtures import (
    demo_session,
    figures,
    llm_app,
    open_preview,
    settle,
    until,
)


@pytest.fixture(autouse=True)
def _no_key(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)


def _status(screen: CompactionPreviewScreen) -> str:
    status = screen.query_one("#llm-status", Static)
    return str(status.render()) if status.display else ""


def _llm_text(screen: CompactionPreviewScreen) -> str:
    return str(screen.query_one("#llm-text", Static).render())


async def test_the_servers_summary_streams_in_and_names_its_model() -> None:
    with serve() as (url, behaviour):
        app = llm_app(url)
        async with app.run_test(size=(120, 40)) as pilot:
            screen = await open_preview(pilot)
            stand_in = screen.query_one("#summary")
            await pilot.press("s")
            await until(pilot, lambda: screen.llm_summary is not None, "the summary")
            assert screen.query_one(TabbedContent).active == "summary-tab"
            assert _llm_text(screen) == SUMMARY.strip()
            assert not stand_in.display and screen.query_one(LLMSummaryView).display
            calls = len(behaviour.requests)
            byline = str(screen.query_one("#llm-byline", Label).render())
            tokens = f"{100 * calls} in + {40 * calls} out tokens"
            assert byline.startswith("Summary written by served-model (")
            assert tokens in byline
            assert _status(screen) == ""  # every template section is there
            assert "LLM summary" in [
                str(w.render()) for w in screen.query(".figure-label").results(Label)
            ]
            sent = behaviour.requests[0]
            assert sent["model"] == "m" and sent["stream"] is True
            await pilot.press("a")
            await settle(pilot)
            main = app.screen
            assert isinstance(main, MainScreen) and main.session is not None
            summaries = [m.content for m in main.session.messages if m.is_summary]
            assert summaries == [SUMMARY.strip()], "apply keeps the model's summary"


async def test_text_shows_while_it_streams_and_escape_stops_midway() -> None:
    """The server sends two pieces and stalls: they are on screen before the call ends; Escape
    then stops the call and the stand-in comes back."""
    with serve(Behaviour(mode="stall-mid", stall_seconds=30)) as (url, _):
        app = llm_app(url, timeout=30)
        async with app.run_test(size=(120, 40)) as pilot:
            screen = await open_preview(pilot)
            await pilot.press("s")
            await until(pilot, lambda: _llm_text(screen) == SUMMARY[:80], "two pieces")
            assert screen.llm_summary is None, "still streaming"
            assert not screen.query_one("#summary").display
            await pilot.press("escape")
            await pilot.pause()
            assert app.screen is screen and screen.query_one("#summary").display
            assert _status(screen).startswith("Stopped")


async def test_missing_template_sections_are_named() -> None:
    with serve(Behaviour(text="## Goal\nship it\n")) as (url, _):
        app = llm_app(url)
        async with app.run_test(size=(120, 40)) as pilot:
            screen = await open_preview(pilot)
            await pilot.press("s")
            await until(pilot, lambda: screen.llm_summary is not None, "the summary")
            line = _status(screen)
            assert line.startswith("The summary lacks these template sections: ")
            assert "## Constraints, ## Progress" in line
            assert "## Goal" not in line


async def test_a_refusal_is_one_line_and_the_stand_in_stays() -> None:
    with serve(Behaviour(mode="status", status=401)) as (url, _):
        app = llm_app(url)
        async with app.run_test(size=(120, 40)) as pilot:
            screen = await open_preview(pilot)
            await pilot.press("s")
            await until(pilot, lambda: "failed" in _status(screen), "the failure")
            line = _status(screen)
            assert line.startswith("LLM summary failed: the endpoint refused the request: HTTP 401")
            assert "\n" not in line and line.endswith("the stand-in stays")
            assert screen.query_one("#summary").display
            assert not screen.query_one(LLMSummaryView).display
            assert screen.llm_summary is None


async def test_escape_stops_a_stalled_call_and_a_second_escape_closes() -> None:
    with serve(Behaviour(mode="stall", stall_seconds=30)) as (url, behaviour):
        app = llm_app(url, timeout=30)
        async with app.run_test(size=(120, 40)) as pilot:
            screen = await open_preview(pilot)
            await pilot.press("s")
            await until(pilot, lambda: _status(screen).startswith("Asking m at"), "the call")
            await pilot.press("escape")
            await pilot.pause()
            assert app.screen is screen, "the first Escape stops the call, not the preview"
            assert _status(screen).startswith("Stopped: the LLM call was cancelled")
            assert screen.query_one("#summary").display
            behaviour.release.set()  # the stalled answer arrives late and is ignored
            assert behaviour.stall_over.wait(5)
            await pilot.pause(0.3)
            assert screen.llm_summary is None and screen.query_one("#summary").display
            await pilot.press("escape")
            await pilot.pause()
            assert isinstance(app.screen, MainScreen)


async def test_without_an_llm_set_up_the_key_says_how() -> None:
    app = llm_app(None)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_preview(pilot)
        await pilot.press("s")
        await pilot.pause()
        line = _status(screen)
        assert line.startswith("No LLM set up: start ctxtui with --summarizer openai --llm-model")
        assert f"in {DETERMINISTIC_CONFIG_PATH};" in line and screen.query_one("#summary").display


def test_the_advice_names_the_config_file_the_app_read(tmp_path: Path) -> None:
    """It said "in config.json" without saying where that file is; it now names the file
    ``load_settings`` read, which the user can open as it is."""
    config = tmp_path / "ctxtui" / "config.json"
    settings = load_settings(config)
    with pytest.raises(SummarizerError) as refused:
        endpoint_for(settings.llm, {})
    assert f'"model": NAME}} in {config}; the key comes from OPENAI_API_KEY' in str(refused.value)
    assert load_settings().llm.config_path == default_config_path()


def test_the_apps_flags_override_the_config_file() -> None:
    from ctxtui.cli.main import build_app_parser, llm_flags

    args = build_app_parser().parse_args(
        ["--summarizer", "openai", "--llm-model", "m", "--llm-base-url", "http://127.0.0.1:9/v1"]
    )
    config = deterministic_settings(llm={"model": "from-config", "timeout": 5})
    app = make_app(demo_session(), settings=config, llm=llm_flags(args))
    assert app.settings.llm.model_dump() == {
        "summarizer": "openai",
        "base_url": "http://127.0.0.1:9/v1",
        "model": "m",
        "timeout": 5.0,
        "allow_http": False,
    }
    unset = llm_flags(build_app_parser().parse_args([]))
    assert unset == {}, "no flag given: the config file decides"


async def test_the_figures_are_recounted_for_the_llms_summary() -> None:
    """Before → after, "summary adds" and "saved" follow the summary shown: the model's,
    counted with the plan's tokenizer, not the stand-in's (a long answer saves less)."""
    long_summary = SUMMARY + "\n".join(f"- detail {i} of the earlier work" for i in range(300))
    with serve(Behaviour(text=long_summary)) as (url, _):
        app = llm_app(url)
        async with app.run_test(size=(120, 40)) as pilot:
            screen = await open_preview(pilot)
            stand_in = screen.result
            before_text = figures(screen)
            await pilot.press("s")
            await until(pilot, lambda: screen.llm_summary is not None, "the summary")
            await settle(pilot)
            result = screen.result
            main = app.main
            assert main.engine is not None
            tokenizer = main.engine.tokenizer(main.policy)
            summary = next(m for m in screen.session_to_apply.messages if m.is_summary)
            old = next(m for m in stand_in.session.messages if m.is_summary)
            grew = tokenizer.count_message(summary) - tokenizer.count_message(old)
            assert grew > 1_000
            assert result.summary_tokens == stand_in.summary_tokens + grew
            assert result.tokens_after == stand_in.tokens_after + grew
            assert result.tokens_before == stand_in.tokens_before
            text = figures(screen)
            assert text != before_text
            assert f"Summary adds  {result.summary_tokens:,} tok" in text
            assert f"Prompt tokens  {result.prompt_before:,} → {result.prompt_after:,}" in text
            assert f"Request tokens  {result.tokens_before:,} → {result.tokens_after:,}" in text
            assert result.tokens_saved < 0, "the long answer grows the prompt, and says so"
            assert f"Saved  grows by {-result.tokens_saved:,} tok: the summary is longer" in text
            labels = [str(w.render()) for w in screen.query(".figure-value").results(Label)]
            assert f"{result.summary_tokens:,} tok" in labels
            title = str(screen.query_one("#title", Label).render())
            assert title.endswith(f"→ {result.prompt_after:,} tok (LLM summary)")


async def test_an_answers_escapes_are_shown_never_sent_to_the_terminal() -> None:
    with hostile("escapes") as (url, _):
        app = llm_app(url)
        async with app.run_test(size=(120, 40)) as pilot:
            screen = await open_preview(pilot)
            await pilot.press("s")
            await until(pilot, lambda: screen.llm_summary is not None, "the summary")
            shown = _llm_text(screen)
            byline = str(screen.query_one("#llm-byline", Label).render())
    assert "\x1b" not in shown and "\x07" not in shown
    assert "␛]52;c;ZXZpbA==␇" in shown  # literally, so the clipboard is never written
    assert "\x1b" not in byline and "m␛[31m" in byline


LLM_TIMEOUT = 60
BEFORE_THE_TIMEOUT = LLM_TIMEOUT / 2
"""What tells "hung up at once" from "waited for the timeout" on a machine of any load: a
wall-clock limit near the expected time fails under load for no fault of the code."""


async def test_escape_closes_the_connection_at_once() -> None:
    """A server dripping a byte now and then: Escape must hang up, not wait for the timeout."""
    with hostile("drip-body", drip=0.2) as (url, log):
        app = llm_app(url, timeout=LLM_TIMEOUT)
        async with app.run_test(size=(120, 40)) as pilot:
            screen = await open_preview(pilot)
            await pilot.press("s")
            await until(pilot, lambda: bool(log.opened), "the call")
            await pilot.pause(0.3)
            await pilot.press("escape")
            pressed = time.monotonic()
            await until(pilot, lambda: bool(log.closed), "the hang-up")
            assert log.closed[0] - pressed < BEFORE_THE_TIMEOUT
            assert _status(screen).startswith("Stopped")


async def test_q_quits_while_a_call_is_reading() -> None:
    with hostile("drip-body", drip=0.2) as (url, log):
        app = llm_app(url, timeout=LLM_TIMEOUT)
        started = time.monotonic()
        async with app.run_test(size=(120, 40)) as pilot:
            await open_preview(pilot)
            await pilot.press("s")
            await until(pilot, lambda: bool(log.opened), "the call")
            await pilot.press("q")
            quit_at = time.monotonic()
        assert app.return_code is not None, "q quit the app"
        assert time.monotonic() - started < BEFORE_THE_TIMEOUT
        assert log.held() < BEFORE_THE_TIMEOUT, "and hung up at once"
        assert max(log.closed) - quit_at < BEFORE_THE_TIMEOUT


async def test_an_endless_answer_ends_in_one_line_and_the_keys_stay_live() -> None:
    """A server streaming text without end: the call stops at its cap, quickly, and says so."""
    with hostile("endless") as (url, _):
        app = llm_app(url, timeout=LLM_TIMEOUT)
        async with app.run_test(size=(120, 40)) as pilot:
            screen = await open_preview(pilot)
            started = time.monotonic()
            await pilot.press("s")
            await until(pilot, lambda: "failed" in _status(screen), "the refusal")
            assert time.monotonic() - started < BEFORE_THE_TIMEOUT
            assert "stopped reading" in _status(screen)
            assert screen.query_one("#summary").display, "the stand-in stays"
