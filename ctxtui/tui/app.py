"""The Textual app: settings, theme, keymap and the main screen, wired together and nothing more."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

from textual.app import App
from textual.binding import Binding, BindingType
from textual.screen import Screen

from ctxtui.core.models import Session
from ctxtui.tui.screens.main import MainScreen
from ctxtui.tui.settings import AppSettings, apply_settings, load_settings


def _commands() -> Any:
    from ctxtui.tui.commands import CtxtuiCommands

    return CtxtuiCommands


class CtxtuiApp(App[int]):
    """ctxtui: where an LLM agent's context window goes."""

    TITLE = "ctxtui"
    CSS_PATH = "ctxtui.tcss"
    COMMANDS = App.COMMANDS | {_commands}
    ENABLE_COMMAND_PALETTE = True

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("question_mark", "help", "Help", id="help", tooltip="Keys and legend"),
        Binding("q", "quit", "Quit", id="quit"),
        # Textual adds this binding itself when none exists; declaring it gives it an id (so
        # it can be remapped) and a tooltip that says what the palette offers.
        Binding(
            "ctrl+p",
            "command_palette",
            "palette",
            show=False,
            priority=True,
            id="command_palette",
            tooltip="Every action, preset, tokenizer and theme by name",
        ),
    ]

    def __init__(
        self,
        source: Path | Session | None,
        *,
        settings: AppSettings,
        format: str | None = None,
        preset: str = "plan",
        overrides: dict[str, Any] | None = None,
        startup_error: str | None = None,
    ) -> None:
        super().__init__()
        self.settings = settings
        self._source = source
        self._format = format
        self._preset = preset
        self._overrides = dict(overrides or {})
        self._startup_error = startup_error

    def get_default_screen(self) -> Screen[Any]:
        return MainScreen(
            self._source,
            format=self._format,
            preset_name=self._preset,
            overrides=self._overrides,
        )

    def on_mount(self) -> None:
        notices = apply_settings(self, self.settings)
        if self.settings.warning:
            notices.insert(0, self.settings.warning)
        for notice in notices:
            self.notify(notice, severity="warning", timeout=6)
        if self._startup_error:
            from ctxtui.tui.screens.error import ErrorScreen

            self.push_screen(ErrorScreen(self._startup_error, "Demo session missing"))

    @property
    def main(self) -> MainScreen:
        """The main screen, wherever the screen stack stands."""
        screen = self.screen_stack[0]
        assert isinstance(screen, MainScreen)
        return screen

    # The palette runs actions in the app's namespace; they all belong to the main screen.
    def action_help(self) -> None:
        from ctxtui.tui.screens.help import HelpScreen

        self.push_screen(HelpScreen())

    def action_compact(self) -> None:
        self.main.action_compact()

    def action_undo(self) -> None:
        self.main.action_undo()

    def action_export(self) -> None:
        self.main.action_export()

    def action_open(self) -> None:
        self.main.action_open()

    def action_search(self) -> None:
        self.main.action_search()

    def action_jump_tail(self) -> None:
        self.main.action_jump_tail()

    def action_toggle_settings(self) -> None:
        self.main.action_toggle_settings()

    def action_preset(self, name: str) -> None:
        self.main.action_preset(name)

    def action_tokenizer(self, spec: str) -> None:
        self.main.action_tokenizer(spec)


def make_app(
    source: Path | str | Session | None,
    *,
    format: str | None = None,
    preset: str | None = None,
    overrides: dict[str, Any] | None = None,
    settings: AppSettings | None = None,
) -> CtxtuiApp:
    """A fully configured app; the CLI and the tests build it the same way.

    ``source`` is a session file, a ready ``Session`` or ``None`` for the bundled demo. Tests
    pass ``deterministic_settings()`` so no user config, env var or blinking cursor leaks in.
    """
    settings = load_settings() if settings is None else settings
    merged: dict[str, Any] = {}
    if settings.tokenizer != "plan":
        merged["tokenizer"] = settings.tokenizer
    merged.update(overrides or {})
    startup_error: str | None = None
    resolved: Path | Session | None
    if source is None:
        resolved, startup_error = _demo_path()
    elif isinstance(source, Session):
        resolved = source
    else:
        resolved = Path(source)
    return CtxtuiApp(
        resolved,
        settings=settings,
        format=format,
        preset=preset or settings.preset,
        overrides=merged,
        startup_error=startup_error,
    )


def _demo_path() -> tuple[Path | None, str | None]:
    from ctxtui.samples import demo_session_path

    try:
        path = demo_session_path()
    except (FileNotFoundError, OSError) as err:
        return None, f"{err}. Open a session file with o."
    if not path.exists():
        return None, f"The bundled demo session is missing ({path.name}). Open a file with o."
    return path, None
