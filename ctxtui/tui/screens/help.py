"""A modal listing the keys in force and explaining what the main view's colours and marks mean."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen, Screen
from textual.widgets import Label, Static

LEGEND = Content.from_markup(
    "[b]Zones[/b] (row colours in the message list)\n"
    "  [$success]tail[/]     the fresh tail: the newest messages, always sent verbatim\n"
    "  [$primary]kept[/]     older history that still fits the budget\n"
    "  [$error]dropped[/]  history a compaction would replace with its summary\n"
    "  The rule between rows is the [b]fresh-tail boundary[/b], labelled with the tail's\n"
    "  budget and use.\n"
    "\n"
    "[b]Marks[/b]\n"
    "  [dim]pruned[/]     an old tool output replaced by a stub; the row shows the tokens freed\n"
    "  truncated  a tool output cut to the size limit; the row shows what remains\n"
    "\n"
    "[b]Gauge[/b] (the window across the top)\n"
    "  [$success]normal[/]   the request is below the preset's compaction trigger\n"
    "  [$warning]warning[/]  past the trigger: the next request would compact\n"
    "  [$error]error[/]    past the window: the request cannot be sent as it is"
)
"""What the main view's colours mean; the words match the plan's (fresh tail, prune, ...)."""


def key_rows(screen: Screen[object]) -> list[tuple[str, str]]:
    """``(keys, description)`` for each described binding active on ``screen``.

    Read from ``active_bindings`` so keys remapped through the keymap show as remapped, and
    several keys for one action are listed together.
    """
    app = screen.app
    rows: dict[tuple[int, str, str], list[str]] = {}
    for active in screen.active_bindings.values():
        binding = active.binding
        if not binding.description:
            continue
        group = (id(active.node), binding.action, binding.description)
        display = app.get_key_display(binding)
        keys = rows.setdefault(group, [])
        if display not in keys:
            keys.append(display)
    return [(" / ".join(keys), description) for (_, _, description), keys in rows.items()]


class HelpScreen(ModalScreen[None]):
    """Keys first, legend second: a user opening help mostly wants to know what to press."""

    DEFAULT_CSS = """
    HelpScreen {
        align: center middle;
    }
    HelpScreen > #dialog {
        width: 90%;
        max-width: 96;
        height: 90%;
        border: thick $primary;
        background: $surface;
        padding: 0 1;
    }
    HelpScreen #title {
        text-style: bold;
        margin-bottom: 1;
    }
    HelpScreen #keys {
        margin-bottom: 1;
    }
    HelpScreen #hint {
        color: $text-muted;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,question_mark", "close", "Close help", id="help.close"),
    ]

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Label("ctxtui help", id="title")
            with VerticalScroll():
                yield Static(id="keys")
                yield Static(LEGEND, id="legend")
            yield Label("Escape or ? closes", id="hint")

    def on_mount(self) -> None:
        self.query_one("#keys", Static).update(self._keys())

    def _keys(self) -> Content:
        below = self._screen_below()
        rows = key_rows(below) if below is not None else []
        if not rows:
            return Content("No keys are bound.")
        width = max(len(keys) for keys, _ in rows)
        lines = [Content.styled("Keys", "bold")]
        lines += [
            Content.assemble("  ", (f"{keys:<{width}}", "bold $accent"), "  ", description)
            for keys, description in rows
        ]
        return Content("\n").join(lines)

    def _screen_below(self) -> Screen[object] | None:
        """The screen help was opened over: its keys are the ones the user is asking about."""
        stack = self.app.screen_stack
        if self in stack:
            index = stack.index(self)
            return stack[index - 1] if index > 0 else None
        return stack[-1] if stack else None

    def action_close(self) -> None:
        self.dismiss(None)
