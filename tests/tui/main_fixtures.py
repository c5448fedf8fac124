"""Deterministic sessions for the app's tests and snapshots, built in Python, and the pilot
steps and readings the test modules share.

They do not read the sample files, so another engineer's edit to a sample can never move a
snapshot here. Every figure below is chosen so the plan preset (4 chars/token) prunes, keeps
and drops something in a 16,384-token window.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import Input
from textual.widgets._footer import FooterKey
from textual.worker import WorkerCancelled

from ctxtui.core.session.models import (
    Message,
    Session,
    SessionMeta,
    ToolCall,
    ToolDefinition,
    Usage,
)
from ctxtui.samples import samples_dir
from ctxtui.system.export import native_bytes
from ctxtui.tui.app import CtxtuiApp, make_app
from ctxtui.tui.screens.compaction import CompactionPreviewScreen
from ctxtui.tui.screens.timeline import TimelineScreen
from ctxtui.tui.settings import (
    deterministic_settings,
)
from ctxtui.tui.start import Start
from ctxtui.tui.state import MainState
from ctxtui.tui.widgets.message_list import MessageList

WINDOW = 16_384

RESERVE = 2_048


def _lines(prefix: str, n: int) -> str:
    return "\n".join(f"{prefix} line {i:04d}: ok" for i in range(n))


def demo_session(turns: int = 8, name: str = "demo.jsonl") -> Session:
    """A coding agent fixing a test: reads, greps and runs pytest, with big tool outputs."""
    messages: list[Message] = []
    tasks = [
        ("Fix the failing test in tests/test_pricing.py", "read_file", "pricing.py"),
        ("Now run the whole suite", "run_shell", "pytest -q"),
        ("Search for other callers of round_cents", "grep", "round_cents"),
        ("Show me the diff", "run_shell", "git diff"),
    ]
    for turn in range(turns):
        ask, tool, arg = tasks[turn % len(tasks)]
        call_id = f"call_{turn:02d}"
        messages.append(Message(role="user", content=f"{ask} (step {turn + 1})"))
        messages.append(
            Message(
                role="assistant",
                content=f"Running {tool} on {arg}.",
                tool_calls=(ToolCall(id=call_id, name=tool, arguments=json.dumps({"arg": arg})),),
                usage=Usage(prompt_total=4_000 + 900 * turn, output=120, source="usage"),
            )
        )
        messages.append(
            Message(
                role="tool",
                tool_call_id=call_id,
                tool_name=tool,
                content=_lines(f"{tool} {arg}", 40 + 25 * (turn % 3)),
            )
        )
        messages.append(
            Message(role="assistant", content=f"Done with step {turn + 1}: the output looks fine.")
        )
    return Session(
        messages=tuple(messages),
        system_prompt="You are a careful coding agent. " * 40,
        tools=(
            ToolDefinition(name="read_file", description="Read a file", parameters={"path": {}}),
            ToolDefinition(name="run_shell", description="Run a command", parameters={"cmd": {}}),
            ToolDefinition(name="grep", description="Search files", parameters={"pattern": {}}),
        ),
        meta=SessionMeta(source_path=f"/somewhere/private/{name}", format="native"),
    )


def markup_session() -> Session:
    """Content that Rich would style or a terminal would act on, if the app let it."""
    return Session(
        messages=(
            Message(role="user", content="Please print [bold]bold[/] and [red]red[/red] text"),
            Message(role="assistant", content="Here: \x1b[1mbold\x1b[0m and \x1b[31mred\x1b[0m"),
            Message(role="user", content="tabs\there, a bell\x07, NUL\x00 and\r\nCRLF"),
            Message(role="assistant", content="[link=https://example.com]click[/link] :smile:"),
            Message(role="user", content="right-to-left \u202eevil\u202c override"),
        ),
        meta=SessionMeta(source_path="markup.jsonl", format="openai"),
    )


def cjk_session() -> Session:
    """Double-width text, so the columns must line up in cells, not characters."""
    return Session(
        messages=(
            Message(role="user", content="请帮我修复这个测试，它在四舍五入时失败了。"),
            Message(role="assistant", content="好的。我先读取 pricing.py 文件，然后运行测试。"),
            Message(role="user", content="日本語のテキストも正しく表示されますか？"),
            Message(role="assistant", content="はい、全角文字は二つのセルを使います。"),
            Message(role="user", content="한국어도 됩니다."),
        ),
        meta=SessionMeta(source_path="cjk.json", format="sharegpt"),
    )


def big_session(n: int) -> Session:
    """``n`` short messages, built without validation so 100,000 of them take a moment."""
    roles = ("user", "assistant")
    messages = tuple(
        Message.model_construct(role=roles[i % 2], content=f"message number {i}") for i in range(n)
    )
    return Session.model_construct(
        messages=messages,
        system_prompt=None,
        tools=(),
        meta=SessionMeta(source_path="big.jsonl", format="native"),
    )


def app_for(
    session: Session | Path | str,
    *,
    preset: str = "plan",
    **overrides: Any,
) -> CtxtuiApp:
    """The app as the CLI builds it, with deterministic settings and a small window."""
    knobs: dict[str, Any] = {"context_window": WINDOW, "max_tokens": RESERVE}
    knobs.update(overrides)
    return make_app(
        session, Start(preset=preset, overrides=knobs), settings=deterministic_settings()
    )


class PickScreen(Screen[Path]):
    """A stand-in for a sessions picker: a view that dismisses with ``target`` at once."""

    target: Path = Path("unset")

    def __init__(self, state: MainState) -> None:
        super().__init__()
        self.state = state

    def on_mount(self) -> None:
        assert self.state.session is not None, "a view is built with the main screen's state"
        self.dismiss(self.target)


async def settle(pilot: Pilot[Any]) -> None:
    """Let loading, counting, search and detail workers finish and their messages land.

    Each worker is waited for on its own: one replaced by a newer one (a preset chosen while
    the last tokenizer still counts) ends cancelled, which is the app working as meant, and
    ``wait_for_complete`` raised that at the first, without waiting for the rest.
    """
    for _ in range(3):
        for worker in list(pilot.app.workers):
            with contextlib.suppress(WorkerCancelled):
                await worker.wait()
        await pilot.pause()


async def apply_compaction(pilot: Pilot[Any]) -> None:
    """Compact and apply it, as a user would: the preview opens at once where the reason only
    labels the event; where the dialog asks, its first reason."""
    from ctxtui.tui.screens.reason import ReasonScreen

    await pilot.press("c")
    await settle(pilot)
    if isinstance(pilot.app.screen, ReasonScreen):
        await pilot.press("enter")
        await settle(pilot)
    await pilot.press("a")
    await settle(pilot)


SnapCompare = Callable[..., bool]


def then(
    *steps: Callable[[Pilot[Any]], Awaitable[None]],
) -> Callable[[Pilot[Any]], Awaitable[None]]:
    """Wait for the workers, run ``steps`` in order, and wait again before the screenshot."""

    async def run(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        for step in steps:
            await step(pilot)
            await settle(pilot)

    return run


def record_toasts(seen: list[str]) -> Callable[[Pilot[Any]], Awaitable[None]]:
    """Note every notification's text in ``seen`` as it is posted (a toast may expire first)."""

    async def run(pilot: Pilot[Any]) -> None:
        app = pilot.app
        notify = app.notify

        def noting(message: str, *args: Any, **kwargs: Any) -> None:
            seen.append(message)
            notify(message, *args, **kwargs)

        app.notify = noting  # type: ignore[method-assign]

    return run


