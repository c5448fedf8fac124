"""Hostile config files and variables: bounded, non-blocking, and never a crash (issue 25).

``/dev/zero`` as the config, a 50 MB value, a FIFO at ``config.json``, deep nesting, bad JSON
in ``CTXTUI_KEYS`` / ``CTXTUI_LLM``: the app starts with the defaults (or every setting that
holds) and a notice naming what was ignored. Real files, a real FIFO, the real loader.
"""

from __future__ import annotations

import os
import resource
import time
from pathlib import Path

import pytest

from ctxtui.tui.settings import MAX_CONFIG_BYTES, load_settings


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.startswith("CTXTUI_"):
            monkeypatch.delenv(name)


def _load_quickly(path: Path) -> tuple[list[str], float]:
    started = time.monotonic()
    settings = load_settings(path)
    return list(settings.problems), time.monotonic() - started


def test_dev_zero_as_the_config_is_refused_at_once(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.symlink_to("/dev/zero")
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    problems, took = _load_quickly(path)
    assert took < 1 and resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 50_000
    assert problems == [f"Ignored {path}: expected a regular file, found a device"]


def test_a_fifo_at_config_json_does_not_block(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    os.mkfifo(path)
    problems, took = _load_quickly(path)
    assert took < 1
    assert problems == [f"Ignored {path}: expected a regular file, found a FIFO (named pipe)"]


def test_a_50_mb_value_is_refused_without_reading_it(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    with path.open("w") as f:
        f.write('{"theme": "')
        f.write("x" * (50 << 20))
        f.write('"}')
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    problems, took = _load_quickly(path)
    assert took < 1 and resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 20_000
    assert len(problems) == 1 and "a config is a few KB" in problems[0]
    assert f"{MAX_CONFIG_BYTES:,}" in problems[0]


@pytest.mark.parametrize("depth", [5_000, 100_000])
def test_deep_nesting_is_one_line_not_a_crash(tmp_path: Path, depth: int) -> None:
    path = tmp_path / "config.json"
    path.write_text('{"keys": ' + "[" * depth + "]" * depth + "}")
    problems, _ = _load_quickly(path)
    assert len(problems) == 1 and problems[0].startswith(f"Ignored {path}: ")


@pytest.mark.parametrize("name", ["CTXTUI_KEYS", "CTXTUI_LLM"])
@pytest.mark.parametrize("value", ["{bad", "[1", "[" * 5_000])
def test_bad_json_in_a_variable_keeps_the_file_and_says_which(
    name: str, value: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "config.json"
    path.write_text('{"theme": "nord"}')
    monkeypatch.setenv(name, value)
    settings = load_settings(path)
    assert settings.theme == "nord", "the file still applies"
    assert len(settings.problems) == 1
    assert settings.problems[0].startswith("Ignored the CTXTUI_ environment: ")


async def test_the_app_starts_with_a_fifo_config_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ctxtui.tui.app import SETTINGS_NOTICE_TITLE, make_app
    from ctxtui.tui.screens.error import ErrorScreen
    from tests.tui.main_fixtures import demo_session

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    (tmp_path / "ctxtui").mkdir()
    os.mkfifo(tmp_path / "ctxtui" / "config.json")
    monkeypatch.setenv("CTXTUI_KEYS", "{bad")
    app = make_app(demo_session())
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ErrorScreen) and screen.error_title == SETTINGS_NOTICE_TITLE
