"""The Textual app: settings, theme, keymap and the main screen, wired together and nothing more."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any, ClassVar

from platformdirs import user_downloads_path
from textual import events
from textual.app import App, SystemCommand
from textual.binding import BindingType
from textual.screen import Screen

from ctxtui.core.policies.preset_choice import FROM_CONFIG, FROM_OPTION
from ctxtui.core.session.models import Session
from ctxtui.options import EXIT_INTERNAL, debugging
from ctxtui.tui.actions import Scope, bindings, remap
from ctxtui.tui.screens.main import MainScreen
from ctxtui.tui.settings import AppSettings, apply_settings, load_settings
from ctxtui.tui.start import PLAIN, Start

SETTINGS_NOTICE_TITLE = "Some settings were ignored"


def settings_notice(problems: list[str]) -> str:
    """Each ignored setting on a line of its own, and that everything else is in force."""
    lines = "\n".join(f"• {problem}" for problem in problems)
    return f"{lines}\n\nEvery other setting applies. Fix the file and restart to use these."


def _commands() -> Any:
    from ctxtui.tui.command_palette import ActionsProvider

    return ActionsProvider


KEYS_SWITCH_INTERVAL = 0.001
"""Seconds a thread holds the interpreter lock before another may take it, while the app runs.

The workers are CPU-bound Python and a key reaches its handler through several message hops,
each of which may wait for the lock; a short interval keeps keys quick while a replay runs, at
little cost to the worker (figures: docs/PERFORMANCE.md, "Replay (issue 12)")."""


class CtxtuiApp(App[int]):
    """ctxtui: where an LLM agent's context window goes."""

    TITLE = "ctxtui"
    CSS_PATH = ["ctxtui.tcss", "legible.tcss"]  # noqa: RUF012 (Textual declares it so)
    COMMANDS = App.COMMANDS | {_commands}
    ENABLE_COMMAND_PALETTE = True

    BINDINGS: ClassVar[list[BindingType]] = bindings(Scope.APP)

    def __init__(
        self,
        source: Path | Session | None,
        *,
        settings: AppSettings,
        start: Start = PLAIN,
        startup_error: str | None = None,
    ) -> None:
        super().__init__()
        self.settings = settings
        self._source = source
        self._start = start
        self._startup_error = startup_error
        self.internal_error: Exception | None = None
        """An unexpected exception that ended the app; ``run_app`` re-raises it for the CLI."""
        self.last_export_dir: Path | None = None  # the export dialog starts here next time
        self._switch_interval = sys.getswitchinterval()

    def get_default_screen(self) -> Screen[Any]:
        return MainScreen(self._source, start=self._start, llm=self.settings.llm)

    def on_mount(self) -> None:
        from ctxtui.tui.screens.error import ErrorScreen

        self._switch_interval = sys.getswitchinterval()
        sys.setswitchinterval(KEYS_SWITCH_INTERVAL)

        keymap, notices = remap(self.settings.keys)
        notices += apply_settings(self, self.settings, keymap)
        problems = [*self.settings.problems, *notices]
        if problems:
            # A dialog, not a toast: every ignored setting is listed and stays until read.
            self.push_screen(ErrorScreen(settings_notice(problems), SETTINGS_NOTICE_TITLE))
        if self._startup_error:
            self.push_screen(ErrorScreen(self._startup_error, "Demo session missing"))

    def on_unmount(self) -> None:
        sys.setswitchinterval(self._switch_interval)

    def _handle_exception(self, error: Exception) -> None:
        """An exception no handler caught: end the app and let the CLI say it in one line.

        The widget whose handler raised has stopped its message loop, so carrying on would
        leave a screen that no longer answers; exiting is the honest choice. Worker failures
        never get here: the jobs post them, and the screen shows them in the error dialog.
        ``CTXTUI_DEBUG=1`` keeps Textual's own handling, which prints the traceback.
        """
        if debugging():
            super()._handle_exception(error)
            return
        if self.internal_error is None:
            self.internal_error = error
        if self._exception is None:  # Pilot re-raises this one in tests, as Textual does
            self._exception = error
            self._exception_event.set()
        self.exit(return_code=EXIT_INTERNAL)

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        """Textual's own palette entries, less the two ctxtui offers itself: "Theme" is the
        "Switch theme" entry and "Keys" the help screen (``?``), which explains every key."""
        for command in super().get_system_commands(screen):
            if command.title not in ("Theme", "Keys"):
                yield command

    def deliver_screenshot(
        self,
        filename: str | None = None,
        path: str | None = None,
        time_format: str | None = None,
    ) -> str | None:
        """Save a screenshot where it can be written: the Downloads folder, else the current
        directory, saying which and why; when neither can be written, say where it tried."""
        if path is None and not self.is_web:
            tried = [(user_downloads_path(), "Downloads folder"), (Path.cwd(), "current directory")]
            problems: list[str] = []
            for directory, what in tried:
                problem = _unwritable(directory)
                if problem is None:
                    if problems:
                        self.notify(
                            f"{problems[0]}; saving in the {what} instead", title="Screenshot"
                        )
                    path = str(directory)
                    break
                problems.append(f"{directory} {problem}")
            else:
                self.notify(
                    "Could not save the screenshot: " + "; ".join(problems),
                    title="Screenshot",
                    severity="error",
                )
                return None
        return super().deliver_screenshot(filename, path, time_format)

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        # Textual has no app-wide switch: each input gets the user's cursor_blink as it is
        # focused (a steady cursor also keeps snapshots from catching it mid-blink).
        from textual.widgets import Input

        if isinstance(event.widget, Input):
            event.widget.cursor_blink = self.settings.cursor_blink

    @property
    def main(self) -> MainScreen:
        """The main screen, wherever the screen stack stands."""
        screen = self.screen_stack[0]
        assert isinstance(screen, MainScreen)
        return screen

    def push_view(self, view: Callable[..., Screen[Any]]) -> None:
        """Push ``view`` built with the main screen's state; what it dismisses with goes to the
        main screen (``MainScreen.open_or_select``: a picker dismissing with a path opens it)."""
        self.push_screen(view(self.main.state), self.main.open_or_select)

    # The views: each screen is imported when first opened.
    def action_help(self) -> None:
        from ctxtui.tui.screens.help import HelpScreen

        self.push_view(HelpScreen)

    def action_compare(self) -> None:
        from ctxtui.tui.screens.compare import CompareScreen

        self.push_view(CompareScreen)

    def action_tools(self) -> None:
        from ctxtui.tui.screens.tools import ToolsScreen

        self.push_view(ToolsScreen)

    def action_timeline(self) -> None:
        from ctxtui.tui.screens.timeline import TimelineScreen

        self.push_view(TimelineScreen)

    def action_tune(self) -> None:
        from ctxtui.tui.screens.tune import TuneScreen

        self.push_view(TuneScreen)

    def action_fleet(self) -> None:
        from ctxtui.tui.screens.fleet import FleetScreen

        self.push_view(FleetScreen)


