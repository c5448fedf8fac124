"""Every user action of the app in one table: its key, its words, and where it runs.

Bindings, the command palette, the footer's order, the help screen's explanations and the
key remapping of the user's config are all read from ``ACTIONS``; an action is one row here
plus an ``action_<id>`` handler on the node its scope names (the app or the main screen).
An app action that opens a screen (help, the views) has a handler that only pushes it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from enum import Enum

from textual.binding import Binding, BindingType

from ctxtui.core.policies.presets import PRESETS


class Scope(Enum):
    """Which node's ``action_<id>`` runs the action."""

    APP = "app"
    MAIN = "main"  # the main screen, which holds the session (the bottom of the screen stack)


def _presets() -> Iterable[str]:
    return PRESETS


def _tokenizers() -> Iterable[str]:
    from ctxtui.core.tokens.tokenizers import available_tokenizers

    return available_tokenizers()


@dataclass(frozen=True, slots=True)
class Action:
    """One action: what the user presses, reads and may remap.

    ``id`` is the action's name (``action_<id>``) and its binding id, the name a user's config
    remaps it by. ``footer_rank`` orders the footer (0 matters most; ``None``: not in the
    footer); when the width runs short the highest ranks are left out first. ``choices``
    makes one palette entry per choice, run as ``id('choice')``. A view's handler,
    ``CtxtuiApp.action_<id>``, pushes its screen with ``push_view``.
    """

    id: str
    key: str | None
    label: str
    description: str
    scope: Scope = Scope.MAIN
    needs_session: bool = False
    footer_rank: int | None = None
    title: str = ""  # the palette's title; the label when empty
    in_palette: bool = True
    priority: bool = False
    key_display: str | None = None
    choices: Callable[[], Iterable[str]] | None = None
    footer_group: str | None = None

    @property
    def palette_title(self) -> str:
        return self.title or self.label

    def binding(self) -> Binding:
        """The Textual binding for this row (only rows with a key have one)."""
        assert self.key is not None, self.id
        return Binding(
            self.key,
            self.id,
            self.label,
            show=self.footer_rank is not None,
            key_display=self.key_display,
            priority=self.priority,
            tooltip=self.description,
            id=self.id,
            group=Binding.Group(self.footer_group) if self.footer_group else None,
        )


VIEWS = "Views"
"""The footer's one entry for the keys that open a view (compare, tools, timeline, fleet):
``v T l F Views``."""


ACTIONS: tuple[Action, ...] = (
    # The main screen's keys, in the order the footer and help list them.
    Action(
        "compact",
        "c",
        "Compact",
        "Choose a reason, preview the summary, then apply or export",
        needs_session=True,
        footer_rank=3,
    ),
    Action(
        "undo",
        "u",
        "Undo",
        "Undo the last applied compaction",
        footer_rank=11,
        title="Undo compaction",
    ),
    Action(
        "export",
        "e",
        "Export",
        "Write the session as ctxtui JSON",
        needs_session=True,
        footer_rank=10,
        title="Export session",
    ),
    Action(
        "audit",
        "a",
        "Audit",
        "What the agent's last recorded compaction kept of the facts it replaced",
        needs_session=True,
        footer_rank=12,
        title="Audit the agent's last compaction",
    ),
    Action(
        "search",
        "slash",
        "Search",
        "Find text in message contents",
        needs_session=True,
        footer_rank=4,
        title="Search messages",
    ),
    Action(
        "search_next",
        "n",
        "Next match",
        "Go to the next match of the last search, from the selected message on",
        needs_session=True,
        in_palette=False,
    ),
    Action(
        "jump_tail",
        "t",
        "Tail",
        "Jump to the fresh-tail boundary",
        needs_session=True,
        footer_rank=8,
        title="Jump to fresh tail",
    ),
    Action(
        "toggle_settings",
        "s",
        "Settings",
        "Preset, tokenizer and every knob of the policy",
        footer_rank=7,
        title="Toggle settings",
    ),
    Action(
        "toggle_detail",
        "d",
        "Detail",
        "Show or hide the detail pane (hidden at first under 70 columns)",
        footer_rank=5,
        title="Toggle detail pane",
    ),
    Action("open", "o", "Open", "Open another session file", footer_rank=9, title="Open session"),
    Action(
        "close_panels",
        "escape",
        "Close",
        "Close the search bar or the settings panel",
        footer_rank=0,
        in_palette=False,
    ),
    # The app's own keys.
    Action(
        "help",
        "question_mark",
        "Help",
        "Keys and legend",
        scope=Scope.APP,
        footer_rank=1,
    ),
    Action(
        "compare",
        "v",
        "Compare",
        "Every preset side by side: a lane per preset beside each message, a gauge each",
        scope=Scope.APP,
        title="Compare presets",
        footer_rank=6,
        footer_group=VIEWS,
    ),
    Action(
        "tools",
        "T",
        "Tools",
        "What each tool costs: calls, outputs, pruned and truncated tokens, share of the request",
        scope=Scope.APP,
        title="Tool costs",
        footer_rank=6,
        footer_group=VIEWS,
    ),
    Action(
        "timeline",
        "l",
        "Timeline",
        "Replay every request: simulated and reported prompts, compactions, the context at each",
        scope=Scope.APP,
        title="Timeline of requests",
        footer_rank=6,
        footer_group=VIEWS,
    ),
    Action(
        "tune",
        "K",
        "Tune",
        "Every candidate of the agent's settings replayed on this session: the Pareto front of "
        "dollars and facts lost; Enter applies a point",
        scope=Scope.APP,
        title="Tune the agent's settings",
    ),
    Action(
        "fleet",
        "F",
        "Fleet",
        "Every session your agents wrote, one row each with the totals; Enter opens one",
        scope=Scope.APP,
        title="Fleet of sessions",
        footer_rank=6,
        footer_group=VIEWS,
    ),
    Action("quit", "q", "Quit", "Leave ctxtui", scope=Scope.APP, footer_rank=2, in_palette=False),
    # Textual adds this binding itself when none exists; declaring it gives it an id (so it
    # can be remapped) and an explanation of what the palette offers.
    Action(
        "command_palette",
        "ctrl+p",
        "palette",
        "Every action, preset, tokenizer and theme by name",
        scope=Scope.APP,
        in_palette=False,
        priority=True,
    ),
    # Palette only: no key.
    Action(
        "change_theme",
        None,
        "Switch theme",
        "Pick one of Textual's themes",
        scope=Scope.APP,
    ),
    Action(
        "preset",
        None,
        "Preset",
        "Re-plan with the {} preset's knobs",
        choices=_presets,
    ),
    Action(
        "tokenizer",
        None,
        "Tokenizer",
        "Count tokens with {}",
        choices=_tokenizers,
    ),
)