def clear_toasts() -> Callable[[Pilot[Any]], Awaitable[None]]:
    """Clear the toasts before the screenshot: a timed toast is a clock."""

    async def run(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        pilot.app.clear_notifications()
        await pilot.pause()

    return run


def press(*keys: str) -> Callable[[Pilot[Any]], Awaitable[None]]:
    async def run(pilot: Pilot[Any]) -> None:
        await pilot.press(*keys)

    return run


def set_knob(name: str, value: str) -> Callable[[Pilot[Any]], Awaitable[None]]:
    async def run(pilot: Pilot[Any]) -> None:
        pilot.app.screen.query_one(f"#knob-{name}", Input).value = value

    return run


def focus(selector: str) -> Callable[[Pilot[Any]], Awaitable[None]]:
    async def run(pilot: Pilot[Any]) -> None:
        pilot.app.screen.query_one(selector).focus(scroll_visible=False)

    return run


def select(index: int) -> Callable[[Pilot[Any]], Awaitable[None]]:
    async def run(pilot: Pilot[Any]) -> None:
        pilot.app.screen.query_one(MessageList).select(index)

    return run


def tiny_session() -> Session:
    """A chat of short messages: the biggest is a few tokens (issue 13 item 13)."""
    words = ["hi", "hello there", "ok", "thanks!", "sure, done"]
    messages = tuple(
        Message(role="user" if i % 2 == 0 else "assistant", content=words[i % len(words)])
        for i in range(12)
    )
    return Session(messages=messages, meta=SessionMeta(source_path="/x/tiny.jsonl"))


PAST = 1_600_000_000  # a fixed mtime, so "unchanged" cannot pass by luck of the clock


def write_native(path: Path, session: Session) -> Path:
    """``session`` as a native file on disk, with a fixed old mtime."""
    path.write_bytes(native_bytes(session))
    os.utime(path, (PAST, PAST))
    return path


STORY = samples_dir() / "claude_code_cache_story.jsonl"

SIZES = [(80, 24), (60, 20)]


def figures(screen: CompactionPreviewScreen) -> str:
    """The preview's Figures tab as it shows them: ``label  value`` lines."""
    cells = [str(label.render()) for label in screen.query("#figures Label")]
    return "\n".join(f"{a}  {b}" for a, b in zip(cells[::2], cells[1::2], strict=True))


def screen_lines(app: Any) -> list[str]:
    return ["".join(s.text for s in strip) for strip in app.screen._compositor.render_strips()]


def whole_or_cut(shown: str, full: str) -> bool:
    """``shown`` is ``full``, or a start of it ending in ``…``."""
    return shown == full or (shown.endswith("…") and full.startswith(shown[:-1]))


def footer_keys(app: CtxtuiApp) -> list[FooterKey]:
    return list(app.screen.query(FooterKey))


def footer_actions(app: Any) -> set[str]:
    return {key.action for key in app.screen.query(FooterKey)}


CLAUDE_NAME = "cde583fb-6a3c-4d0f-9a57-2a1c9f0e8b11.jsonl"
"""A Claude Code transcript is named by its session's UUID: 42 cells of name."""


def _footer(app: object) -> str:
    return "".join(s.text for s in app.screen._compositor.render_strips()[-1])  # type: ignore[attr-defined]


def notes(app: Any) -> list[str]:
    return [str(n.message) for n in app._notifications]


def llm_app(url: str | None, **llm: Any) -> CtxtuiApp:
    if url is not None:
        llm = {"summarizer": "openai", "base_url": url, "model": "m", **llm}
    return make_app(
        demo_session(turns=20),
        Start(overrides={"context_window": WINDOW, "max_tokens": RESERVE}),
        settings=deterministic_settings(llm=llm),
    )


async def open_preview(pilot: Pilot[Any]) -> CompactionPreviewScreen:
    await settle(pilot)
    await pilot.press("c")  # the plan preset's reasons only label: the preview opens at once
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, CompactionPreviewScreen)
    return screen


async def until(pilot: Pilot[Any], done: Callable[[], bool], what: str) -> None:
    """Wait for ``done``, where waiting for the workers would not do (a watch or an LLM call
    that never completes)."""
    for _ in range(300):
        if done():
            return
        await pilot.pause(0.05)
    raise AssertionError(f"timed out waiting for {what}")


SMALL_WINDOW = 10_000
"""Under the plan preset the Claude Code sample compacts three times in this window."""


def replay_sample() -> Path:
    """A long Claude Code run with usage on every request and three compactions of its own."""
    return samples_dir() / "claude_code_replay.jsonl"


async def settled_timeline(pilot: Pilot[Any]) -> TimelineScreen:
    """Wait through the chain history → replay → context (each worker starts the next)."""
    screen = pilot.app.screen
    assert isinstance(screen, TimelineScreen)
    for _ in range(20):
        await settle(pilot)
        done = screen.replay is not None and screen.context is not None
        if done and screen.context_list.message_count and not screen._context_busy:
            break
    return screen


async def open_timeline(pilot: Pilot[Any]) -> TimelineScreen:
    await settle(pilot)
    await pilot.press("l")
    return await settled_timeline(pilot)