def _unwritable(directory: Path) -> str | None:
    """Why a screenshot cannot be saved in ``directory``, or ``None`` when it can."""
    if not directory.is_dir():
        return "is missing"
    if not os.access(directory, os.W_OK | os.X_OK):
        return "is not writable"
    return None


def make_app(
    source: Path | str | Session | None,
    start: Start = PLAIN,
    *,
    settings: AppSettings | None = None,
    llm: dict[str, Any] | None = None,
) -> CtxtuiApp:
    """A fully configured app; the CLI and the tests build it the same way.

    ``source`` is a session file, a ready ``Session`` or ``None`` for the bundled demo (or,
    with ``start.pick``, nothing: the app starts on the sessions picker); ``start`` holds the
    flags given; ``llm`` the LLM flags given, over the config's. Tests pass
    ``deterministic_settings()`` so no user config, env var or blinking cursor leaks in.
    """
    settings = load_settings() if settings is None else settings
    if llm:
        settings = settings.model_copy(update={"llm": settings.llm.model_copy(update=llm)})
    merged: dict[str, Any] = {}
    if settings.tokenizer != "plan":
        merged["tokenizer"] = settings.tokenizer
    merged.update(start.overrides)
    startup_error: str | None = None
    resolved: Path | Session | None
    if source is None and start.pick:
        resolved = None
    elif source is None:
        resolved, startup_error = _demo_path()
    elif isinstance(source, Session):
        resolved = source
    else:
        resolved = Path(source)
    preset = start.preset
    resolved_start = replace(
        start,
        # --preset, then the settings (when they name one), else each session's agent's
        preset=preset or (settings.preset if "preset" in settings.model_fields_set else None),
        preset_origin=FROM_OPTION if preset else FROM_CONFIG,
        overrides=merged,
    )
    return CtxtuiApp(resolved, settings=settings, start=resolved_start, startup_error=startup_error)


def _demo_path() -> tuple[Path | None, str | None]:
    from ctxtui.samples import demo_session_path

    try:
        path = demo_session_path()
    except (FileNotFoundError, OSError) as err:
        return None, f"{err}. Open a session file with o."
    if not path.exists():
        return None, f"The bundled demo session is missing ({path.name}). Open a file with o."
    return path, None
