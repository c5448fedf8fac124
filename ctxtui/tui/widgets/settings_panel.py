"""The settings panel: the preset, the tokenizer and every policy knob as a validated control.

The knobs are not listed here: they are read from ``Policy.model_fields`` (type, bounds, group,
description), so a knob added to the policy appears in the panel by itself. A value is applied
only when both the input's validator and the policy itself accept it; anything else is marked
``-invalid`` and the plan on screen stays as it was (Harlequin's run-query bar does the same).
"""

from __future__ import annotations

import enum
from typing import Any

from annotated_types import Ge, Gt, Le
from pydantic.fields import FieldInfo
from textual import on
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.message import Message
from textual.validation import Integer, Number, Validator
from textual.widget import Widget
from textual.widgets import Input, Label, Select, Static, Switch

from ctxtui.core.policy import PRESETS, Policy, PolicyError

# Shown above the knobs with their own controls.
_TOP = ("preset", "tokenizer")


def _bounds(info: FieldInfo) -> tuple[float | None, float | None]:
    low: float | None = None
    high: float | None = None
    for item in info.metadata:
        if isinstance(item, Ge):
            low = float(item.ge)  # type: ignore[arg-type]
        elif isinstance(item, Gt):
            low = float(item.gt)  # type: ignore[arg-type]
        elif isinstance(item, Le):
            high = float(item.le)  # type: ignore[arg-type]
    return low, high


def _group(info: FieldInfo) -> str:
    extra = info.json_schema_extra
    return str(extra.get("group", "")) if isinstance(extra, dict) else ""


def knob_widget(name: str, info: FieldInfo, value: Any) -> Widget:
    """The control for one knob, chosen from its type; its id is ``knob-<name>``."""
    kind = info.annotation
    wid = f"knob-{name}"
    if kind is bool:
        return Switch(value=bool(value), id=wid, tooltip=info.description)
    if isinstance(kind, type) and issubclass(kind, enum.Enum):
        options = [(str(m.value), str(m.value)) for m in kind]
        return Select(
            options,
            value=str(value),
            allow_blank=False,
            id=wid,
            compact=True,
            tooltip=info.description,
        )
    low, high = _bounds(info)
    validators: list[Validator]
    if kind is int:
        validators = [Integer(minimum=low, maximum=high)]
        text = str(value)
        input_type = "integer"
    else:
        validators = [Number(minimum=low, maximum=high)]
        text = f"{value:g}" if isinstance(value, float) else str(value)
        input_type = "number"
    return Input(
        text,
        type=input_type,  # type: ignore[arg-type]
        validators=validators,
        id=wid,
        compact=True,
        tooltip=info.description,
    )


def parse_knob(info: FieldInfo, raw: Any) -> Any:
    """A control's value as the knob's Python type (raises ``ValueError`` when it is not one)."""
    if info.annotation is int:
        return int(str(raw).replace("_", "").replace(",", ""))
    if info.annotation is float:
        return float(str(raw))
    return raw


