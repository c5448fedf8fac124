"""User settings (``tui/settings.py``): config file, ``CTXTUI_`` variables, and a broken or
hostile file (``/dev/zero``, a FIFO, 50 MB, deep nesting) never stopping the app."""

from __future__ import annotations

import json
import os
import resource
import threading
from pathlib import Path

import pytest
from screen_fixtures import HostApp

from ctxtui.tui.settings import (
    MAX_CONFIG_BYTES,
    AppSettings,
    apply_settings,
    deterministic_settings,
    load_settings,
)


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """The developer's own CTXTUI_ variables must not change these tests' outcome."""
    for name in list(os.environ):
        if name.startswith("CTXTUI_"):
            monkeypatch.delenv(name)


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.json"
    path.write_text(text, encoding="utf-8")
    return path


def _problems(path: Path) -> list[str]:
    """What loading ``path`` ignored. A read without bound (``/dev/zero``) shows in the peak
    RSS; one that blocks (a FIFO) is caught by a wait far past any loaded machine's delay."""
    problems: list[str] = []
    loader = threading.Thread(
        target=lambda: problems.extend(load_settings(path).problems), daemon=True
    )
    loader.start()
    loader.join(30)
    assert not loader.is_alive(), f"loading {path} blocked"
    return problems


def test_missing_file_gives_defaults_without_warning(tmp_path: Path) -> None:
    settings = load_settings(tmp_path / "absent.json")
    assert settings.model_dump() == AppSettings().model_dump()
    assert settings.llm.config_path == tmp_path / "absent.json", "where an llm entry would go"
    assert settings.theme == "textual-dark"
    assert settings.preset == "plan"
    assert settings.problems == ()


def test_loads_from_config_file(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        json.dumps({"theme": "nord", "preset": "picoclaw", "keys": {"compact": "k"}}),
    )
    settings = load_settings(path)
    assert (settings.theme, settings.preset) == ("nord", "picoclaw")
    assert settings.keys == {"compact": "k"}
    assert settings.problems == ()


def test_environment_overrides_file_and_nests(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _write(tmp_path, json.dumps({"theme": "nord", "keys": {"help": "f1"}}))
    monkeypatch.setenv("CTXTUI_THEME", "gruvbox")
    monkeypatch.setenv("CTXTUI_TOKENIZER", "tiktoken:o200k_base")
    monkeypatch.setenv("CTXTUI_KEYS__COMPACT", "k")
    settings = load_settings(path)
    assert settings.theme == "gruvbox"
    assert settings.tokenizer == "tiktoken:o200k_base"
    assert settings.keys == {"help": "f1", "compact": "k"}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("{not json", "Expecting property name"),
        ('{"theme": "nord"}}', "more text after the end of the document at line 1 column 18"),
        ("[1, 2]", "expected a JSON object"),
    ],
)
def test_a_file_that_is_no_object_gives_defaults_and_says_so(
    tmp_path: Path, text: str, expected: str
) -> None:
    path = _write(tmp_path, text)
    settings = load_settings(path)
    assert settings.model_dump() == AppSettings().model_dump()
    assert len(settings.problems) == 1
    assert settings.problems[0].startswith(f"Ignored {path}")
    assert expected in settings.problems[0]


def test_every_valid_field_is_kept_and_every_bad_one_listed(tmp_path: Path) -> None:
    """One bad field used to discard the whole file (a valid theme was lost)."""
    path = _write(
        tmp_path,
        json.dumps(
            {
                "theme": "nord",
                "preset": "turbo",
                "keys": "compact=k",
                "cursor_blink": False,
                "themee": "gruvbox",
                "animation_level": "none",
            }
        ),
    )
    settings = load_settings(path)
    assert (settings.theme, settings.cursor_blink, settings.animation_level) == (
        "nord",
        False,
        "none",
    )
    assert (settings.preset, settings.keys) == ("plan", {})
    problems = settings.problems
    assert [p.split(": ", 2)[1] for p in problems] == ["preset", "keys", "themee"]
    assert all(p.startswith(f"Ignored in {path}: ") for p in problems)
    assert "not a setting (the settings: theme, preset, tokenizer, keys" in problems[2]


def test_broken_environment_keeps_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _write(tmp_path, json.dumps({"theme": "nord"}))
    monkeypatch.setenv("CTXTUI_PRESET", "turbo")
    settings = load_settings(path)
    assert settings.theme == "nord"
    assert settings.preset == "plan"
    warning = "\n".join(settings.problems)
    assert "CTXTUI_ environment" in warning
    assert str(path) not in warning  # the file was fine; do not blame it


