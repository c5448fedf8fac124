"""An exception no handler catches ends the app with one line, not a screen of traceback
(issue 9, item 14); ``CTXTUI_DEBUG=1`` keeps Textual's traceback."""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest
from textual.pilot import Pilot

from ctxtui.cli.main import main
from ctxtui.options import EXIT_INTERNAL
from ctxtui.samples import demo_session_path
from ctxtui.tui.app import CtxtuiApp


def _boom(self: CtxtuiApp) -> None:
    raise RuntimeError("boom\nsecond line")


def _run_headless(self: CtxtuiApp, *args: Any, **kwargs: Any) -> None:
    """``App.run`` as the CLI calls it, headless, pressing the key whose handler raises."""

    async def press(pilot: Pilot[Any]) -> None:
        await pilot.pause()
        await pilot.press("question_mark")
        await pilot.pause()

    asyncio.run(self.run_async(headless=True, size=(100, 30), auto_pilot=press))


@pytest.fixture
def broken_help(monkeypatch: pytest.MonkeyPatch) -> None:
    from ctxtui.cli import main as cli

    monkeypatch.setattr(cli, "_not_a_terminal", lambda: None)
    monkeypatch.setattr(CtxtuiApp, "action_help", _boom)
    monkeypatch.setattr(CtxtuiApp, "run", _run_headless)


def test_an_exception_in_a_handler_is_one_line_and_exit_3(
    broken_help: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("CTXTUI_DEBUG", raising=False)
    assert main([str(demo_session_path())]) == EXIT_INTERNAL
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert "Traceback" not in err
    assert "ctxtui: internal error (RuntimeError: boom second line)" in err
    assert "CTXTUI_DEBUG=1" in err


def test_ctxtui_debug_shows_textuals_traceback(
    broken_help: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("CTXTUI_DEBUG", "1")
    assert main([str(demo_session_path())]) == 1  # Textual's own exit code for a crash
    err = capsys.readouterr().err
    assert "Traceback" in err and "RuntimeError: boom" in err


def test_the_app_records_the_error_and_exits_with_the_internal_code(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("CTXTUI_DEBUG", raising=False)
    monkeypatch.setattr(CtxtuiApp, "action_help", _boom)
    from ctxtui.tui.app import make_app

    app = make_app(demo_session_path())

    async def run() -> None:
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.press("question_mark")
            await pilot.pause()

    with pytest.raises(RuntimeError):  # Pilot re-raises what ended the app
        asyncio.run(run())
    assert isinstance(app.internal_error, RuntimeError)
    assert app.return_code == EXIT_INTERNAL


class _OneCall:
    """Leaf calls as the LLM job reads them: one unstructured prompt."""

    structured = False

    def prompt(self, index: int, previous: str) -> str:
        return "P"

    def __len__(self) -> int:
        return 1


def _failing_jobs(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[Any]:
    """Each background job, with what it calls made to raise a bug, and the message it posts."""
    import ctxtui.importers
    import ctxtui.system.export
    from ctxtui.core.engine import Engine
    from ctxtui.core.policies.policy import preset
    from ctxtui.core.policies.reasons import CompactReason
    from ctxtui.importers import load_session
    from ctxtui.tui import jobs, llm_job, timeline_jobs

    def boom(*args: object, **kwargs: object) -> Any:
        raise RuntimeError("boom\nsecond line")

    session = load_session(demo_session_path())
    engine = Engine(session)
    monkeypatch.setattr(ctxtui.importers, "load_session", boom)
    monkeypatch.setattr(Engine, "compact", boom)
    monkeypatch.setattr(Engine, "counts", boom)
    monkeypatch.setattr(jobs, "get_current_worker", lambda: SimpleNamespace(is_cancelled=False))
    monkeypatch.setattr(ctxtui.system.export, "write_session", boom)
    monkeypatch.setattr(Engine, "run", boom)
    monkeypatch.setattr(llm_job, "summarize_leaves", boom)
    monkeypatch.setattr(llm_job, "get_current_worker", lambda: SimpleNamespace(is_cancelled=False))
    monkeypatch.setattr(
        timeline_jobs, "get_current_worker", lambda: SimpleNamespace(is_cancelled=False)
    )
    policy = preset("plan")
    return [
        lambda post: jobs.read_session(post, tmp_path / "s.jsonl", None),
        lambda post: jobs.compact(post, engine, policy, next(iter(CompactReason))),
        lambda post: jobs.count(post, engine, policy),
        lambda post: jobs.count_quietly(post, engine, policy),
        lambda post: jobs.write(post, session, tmp_path / "out.json"),
        lambda post: timeline_jobs.run_replay(post, engine, policy),
        lambda post: llm_job.run_summary(post, cast(Any, None), cast(Any, _OneCall()), 1),
    ]


def test_a_bug_in_a_background_job_is_the_clis_line_not_a_class_name(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Loading, counting, compacting, exporting, replaying and the LLM summary catch what they
    did not expect, so the app stays up; the line they post is the CLI's words for a bug, not
    a bare class name (issue 9, item 12)."""
    monkeypatch.delenv("CTXTUI_DEBUG", raising=False)
    for job in _failing_jobs(monkeypatch, tmp_path):
        posted: list[Any] = []
        job(posted.append)
        (message,) = posted
        line = next(v for v in vars(message).values() if isinstance(v, str) and "boom" in v)
        assert "internal error (RuntimeError: boom second line); this is a bug in ctxtui" in line
        assert line.endswith("run again with CTXTUI_DEBUG=1 for the traceback"), line


def test_with_ctxtui_debug_a_bug_in_a_job_is_raised_for_its_traceback(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("CTXTUI_DEBUG", "1")
    for job in _failing_jobs(monkeypatch, tmp_path):
        with pytest.raises(RuntimeError, match="boom"):
            job(lambda message: None)


def test_with_ctxtui_debug_a_bug_in_a_worker_ends_the_app_with_its_traceback(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The job raises it again, and the worker must exit on that error: one that does not
    only logs it, and the app sat on "loading…" with nothing said."""
    import ctxtui.importers
    from ctxtui.cli import main as cli

    def boom(*args: object, **kwargs: object) -> Any:
        raise RuntimeError("boom in the loader")

    monkeypatch.setenv("CTXTUI_DEBUG", "1")
    monkeypatch.setattr(ctxtui.importers, "load_session", boom)
    monkeypatch.setattr(cli, "_not_a_terminal", lambda: None)

    def run_headless(self: CtxtuiApp, *args: Any, **kwargs: Any) -> None:
        async def wait(pilot: Pilot[Any]) -> None:
            for _ in range(200):  # the load fails in a worker; the app must end by itself
                await pilot.pause(0.05)
                if pilot.app._exit_renderables or not pilot.app.is_running:
                    return
            pilot.app.exit()  # it did not: end it, and the asserts below say so

        asyncio.run(self.run_async(headless=True, size=(100, 30), auto_pilot=wait))

    monkeypatch.setattr(CtxtuiApp, "run", run_headless)
    assert main([str(demo_session_path())]) == 1  # Textual's own exit code for a crash
    err = capsys.readouterr().err
    assert "Traceback" in err and "RuntimeError: boom in the loader" in err