BY_ID: Mapping[str, Action] = {action.id: action for action in ACTIONS}


def bindings(scope: Scope) -> list[BindingType]:
    """The bindings of every keyed action that runs in ``scope``, in table order."""
    return [a.binding() for a in ACTIONS if a.scope is scope and a.key is not None]


def footer_order() -> tuple[str, ...]:
    """Action ids by how much a user needs to see their key (most first)."""
    ranked = [a for a in ACTIONS if a.footer_rank is not None]
    return tuple(a.id for a in sorted(ranked, key=lambda a: a.footer_rank or 0))


def needs_session(action: str) -> bool:
    """Whether ``action`` (an action name) has nothing to act on until a session is open."""
    row = BY_ID.get(action)
    return row is not None and row.needs_session


@dataclass(frozen=True, slots=True)
class PaletteEntry:
    """One palette entry: what the user reads, the action string it runs, and where."""

    title: str
    action: str
    help: str
    scope: Scope


def palette_entries() -> tuple[PaletteEntry, ...]:
    """Every palette entry: the plain actions first, then one per choice of each chooser."""
    plain = [
        PaletteEntry(a.palette_title, a.id, a.description, a.scope)
        for a in ACTIONS
        if a.in_palette and a.choices is None
    ]
    chosen = [
        PaletteEntry(f"{a.palette_title}: {c}", f"{a.id}({c!r})", a.description.format(c), a.scope)
        for a in ACTIONS
        if a.in_palette and a.choices is not None
        for c in a.choices()
    ]
    return tuple(plain + chosen)


DIALOG_SEPARATOR = "."
"""A dialog's own keys have ids ``<dialog>.<action>`` (``export.cancel``); they may be remapped."""


def remap(keys: Mapping[str, str]) -> tuple[dict[str, str], list[str]]:
    """The user's ``keys`` setting as a Textual keymap, and a notice for each id that binds
    nothing (a typo would otherwise leave the default key in force without a word)."""
    keymap: dict[str, str] = {}
    unknown: list[str] = []
    for binding_id, key in keys.items():
        if binding_id in BY_ID or DIALOG_SEPARATOR in binding_id:
            keymap[binding_id] = key
        else:
            unknown.append(binding_id)
    notices = []
    if unknown:
        known = ", ".join(a.id for a in ACTIONS if a.key is not None)
        notices.append(f"Unknown key binding ids {', '.join(map(repr, unknown))}; known: {known}")
    return keymap, notices
