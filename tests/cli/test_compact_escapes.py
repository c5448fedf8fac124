"""``compact --preview`` shows the escapes of coloured tool output, never sends them (issue 29
item 6): no ESC byte reaches a terminal or a pipe, while the prompt for an LLM keeps them."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from ctxtui.commands.pipeline import plan_session
from ctxtui.core.policies.reasons import CompactReason
from tests.cli.chats import agent_chat

KNOBS = ["--context-window", "8000", "--max-tokens", "1000"]
PYTEST_RUN = (
    "\x1b[1m======== test session starts ========\x1b[0m\n"
    "tests/test_x.py \x1b[32m.\x1b[0m\x1b[31mF\x1b[0m\n"
    "\x1b[31mFAILED\x1b[0m tests/test_x.py::test_y - assert 1 == 2\n"
    "\x1b]0;pytest\x07\x1b[31m\x1b[1m1 failed\x1b[0m, \x1b[32m1 passed\x1b[0m in 0.02s\n"
)


@pytest.fixture
def coloured(tmp_path: Path) -> Path:
    chat = agent_chat(6, ask="run the tests {k}", reply="one failure {k}", tool_chars=10)
    for message in chat["messages"]:
        if message["role"] == "tool":
            message["content"] = PYTEST_RUN * 60
    path = tmp_path / "pytest.json"
    path.write_text(json.dumps(chat))
    return path


def _argv(path: Path) -> list[str]:
    return [sys.executable, "-m", "ctxtui", "compact", str(path), "--preview", *KNOBS]


def test_a_pipe_gets_no_escape_byte(coloured: Path) -> None:
    proc = subprocess.run(_argv(coloured), capture_output=True, timeout=60, check=True)
    assert b"=== LLM prompt ===" in proc.stdout
    assert b"\x1b" not in proc.stdout and b"\x07" not in proc.stdout
    assert "␛[31mFAILED␛[0m" in proc.stdout.decode()


def test_a_terminal_gets_no_escape_byte(coloured: Path) -> None:
    leader, follower = pty.openpty()
    proc = subprocess.Popen(
        _argv(coloured), stdout=follower, stderr=follower, env={**os.environ, "TERM": "xterm"}
    )
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the follower closed: the child is done
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(leader)
    assert proc.wait(timeout=60) == 0
    out = b"".join(chunks)
    assert b"=== LLM prompt ===" in out
    assert b"\x1b" not in out


def test_the_prompt_for_the_llm_keeps_the_escapes(coloured: Path) -> None:
    from ctxtui.cli.main import build_command_parsers

    args = build_command_parsers()[0].parse_args(["compact", str(coloured), *KNOBS])
    planned = plan_session(args)
    result = planned.engine.compact(planned.policy, CompactReason.parse("proactive"))
    assert "\x1b[31mFAILED\x1b[0m" in result.prompt
