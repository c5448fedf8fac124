"""A modal that picks one preset: the timeline replays the session under the chosen one."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option

from ctxtui.core.policies.presets import PRESETS
from ctxtui.tui.screens.dialog import Dialog


class PresetChoice(Dialog[str | None]):
    """Every preset by name, the current one highlighted; Enter picks, Escape cancels."""

    DIALOG_ID = "preset-choice"
    DEFAULT_CSS = """
    PresetChoice > #dialog { width: 44; max-width: 95%; }
    PresetChoice OptionList { height: auto; max-height: 14; }
    """

    def __init__(self, current: str) -> None:
        super().__init__()
        self._current = current

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Label("Replay under preset", id="title")
            yield OptionList(*(Option(name, id=name) for name in PRESETS), id="presets")
            yield Label("Enter replays · Escape cancels", id="hint")

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        names = list(PRESETS)
        options.highlighted = names.index(self._current) if self._current in names else 0
        options.focus()

    @on(OptionList.OptionSelected, "#presets")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)
