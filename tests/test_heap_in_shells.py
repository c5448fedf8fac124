"""Both shells file an opened session out of the collector's walks (``ctxtui.system.heap``).

Without it a full collection walked the whole session mid-replay and froze the app's keys for a
third of a second; these fail when a shell stops calling ``keep_out_of_collections``.
"""

from __future__ import annotations

import gc
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from ctxtui.cli.main import main
from ctxtui.system import heap
from tests.cli.chats import agent_chat
from tests.tui.main_fixtures import app_for, demo_session, settle


@pytest.fixture(autouse=True)
def _nothing_frozen(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(heap, "FREEZE_FROM", 1)  # these sessions are small
    gc.unfreeze()
    yield
    gc.unfreeze()


@pytest.mark.parametrize("command", ["report", "replay"])
def test_the_cli_freezes_the_session_it_loaded(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "chat.json"
    chat = agent_chat(6, ask="step {k}", reply="done {k}", tool_chars=400)
    path.write_text(json.dumps(chat), encoding="utf-8")
    assert main([command, str(path)]) == 0
    capsys.readouterr()
    assert gc.get_freeze_count() > 0


async def test_the_app_freezes_the_session_it_opened() -> None:
    app = app_for(demo_session())
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert app.main.state.session is not None
        assert gc.get_freeze_count() > 0
