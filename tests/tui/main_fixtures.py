"""Deterministic sessions for the main screen's tests and snapshots, built in Python.

They do not read the sample files, so another engineer's edit to a sample can never move a
snapshot here. Every figure below is chosen so the plan preset (4 chars/token) prunes, keeps
and drops something in a 16,384-token window.
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.screen import Screen
from textual.worker import WorkerCancelled

from ctxtui.core.session.models import (
    Message,
    Session,
    SessionMeta,
    ToolCall,
    ToolDefinition,
    Usage,
)
from ctxtui.tui.app import CtxtuiApp, make_app
from ctxtui.tui.settings import deterministic_settings
from ctxtui.tui.state import MainState

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
    return make_app(session, preset=preset, overrides=knobs, settings=deterministic_settings())


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
