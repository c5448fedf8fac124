"""A modal listing the keys in force and explaining what the main view's colours and marks mean."""

from __future__ import annotations

from typing import NamedTuple

from textual.app import ComposeResult
from textual.containers import Grid, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Label, Static

from ctxtui.core.pricing.cost_words import miss_legend
from ctxtui.tui.screens.dialog import Dialog
from ctxtui.tui.state import MainState

_MISSES = miss_legend()
MISSES = "  ".join(_MISSES[:4]) + "\n  " + "  ".join(_MISSES[4:])
"""The cache-miss marks on two lines, in the timeline legend's words."""

LEGEND = Content.from_markup(
    "[b]Zones[/b] (row colours in the message list)\n"
    "  [$success]tail[/]     the fresh tail: the newest messages, always sent verbatim\n"
    "  [$primary]kept[/]     older history that still fits the budget\n"
    "  [$error]dropped[/]  history a compaction would replace with its summary\n"
    "  The rule between rows is the [b]fresh-tail boundary[/b], labelled with the tail's "
    "budget and use.\n"
    "\n"
    "[b]Rows[/b]\n"
    "  #  the message's number in the session (as the detail pane and search name it)\n"
    "  The figure is the tokens the request sends for the message (a pruned or truncated "
    "output counts as its stub or its cut), so a zone's rows add up to its part of the "
    "gauge. The [b]bar[/b] draws the figure against the scale stated on the rule above "
    "the list ([i]full bar = N tok[/i]): the biggest message, or 1,000 tokens when every "
    "message is smaller, so a 5-token reply among short messages is a sliver, not a "
    "full bar. Each cell has eight steps.\n"
    "\n"
    "[b]Marks[/b]\n"
    "  [dim]pruned[/]     an old tool output replaced by a stub\n"
    "  truncated  a tool output cut to the size limit\n"
    "  Their tag gives the size before ([i]was N[/i]) and the tokens freed ([i]−N tok[/i]).\n"
    "\n"
    "[b]Detail pane[/b] (Tab focuses it; arrows, PgUp/PgDn and Home/End scroll it)\n"
    "  Three counts of the selected message: what is sent, what it was, and the tokens "
    "freed ([i]Sent as 18 tokens of its 7,168: pruned, which frees 7,150 tokens[/i]); "
    "then the message counted by every tokenizer ([i]plan · picoclaw · tiktoken…[/i]), "
    "beside the one the session bar names, which the plan counts with; then why the "
    "plan put it in its zone.\n"
    "\n"
    "[b]Gauge[/b] (the window across the top: what the next request would take)\n"
    "  [$secondary]█[/] system    the system prompt\n"
    "  [$accent]█[/] tool defs the tool definitions (schemas) sent with every request\n"
    "  [$foreground-muted]█[/] summary   the summary an earlier compaction left\n"
    "  [$error]█[/] dropped   history over the budget: compaction replaces it\n"
    "  [$primary]█[/] kept      older history sent as it is (pruned outputs as stubs)\n"
    "  [$success]█[/] tail      the fresh tail\n"
    "  [$warning 70%]▒[/] output reserve room kept for the model's reply (max tokens)\n"
    "  [$foreground 30%]░[/] free      the rest of the window\n"
    "  [$warning]┃[/] trigger   the prompt at which the preset compacts\n"
    "  The figures read [i]prompt sent · requested / window[/i] (the request is the prompt "
    "and the output reserve) and the share used, coloured:\n"
    "  [$success]normal[/]   the request is below the preset's compaction trigger\n"
    "  [$warning]warning[/]  past the trigger: the next request would compact\n"
    "  [$error]error[/]    past the window: the request cannot be sent as it is\n"
    "\n"
    "[b]API line[/b] (under the gauge, when the transcript recorded usage)\n"
    "  [i]API 21,968 · counted 4,675 · +17,293[/i]: the prompt the provider "
    "reported for the [b]last request[/b] with usage, ctxtui's count of the same "
    "prompt, and the gap, split into what the transcript lacks (system prompt, "
    "tool definitions: a fitted offset) and the estimator's error.\n"
    "  [i]last request $0.0108 · cache hit 99%[/i] is that one request's price and "
    "the share of its prompt read from the provider's cache.\n"
    "\n"
    "[b]Dollars[/b] are recorded usage priced with the bundled price table "
    "(docs/cost.md). [i]recorded $52.97[/i] on the session bar is every request the "
    "file holds, before the agent's own compactions too; [i]· $54.96 with 3 "
    "sub-agents[/i] adds theirs. [i]simulated[/i] is what the preset's own run would "
    "have cost. A figure over fewer requests says which "
    "([i]requests 225–260 of the file[/i]).\n"
    "\n"
    "[b]Cache figure[/b] [i]cache hit N%[/i]: the prompt tokens read from the "
    "provider's cache over all prompt tokens; a [b]miss[/b] is a request that wrote "
    "most of its prompt again. The timeline marks each miss by its cause:\n"
    f"  {MISSES}\n"
    "\n"
    "[b]Timeline marks[/b] (under the chart)\n"
    "  C simulated compaction  R recorded compaction (the agent's)\n"
    "  ! over the window  + several in one column\n"
    "  ▲ the cursor's request on the axis  ▇ dollars per request (its gutter "
    "gives the costliest).\n"
    "  In the compare view T K · p are the fresh tail, kept, dropped and pruned.\n"
    "\n"
    "[b]Facts[/b] are what a later turn may need from the history: paths, "
    "commands, errors, test ids, identifiers, numbers with a unit, URLs and the "
    "user's instructions (docs/retention.md). A retention audit ([b]a[/b]) says "
    "which of a segment's facts a compaction's summary kept, which it lost, and "
    "which lost ones were needed after it."
)
"""What the main view's colours, figures and bars mean; the words match the plan's (fresh
tail, prune, ...) and the gauge's legend."""


