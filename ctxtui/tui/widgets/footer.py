"""The footer: the main keys, with the least important left out whole when the width runs short."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.cells import cell_len
from textual import events
from textual.app import ComposeResult
from textual.compose import compose
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Footer
from textual.widgets._footer import (  # not re-exported; Textual is pinned exactly
    FooterKey,
    FooterLabel,
    KeyGroup,
)

from ctxtui.tui.actions import footer_order

KEEP_ORDER: tuple[str, ...] = footer_order()
"""Actions by how much a user needs to see their key (the registry's ``footer_rank``); the
last go first when space is short.

``?`` and ``q`` give way last: a newcomer at 80×24 must still see how to get help and how
to leave. The palette (``^p``) always stays, because it reaches every action left out.
"""


def key_width(key: FooterKey) -> int:
    """Cells a compact footer key takes, with the one-cell gap after it."""
    description = f" {key.description}" if key.description else ""
    return cell_len(key.key_display) + cell_len(description) + 1


@dataclass(frozen=True, slots=True)
class Entry:
    """What the footer keeps or leaves out whole: one key, or a group of keys under one label
    (``v T l Views``), and the widgets that draw it."""

    widgets: tuple[Widget, ...]
    keys: tuple[FooterKey, ...]
    label: str = ""

    @property
    def width(self) -> int:
        if not self.label:
            return sum(key_width(k) for k in self.keys)
        # Grouped keys show their key alone, a cell apart, then the label and a gap.
        return sum(cell_len(k.key_display) + 1 for k in self.keys) + cell_len(self.label) + 1

    @property
    def actions(self) -> frozenset[str]:
        return frozenset(k.action for k in self.keys)


def entries(items: Sequence[Widget]) -> list[Entry]:
    """The footer's widgets as entries: a ``KeyGroup`` and the label after it are one."""
    found: list[Entry] = []
    for widget in items:
        if isinstance(widget, FooterKey):
            found.append(Entry((widget,), (widget,)))
        elif isinstance(widget, KeyGroup):
            keys = tuple(k for k in widget._pending_children if isinstance(k, FooterKey))
            found.append(Entry((widget,), keys))
        elif isinstance(widget, FooterLabel) and found and found[-1].label == "":
            group = found[-1]
            label = str(widget.content)
            found[-1] = Entry((*group.widgets, widget), group.keys, label)
    return found


def fit_entries(found: list[Entry], width: int) -> list[Entry]:
    """The entries to show in ``width`` cells: the most important first, each one that still
    fits (a long one left out does not take the shorter, less important ones with it).

    Entries with no action in ``KEEP_ORDER`` (a view's own keys) come right after ``?`` and
    ``q``: they are why the view is up, but a newcomer must still see how to get help and leave.
    """
    rank = {action: i for i, action in enumerate(KEEP_ORDER)}
    own = rank["quit"] + 0.5

    def importance(entry: Entry) -> float:
        return min((rank[a] for a in entry.actions if a in rank), default=own)

    kept: set[int] = set()
    room = width
    for i in sorted(range(len(found)), key=lambda i: importance(found[i])):
        entry = found[i]
        if entry.width <= room:
            kept.add(i)
            room -= entry.width
    return [entry for i, entry in enumerate(found) if i in kept]


MINOR_FROM = KEEP_ORDER.index("toggle_settings")
"""Keys from this rank on lose their words before any of them is left out."""


def _minor(entry: Entry) -> bool:
    actions = [a for a in entry.actions if a in KEEP_ORDER]
    return not entry.label and bool(actions) and KEEP_ORDER.index(actions[0]) >= MINOR_FROM


def bare_entries(left: list[Entry], room: int) -> list[Entry]:
    """Of the single keys ``fit_entries`` left out, those that fit as their key alone, most
    important first: at 80×24 ``o e u t`` stay on screen without their words (``?`` names
    them), rather than vanish."""
    rank = {action: i for i, action in enumerate(KEEP_ORDER)}
    singles = [e for e in left if not e.label and len(e.keys) == 1 and e.keys[0].action in rank]
    kept: list[Entry] = []
    for entry in sorted(singles, key=lambda e: rank[e.keys[0].action]):
        width = cell_len(entry.keys[0].key_display) + 1
        if width <= room:
            kept.append(entry)
            room -= width
    return kept


class FittingFooter(Footer):
    """A compact ``Footer`` that never cuts a key in half.

    Textual's footer clips whatever does not fit, so at 80 columns ``? Help`` vanished and the
    ``^p palette`` key, docked on the right, was drawn over the last label. This one measures
    the keys and leaves out whole keys (or a whole group, such as the views), least important
    first (``KEEP_ORDER``), and lays itself out again when the terminal is resized.
    """

    DEFAULT_CSS = """
    FittingFooter {
        padding-left: 1;
    }
    FittingFooter.-compact KeyGroup {
        margin: 0;
    }
    FittingFooter.-compact FooterKey.-grouped {
        margin: 0 1 0 0;
    }
    FittingFooter.-compact FooterLabel {
        margin: 0 1 0 0;
    }
    """
    LEFT_PADDING = 1  # so the first key lines up with the gauge and the list above it

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, compact=True)
        self._laid_out_for = 0
        self._shown: tuple[object, ...] | None = None

    def _signature(self, screen: Screen[object]) -> tuple[object, ...]:
        """What the footer draws from: each shown key, its label and whether it is enabled."""
        return tuple(
            (binding.key, binding.action, binding.description, enabled, tooltip)
            for (_node, binding, enabled, tooltip) in screen.active_bindings.values()
            if binding.show
        )

    def bindings_changed(self, screen: Screen[object]) -> None:
        """Recompose only when a key, its label or its state differs from what is shown.

        Textual's footer rebuilds all its keys on every focus change and binding refresh
        (a dozen times while a session opens); each rebuild restyles every key, and that
        was a third of the app's start-up. What is shown is recorded when the keys are
        composed, from the bindings they were composed from, so a change between this call
        and that compose is never skipped.
        """
        if (
            self._bindings_ready
            and self.is_attached
            and screen is self.screen
            and screen.app.app_focus
            and self._signature(screen) == self._shown
        ):
            return
        super().bindings_changed(screen)

    def compose(self) -> ComposeResult:
        # Composed here so a group's keys go into its KeyGroup before the fitting.
        items = compose(self, super().compose())
        self._shown = self._signature(self.screen) if self._bindings_ready else None
        width = self.size.width or self.app.size.width
        found = entries(items)
        # The palette key is docked right; its width includes the rule on its left.
        palette = [e for e in found if e.keys and e.keys[0].has_class("-command-palette")]
        others = [e for e in found if e not in palette]
        room = width - self.LEFT_PADDING - sum(e.width for e in palette)
        fitted = fit_entries(others, room)
        left = [e for e in others if e not in fitted]
        if left:  # the minor keys give up their words together, so fewer of them vanish
            minor = [e for e in fitted if _minor(e)]
            fitted = [e for e in fitted if e not in minor]
            left = [e for e in others if e in minor or e in left]
        spare = room - sum(e.width for e in fitted)
        bare = bare_entries(left, spare)
        spare -= sum(cell_len(e.keys[0].key_display) + 1 for e in bare)
        for entry in bare:  # in rank order: the most needed get their words back first
            extra = entry.width - cell_len(entry.keys[0].key_display) - 1
            if extra <= spare:
                spare -= extra
            else:
                entry.keys[0].description = ""  # the key alone: its words did not fit
        shown = {id(w) for e in fitted + bare + palette for w in e.widgets}
        self._laid_out_for = width
        if self.compact:
            # Each key's ``compact`` watcher adds this class once mounted, and a class added
            # then restyles the key a second time: half the style work of the app's start.
            for entry in found:
                for key in entry.keys:
                    key.add_class("-compact", update=False)
        yield from (w for w in items if id(w) in shown)

    def on_resize(self, event: events.Resize) -> None:
        if event.size.width != self._laid_out_for:
            self.call_after_refresh(self.recompose)
