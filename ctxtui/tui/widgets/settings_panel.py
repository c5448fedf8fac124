"""The settings panel: the preset, the tokenizer and every policy knob as a validated control.

The knobs are not listed here: each is a row of ``ctxtui.core.policies.policy.KNOBS`` (type, bounds,
group, unit, help), so a knob added to the table appears in the panel by itself. A value is
applied only when both the input's validator and the policy itself accept it; anything else is
marked ``-invalid`` and the plan on screen stays as it was (Harlequin's run-query bar does the
same). The reason is written right under the knob, in the knob's own words, with the value the
plan still uses: values apply as they are typed, so that value need not be the one typed before.
"""

from __future__ import annotations

import enum
from collections.abc import Iterator
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.message import Message
from textual.validation import Integer, Number
from textual.widget import Widget
from textual.widgets import Input, Label, Select, Static, Switch

from ctxtui.core.error_text import show_number
from ctxtui.core.policies.policy import KNOBS, Knob, Policy, PolicyError, Problem
from ctxtui.core.policies.presets import PRESETS
from ctxtui.options import knob_label, range_sentence, range_words, unused_reason

PANEL_KNOBS = tuple(k for k in KNOBS.values() if k.name != "tokenizer")
"""The knobs under the preset and tokenizer selectors, which have their own controls."""


def knob_heading(name: str) -> Text:
    """A knob's label with what it counts and its range, in ``--help``'s words:
    ``context window (tokens, 256 to 100,000,000)``.

    In parentheses, because the panel is narrow: wrapped after "256 to", a bare
    ``100,000,000`` on the next line read as the knob's value.
    """
    heading = Text(knob_label(name))
    knob = KNOBS[name]
    if knob.numeric:
        unit = f"{knob.unit}, " if knob.unit else ""
        heading.append(f" ({unit}{range_words(knob)})", "dim")
    return heading


def show_value(value: Any) -> str:
    """A knob's value as its control shows it."""
    if isinstance(value, enum.Enum):
        return str(value.value)
    return f"{value:g}" if isinstance(value, float) else str(value)


def knob_widget(knob: Knob, value: Any) -> Widget:
    """The control for one knob, chosen from its type; its id is ``knob-<name>``."""
    wid = f"knob-{knob.name}"
    if knob.kind is bool:
        return Switch(value=bool(value), id=wid, tooltip=knob.help)
    if knob.choices:
        return Select(
            [(c, c) for c in knob.choices],
            value=str(value),
            allow_blank=False,
            id=wid,
            compact=True,
            tooltip=knob.help,
        )
    whole = knob.kind is int
    failure = f"must be {range_sentence(knob)}"
    validator = (Integer if whole else Number)(
        minimum=knob.low, maximum=knob.high, failure_description=failure
    )
    return Input(
        show_value(value),
        type="integer" if whole else "number",
        validators=[validator],
        id=wid,
        compact=True,
        tooltip=knob.help,
    )


def parse_knob(knob: Knob, raw: Any) -> Any:
    """A control's value as the knob's Python type (raises ``ValueError`` when it is not one)."""
    if knob.kind is int:
        return int(str(raw).replace("_", "").replace(",", ""))
    if knob.kind is float:
        return float(str(raw))
    return raw


