"""Tool arguments nested past a document's bound (the importers' 1,000 levels) under the
``opencode`` preset or tokenizer: read as text, as the importers read such a string field, in
every command and the app; never a ``RecursionError`` (exit 3, "Something went wrong")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ctxtui.cli.main import main
from ctxtui.core.session.json_depth import MAX_DEPTH
from ctxtui.core.tokens.tokenizers.opencode import estimate, stringify

COMMANDS = [
    ["report"],
    ["report", "--json"],
    ["report", "--html", "-o", "-"],
    ["replay"],
    ["retention"],
    ["compact"],
    ["compact", "--preview"],
    ["compare"],
]
TOKENIZERS = [["--preset", "opencode"], ["--tokenizer", "opencode"]]
SHAPES = {
    "arrays 2000": "[" * 2000 + "]" * 2000,
    "objects 2000": '{"a":' * 2000 + "1" + "}" * 2000,
    "arrays at the bound + 1": "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1),
    "arrays under the bound": "[" * (MAX_DEPTH - 10) + "]" * (MAX_DEPTH - 10),
}


def _chat(path: Path, arguments: str) -> Path:
    call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": arguments}}
    messages = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c1", "content": "ok"},
        {"role": "assistant", "content": "done"},
    ]
    path.write_text(json.dumps({"messages": messages}))
    return path


def _flags(command: list[str], tokenizer: list[str]) -> list[str]:
    """``compare`` takes no policy: it plans under every preset, OpenCode's among them."""
    return [] if command[0] == "compare" else tokenizer


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("tokenizer", TOKENIZERS, ids=" ".join)
@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_deep_arguments_are_counted_in_every_command(
    tmp_path: Path,
    command: list[str],
    tokenizer: list[str],
    shape: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = _chat(tmp_path / "deep.json", SHAPES[shape])
    argv = [command[0], str(path), *command[1:], *_flags(command, tokenizer)]
    assert main(argv) == 0, capsys.readouterr().err


def test_arguments_past_the_bound_count_as_their_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    arguments = SHAPES["objects 2000"]
    path = _chat(tmp_path / "deep.json", arguments)
    assert main(["report", str(path), "--tokenizer", "opencode", "--json"]) == 0
    call = json.loads(capsys.readouterr().out)["messages"][1]
    part = {"type": "tool-call", "toolCallId": "c1", "toolName": "f", "input": arguments}
    assert call["tokens"] == estimate(stringify({"role": "assistant", "content": [part]}))


async def test_the_app_opens_and_counts_it(tmp_path: Path) -> None:
    from ctxtui.tui.app import make_app
    from ctxtui.tui.screens.main import MainScreen
    from ctxtui.tui.settings import deterministic_settings
    from tests.tui.main_fixtures import settle

    path = _chat(tmp_path / "deep.json", SHAPES["arrays 2000"])
    from ctxtui.tui.start import Start

    app = make_app(path, Start(preset="opencode"), settings=deterministic_settings())
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, MainScreen), type(app.screen).__name__
        assert app.main.state.plan is not None