class KeyRow(NamedTuple):
    """One line of the help's key list."""

    keys: str
    description: str
    explanation: str = ""


GENERIC_ACTIONS = frozenset({"app.focus_next", "app.focus_previous", "screen.copy_text"})
"""Keys every Textual screen has; listed last, after what ctxtui itself does."""


TEXTUAL_EXPLAINED: dict[str, str] = {
    "app.focus_next": "Move the focus to the next pane",
    "app.focus_previous": "Move the focus to the previous pane",
    "screen.copy_text": "Copy the text selected with the mouse",
    "cursor_up": "Move the cursor up a row",
    "cursor_down": "Move the cursor down a row",
    "cursor_left": "Move the cursor left a column",
    "cursor_right": "Move the cursor right a column",
    "page_up": "Move up a screenful",
    "page_down": "Move down a screenful",
    "page_left": "Move left a screenful",
    "page_right": "Move right a screenful",
    "scroll_home": "Go to the first row",
    "scroll_end": "Go to the last row",
    "scroll_top": "Go to the top",
    "scroll_bottom": "Go to the bottom",
    "select_cursor": "Choose the row under the cursor",
}
"""What the keys of Textual's own widgets do, by action: their bindings carry no tooltip,
and a help line without its explanation leaves the user guessing."""


def key_rows(screen: Screen[object]) -> list[KeyRow]:
    """A ``KeyRow`` for each described binding active on ``screen``, ctxtui's own first.

    Read from ``active_bindings`` so keys remapped through the keymap show as remapped, and
    several keys for one action are listed together; the explanation is the binding's
    tooltip, which for ctxtui's actions is the action registry's description. Order: the screen's
    actions, the app's, then moving in the focused widget, then what every Textual screen
    does (tab, copy), so at 80×24 the first lines answer "what can I do here", not "how does
    tab work".
    """
    app = screen.app
    rows: dict[tuple[int, str, str], tuple[int, list[str], str]] = {}
    for active in screen.active_bindings.values():
        binding = active.binding
        if not binding.description:
            continue
        if binding.action in GENERIC_ACTIONS:
            rank = 3
        elif active.node is screen:
            rank = 0
        elif active.node is app:
            rank = 1
        else:
            rank = 2
        group = (id(active.node), binding.action, binding.description)
        display = app.get_key_display(binding)
        explanation = active.tooltip or binding.tooltip or TEXTUAL_EXPLAINED.get(binding.action, "")
        _, keys, _ = rows.setdefault(group, (rank, [], explanation))
        if display not in keys:
            keys.append(display)
    ordered = sorted(rows.items(), key=lambda item: item[1][0])  # stable: binding order kept
    return [
        KeyRow(" / ".join(keys), description, explanation)
        for (_, _, description), (_, keys, explanation) in ordered
    ]


class HelpScreen(Dialog[None]):
    """Keys first, legend second: a user opening help mostly wants to know what to press."""

    DIALOG_ID = "help"
    CANCEL_KEYS = "escape,question_mark"
    CANCEL_LABEL = "Close help"
    CANCEL_NAME = "close"

    DEFAULT_CSS = """
    HelpScreen > #dialog {
        max-width: 96;
        height: 90%;
    }
    HelpScreen #keys-title {
        text-style: bold;
    }
    HelpScreen #keys {
        grid-size: 3;
        grid-columns: auto auto 1fr;
        grid-rows: auto;
        grid-gutter: 0 2;
        height: auto;
        margin-bottom: 1;
    }
    HelpScreen #keys .key {
        padding-left: 2;
        text-style: bold;
        color: $accent;
    }
    HelpScreen #keys .explanation {
        width: 1fr;
        color: $text-muted;
    }
    """

    def __init__(self, state: MainState | None = None) -> None:
        """``state`` is the main screen's, as every view gets it; help reads only the keys."""
        super().__init__()
        self.rows: list[KeyRow] = []

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Label("ctxtui help", id="title")
            with VerticalScroll():
                yield Label("Keys", id="keys-title")
                yield Grid(id="keys")
                yield Static(LEGEND, id="legend")
            yield Label("Escape or ? closes", id="hint")

    def on_mount(self) -> None:
        below = self._screen_below()
        self.rows = key_rows(below) if below is not None else []
        if not self.rows:
            self.query_one("#keys-title", Label).update("No keys are bound.")
            return
        # A grid, so a long explanation wraps within its own column instead of under the keys.
        self.query_one("#keys", Grid).mount_all(
            label
            for row in self.rows
            for label in (
                Label(row.keys, classes="key", markup=False),
                Label(row.description, classes="description", markup=False),
                Label(row.explanation, classes="explanation", markup=False),
            )
        )

    def _screen_below(self) -> Screen[object] | None:
        """The screen help was opened over: its keys are the ones the user is asking about."""
        stack = self.app.screen_stack
        if self in stack:
            index = stack.index(self)
            return stack[index - 1] if index > 0 else None
        return stack[-1] if stack else None