def problem_words(problem: Problem, name: str) -> str:
    """A refused value as the panel says it under knob ``name``: its own range in a sentence,
    a relation with both knobs as labelled (``tail min tokens (9,000) must not exceed tail
    max tokens (8,000)``)."""
    if problem.bound == "relation":
        return (
            f"{knob_label(problem.field)} ({show_number(problem.value)}) {problem.words} "
            f"{knob_label(problem.other)} ({show_number(problem.other_value)})"
        )
    knob = KNOBS.get(problem.field)
    if problem.field == name and knob is not None and knob.numeric:
        return f"must be {range_sentence(knob)}"
    return str(problem).removeprefix(f"{name}: ")


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
        width: 1fr;
        height: auto;
    }
    SettingsPanel .knob-error {
        color: $text-error;
        height: auto;
        display: none;
    }
    SettingsPanel .knob-unused {
        color: $text-muted;
        text-style: italic;
        height: auto;
        display: none;
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
        self._built = False

    @property
    def policy(self) -> Policy:
        return self._policy

    @property
    def built(self) -> bool:
        """Whether the controls exist: they are made the first time the panel opens."""
        return self._built

    def compose(self) -> ComposeResult:
        # Empty until first shown: its hundreds of controls would dominate the main screen's
        # start-up and every restyle, and most sessions are looked at without touching a knob.
        return iter(())

    async def build(self) -> None:
        """Make the controls (once), with the current policy's values in them."""
        if self._built:
            return
        self._built = True
        await self.mount_all(self._controls())
        self._mark_unused()

    def _controls(self) -> Iterator[Widget]:
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
        yield _error_line("tokenizer")
        group = ""
        for knob in PANEL_KNOBS:
            if knob.group != group:
                group = knob.group
                yield Label(group, classes="group")
            yield Label(knob_heading(knob.name), classes="knob-label")
            yield knob_widget(knob, getattr(self._policy, knob.name))
            yield _error_line(knob.name)
            yield Static("", id=f"unused-{knob.name}", classes="knob-unused", markup=False)

    def _mark_unused(self) -> None:
        """Disable the knobs the policy ignores (a tail in items, pruning off…), saying why."""
        values = self._policy.as_dict()
        for name in (k.name for k in PANEL_KNOBS):
            reason = unused_reason(name, values)
            self.query_one(f"#knob-{name}").disabled = reason is not None
            line = self.query_one(f"#unused-{name}", Static)
            text = f"unused: {reason}" if reason else ""
            if str(line.content) != text:  # an update relays the panel out: only changes
                line.update(text)
            line.display = reason is not None

    def show_policy(self, policy: Policy) -> None:
        """Put ``policy``'s values in the controls without echoing them back as edits."""
        self._policy = policy
        if not self._built:
            if policy.tokenizer not in self._tokenizers:
                self._tokenizers.append(policy.tokenizer)
            return  # build() starts from this policy
        with self.prevent(Input.Changed, Select.Changed, Switch.Changed):
            self.query_one("#preset", Select).value = policy.preset
            tokenizer = self.query_one("#tokenizer", Select)
            if policy.tokenizer not in self._tokenizers:
                self._tokenizers.append(policy.tokenizer)
                tokenizer.set_options([(n, n) for n in self._tokenizers])
            tokenizer.value = policy.tokenizer
            for name in (k.name for k in PANEL_KNOBS):
                widget = self.query_one(f"#knob-{name}")
                value = getattr(policy, name)
                if isinstance(widget, Input):
                    widget.value = show_value(value)
                    widget.remove_class("-invalid")
                elif isinstance(widget, Switch):
                    widget.value = bool(value)
                elif isinstance(widget, Select):
                    widget.value = str(value)
        for error in self.query(".knob-error").results(Static):
            if error.display:  # an update relays the panel out: only those showing
                error.update("")
                error.display = False
        self._mark_unused()

    def _set_error(self, name: str, problem: str) -> None:
        """Show ``problem`` under knob ``name``, with the value the plan still uses."""
        error = self.query_one(f"#error-{name}", Static)
        if problem:
            keeps = show_value(getattr(self._policy, name))
            problem = f"{problem}; the plan keeps {keeps}"
        error.update(problem)
        error.display = bool(problem)

    def _apply(self, name: str, raw: Any, control: Widget) -> None:
        knob = KNOBS[name]
        try:
            policy = self._policy.with_changes(**{name: parse_knob(knob, raw)})
        except PolicyError as err:
            control.add_class("-invalid")
            self._set_error(name, "; ".join(problem_words(p, name) for p in err.problems))
            return
        except ValueError:
            control.add_class("-invalid")
            self._set_error(name, f"must be {range_sentence(knob)}")
            return
        control.remove_class("-invalid")
        self._set_error(name, "")
        if policy != self._policy:
            self._policy = policy
            self._mark_unused()
            self.post_message(self.PolicyEdited(policy))

    @on(Input.Changed)
    def _input_changed(self, event: Input.Changed) -> None:
        event.stop()
        name = (event.input.id or "").removeprefix("knob-")
        if name not in KNOBS:
            return
        if event.validation_result is not None and not event.validation_result.is_valid:
            event.input.add_class("-invalid")
            self._set_error(
                name, "; ".join(dict.fromkeys(event.validation_result.failure_descriptions))
            )
            return
        self._apply(name, event.value, event.input)

    @on(Switch.Changed)
    def _switch_changed(self, event: Switch.Changed) -> None:
        event.stop()
        name = (event.switch.id or "").removeprefix("knob-")
        if name in KNOBS:
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
        if name in KNOBS and isinstance(event.value, str):
            self._apply(name, event.value, control)

    def focus_first(self) -> None:
        """Show the panel from its top, with the focus on the preset selector (the first
        control a user reaches for, and the first row of the panel).

        Textual's default scroll-into-view centres the selector whenever the screen judges it
        not wholly in view, and just after the panel's controls mount the layout can still be
        settling and that judgement wrong. The selector is at the top, so the top is shown.
        """
        self.scroll_home(animate=False, immediate=True)
        self.query_one("#preset", Select).focus(scroll_visible=False)


def _error_line(name: str) -> Static:
    """The (hidden) line under knob ``name`` that says why its value was not applied."""
    return Static("", id=f"error-{name}", classes="knob-error", markup=False)
