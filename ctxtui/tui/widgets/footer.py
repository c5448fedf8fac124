"""The footer: the main keys, with the least important left out whole when the width runs short."""

from __future__ import annotations

from rich.cells import cell_len
from textual import events
from textual.app import ComposeResult
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Footer
from textual.widgets._footer import FooterKey  # not re-exported; Textual is pinned exactly

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


def fit_keys(keys: list[FooterKey], width: int) -> list[FooterKey]:
    """``keys`` without the least important ones, until the rest fit in ``width`` cells.

    Actions not in ``KEEP_ORDER`` (a modal's own keys) are kept: they are why the modal is up.
    """
    kept = list(keys)
    rank = {action: i for i, action in enumerate(KEEP_ORDER)}
    droppable = sorted(
        (k for k in kept if k.action in rank), key=lambda k: rank[k.action], reverse=True
    )
    for key in droppable:
        if sum(key_width(k) for k in kept) <= width:
            break
        kept.remove(key)
    return kept


class FittingFooter(Footer):
    """A compact ``Footer`` that never cuts a key in half.

    Textual's footer clips whatever does not fit, so at 80 columns ``? Help`` vanished and the
    ``^p palette`` key, docked on the right, was drawn over the last label. This one measures
    the keys and leaves out whole keys, least important first (``KEEP_ORDER``), and lays
    itself out again when the terminal is resized.
    """

    DEFAULT_CSS = """
    FittingFooter {
        padding-left: 1;
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
        """Recompose only when a key, its label or its state changed.

        Textual's footer rebuilds all its keys on every focus change and binding refresh
        (a dozen times while a session opens); each rebuild restyles every key, and that
        was a third of the app's start-up.
        """
        if self.is_attached and screen is self.screen and screen.app.app_focus:
            signature = self._signature(screen)
            if signature == self._shown and self._bindings_ready:
                return
            self._shown = signature
        super().bindings_changed(screen)

    def compose(self) -> ComposeResult:
        items: list[Widget] = list(super().compose())
        width = self.size.width or self.app.size.width
        keys = [w for w in items if isinstance(w, FooterKey)]
        # The palette key is docked right; its width includes the rule on its left.
        palette = [k for k in keys if k.has_class("-command-palette")]
        others = [k for k in keys if k not in palette]
        room = width - self.LEFT_PADDING - sum(key_width(k) for k in palette)
        kept = fit_keys(others, room)
        self._laid_out_for = width
        yield from (w for w in items if w not in others or w in kept)

    def on_resize(self, event: events.Resize) -> None:
        if event.size.width != self._laid_out_for:
            self.call_after_refresh(self.recompose)