def test_deterministic_settings_ignore_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CTXTUI_THEME", "nord")
    settings = deterministic_settings()
    assert settings.theme == "textual-dark"
    assert settings.cursor_blink is False
    assert settings.animation_level == "none"
    assert settings.tokenizer == "plan"
    assert deterministic_settings(theme="nord").theme == "nord"


async def test_apply_settings_sets_theme_keys_and_animations() -> None:
    app = HostApp()
    async with app.run_test(size=(80, 24)) as pilot:
        settings = deterministic_settings(theme="nord", keys={"compact": "k"})
        assert apply_settings(app, settings) == []
        assert app.theme == "nord"
        assert app.animation_level == "none"
        await pilot.press("k")
        assert app.actions == ["compact"]


async def test_apply_settings_reports_an_unknown_theme() -> None:
    app = HostApp()
    async with app.run_test(size=(80, 24)):
        before = app.theme
        notices = apply_settings(app, deterministic_settings(theme="no-such-theme"))
        assert app.theme == before
        assert notices == [f"Unknown theme 'no-such-theme'; keeping {before!r}"]


async def test_the_app_lists_every_ignored_setting_until_the_dialog_is_closed(
    tmp_path: Path,
) -> None:
    from textual.widgets import Static

    from ctxtui.tui.app import SETTINGS_NOTICE_TITLE, make_app
    from ctxtui.tui.screens.error import ErrorScreen
    from tests.tui.main_fixtures import demo_session

    path = _write(
        tmp_path,
        json.dumps(
            {
                "theme": "nord",
                "preset": "turbo",
                "keys": {"compakt": "k"},
                "cursor_blink": False,
                "animation_level": "none",
            }
        ),
    )
    app = make_app(demo_session(), settings=load_settings(path))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert app.theme == "nord", "the valid theme applies beside a bad preset"
        screen = app.screen
        assert isinstance(screen, ErrorScreen) and screen.error_title == SETTINGS_NOTICE_TITLE
        text = str(screen.query_one("#message", Static).render())
        assert "• Ignored in" in text and ": preset: " in text
        assert "'compakt'" in text, "an unknown key id is listed with the file's problems"
        await pilot.pause(0.5)
        assert app.screen is screen, "no timeout: the notice stays until closed"
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, ErrorScreen)


def test_settings_notice_80x24(snap_compare: object) -> None:
    """The dialog the app opens with when settings were ignored: "Some settings were
    ignored", a bullet per problem (a bad preset value, a name that is no setting), the
    line "Every other setting applies. ..." and an OK button; the demo behind it."""
    from ctxtui.tui.app import make_app
    from tests.tui.main_fixtures import demo_session

    settings = deterministic_settings()
    settings._problems = (
        "Ignored in ~/.config/ctxtui/config.json: preset: Input should be 'plan' or 'codex'",
        "Ignored in ~/.config/ctxtui/config.json: themee: not a setting",
    )
    app = make_app(demo_session(), settings=settings)
    assert snap_compare(app, terminal_size=(80, 24))  # type: ignore[operator]


def test_dev_zero_as_the_config_is_refused_at_once(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.symlink_to("/dev/zero")
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    problems = _problems(path)
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 50_000
    assert problems == [f"Ignored {path}: expected a regular file, found a device"]


def test_a_fifo_at_config_json_does_not_block(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    os.mkfifo(path)
    problems = _problems(path)
    assert problems == [f"Ignored {path}: expected a regular file, found a FIFO (named pipe)"]


def test_a_50_mb_value_is_refused_without_reading_it(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    with path.open("w") as f:
        f.write('{"theme": "')
        f.write("x" * (50 << 20))
        f.write('"}')
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    problems = _problems(path)
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 20_000
    assert len(problems) == 1 and "a config is a few KB" in problems[0]
    assert f"{MAX_CONFIG_BYTES:,}" in problems[0]


@pytest.mark.parametrize("depth", [5_000, 100_000])
def test_deep_nesting_is_one_line_not_a_crash(tmp_path: Path, depth: int) -> None:
    path = tmp_path / "config.json"
    path.write_text('{"keys": ' + "[" * depth + "]" * depth + "}")
    problems = _problems(path)
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