class SettingsPanel(VerticalScroll):
    """Every knob of the policy on screen; a valid change posts ``PolicyEdited``."""

    DEFAULT_CSS = """
    SettingsPanel {
        width: 38;
        padding: 0 1;
        border-left: vkey $primary-background;
    }
    SettingsPanel .group {
        margin-top: 1;
        text-style: bold;
        color: $accent;
    }
    SettingsPanel .knob-label {
        color: $text-muted;
    }
    SettingsPanel #settings-error {
        color: $text-error;
        height: auto;
        display: none;
        margin-top: 1;
    }
    SettingsPanel Input.-invalid {
        background: $error 30%;
    }
    SettingsPanel Switch {
        height: 1;
        border: none;
        padding: 0;
    }
    """

    class PolicyEdited(Message):
        """A knob changed to a value the policy accepts; ``policy`` is the new policy."""

        def __init__(self, policy: Policy) -> None:
            super().__init__()
            self.policy = policy

    class PresetChosen(Message):
        """The user picked a preset: every knob returns to its values."""

        def __init__(self, name: str) -> None:
            super().__init__()
            self.name = name

    def __init__(self, policy: Policy, tokenizers: list[str], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._policy = policy
        names = list(tokenizers)
        if policy.tokenizer not in names:
            names.append(policy.tokenizer)
        self._tokenizers = names

    @property
    def policy(self) -> Policy:
        return self._policy

    def compose(self) -> ComposeResult:
        yield Static("", id="settings-error")
        yield Label("preset", classes="group")
        yield Select(
            [(name, name) for name in PRESETS],
            value=self._policy.preset,
            allow_blank=False,
            id="preset",
            compact=True,
        )
        yield Label("tokenizer", classes="group")
        yield Select(
            [(name, name) for name in self._tokenizers],
            value=self._policy.tokenizer,
            allow_blank=False,
            id="tokenizer",
            compact=True,
        )
        group = ""
        for name, info in Policy.model_fields.items():
            if name in _TOP:
                continue
            if _group(info) != group:
                group = _group(info)
                yield Label(group, classes="group")
            yield Label(name.replace("_", " "), classes="knob-label")
            yield knob_widget(name, info, getattr(self._policy, name))

    def show_policy(self, policy: Policy) -> None:
        """Put ``policy``'s values in the controls without echoing them back as edits."""
        self._policy = policy
        with self.prevent(Input.Changed, Select.Changed, Switch.Changed):
            self.query_one("#preset", Select).value = policy.preset
            tokenizer = self.query_one("#tokenizer", Select)
            if policy.tokenizer not in self._tokenizers:
                self._tokenizers.append(policy.tokenizer)
                tokenizer.set_options([(n, n) for n in self._tokenizers])
            tokenizer.value = policy.tokenizer
            for name in Policy.model_fields:
                if name in _TOP:
                    continue
                widget = self.query_one(f"#knob-{name}")
                value = getattr(policy, name)
                if isinstance(widget, Input):
                    widget.value = f"{value:g}" if isinstance(value, float) else str(value)
                    widget.remove_class("-invalid")
                elif isinstance(widget, Switch):
                    widget.value = bool(value)
                elif isinstance(widget, Select):
                    widget.value = str(value)
        self._set_error("")

    def _set_error(self, problem: str) -> None:
        error = self.query_one("#settings-error", Static)
        error.update(problem)
        error.display = bool(problem)

    def _apply(self, name: str, raw: Any, control: Widget) -> None:
        info = Policy.model_fields[name]
        try:
            policy = self._policy.with_changes(**{name: parse_knob(info, raw)})
        except (ValueError, PolicyError) as err:
            control.add_class("-invalid")
            self._set_error(str(err) if isinstance(err, PolicyError) else f"{name}: not a number")
            return
        control.remove_class("-invalid")
        self._set_error("")
        if policy != self._policy:
            self._policy = policy
            self.post_message(self.PolicyEdited(policy))

    @on(Input.Changed)
    def _input_changed(self, event: Input.Changed) -> None:
        event.stop()
        name = (event.input.id or "").removeprefix("knob-")
        if name not in Policy.model_fields:
            return
        if event.validation_result is not None and not event.validation_result.is_valid:
            event.input.add_class("-invalid")
            self._set_error(f"{name}: " + "; ".join(event.validation_result.failure_descriptions))
            return
        self._apply(name, event.value, event.input)

    @on(Switch.Changed)
    def _switch_changed(self, event: Switch.Changed) -> None:
        event.stop()
        name = (event.switch.id or "").removeprefix("knob-")
        if name in Policy.model_fields:
            self._apply(name, event.value, event.switch)

    @on(Select.Changed)
    def _select_changed(self, event: Select.Changed) -> None:
        event.stop()
        control = event.select
        if control.id == "preset":
            if isinstance(event.value, str) and event.value != self._policy.preset:
                self.post_message(self.PresetChosen(event.value))
            return
        name = (
            "tokenizer" if control.id == "tokenizer" else (control.id or "").removeprefix("knob-")
        )
        if name in Policy.model_fields and isinstance(event.value, str):
            self._apply(name, event.value, control)

    def focus_first(self) -> None:
        """Focus the preset selector, the first control a user reaches for."""
        self.query_one("#preset", Select).focus()
