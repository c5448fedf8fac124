"""The command palette's provider: an entry for every ctxtui action, read from the action
registry, run on the node the action's scope names."""

from __future__ import annotations

from functools import partial
from typing import Any

from textual.app import App
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.dom import DOMNode

from ctxtui.tui.actions import PaletteEntry, Scope, palette_entries


def target(app: App[Any], scope: Scope) -> DOMNode:
    """The node whose ``action_<id>`` runs an action of ``scope``.

    Main-screen actions run on the screen at the bottom of the stack, which holds the
    session, even when the palette was opened over a dialog.
    """
    if scope is Scope.APP or not app.screen_stack:
        return app
    return app.screen_stack[0]


NOTHING_TO_UNDO = "Nothing to undo: no compaction has been applied."
NO_SESSION = "{title}: no session is open (o opens one)."


async def run_entry(app: App[Any], entry: PaletteEntry) -> None:
    """Run ``entry``'s action, or say why not: a key whose action cannot run now is dimmed in
    the footer, but a palette entry chosen then would otherwise do nothing without a word."""
    node = target(app, entry.scope)
    name = entry.action.partition("(")[0]
    if node.check_action(name, ()) is None:
        message = NOTHING_TO_UNDO if name == "undo" else NO_SESSION.format(title=entry.title)
        app.notify(message, timeout=3)
        return
    await app.run_action(entry.action, node)


class ActionsProvider(Provider):
    """Offers every registered action in the palette; the action's own handler does the work.

    Hits call ``app.run_action`` on the node the action's scope names, so a key, the palette
    and a test all reach the same code (and the same ``check_action``), and remapped keys
    need no change here.
    """

    def _run(self, entry: PaletteEntry) -> Any:
        return partial(run_entry, self.app, entry)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for entry in palette_entries():
            score = matcher.match(entry.title)
            if score > 0:
                yield Hit(
                    score,
                    matcher.highlight(entry.title),
                    self._run(entry),
                    text=entry.title,
                    help=entry.help,
                )

    async def discover(self) -> Hits:
        for entry in palette_entries():
            yield DiscoveryHit(entry.title, self._run(entry), text=entry.title, help=entry.help)
