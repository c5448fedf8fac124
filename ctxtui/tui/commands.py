"""Command-palette entries for every ctxtui action, each dispatched by its action name."""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider

from ctxtui.core.policy import PRESETS
from ctxtui.core.tokenizers import available_tokenizers


@dataclass(frozen=True, slots=True)
class PaletteCommand:
    """One palette entry: what the user reads and the app action it runs."""

    title: str
    action: str
    help: str


BASE_COMMANDS: tuple[PaletteCommand, ...] = (
    PaletteCommand(
        "Compact", "compact", "Choose a reason and preview a compaction before applying it"
    ),
    PaletteCommand("Undo compaction", "undo", "Restore the session as before the last apply"),
    PaletteCommand(
        "Export session", "export", "Write the session as shown (compacted or not) as JSON"
    ),
    PaletteCommand("Open session", "open", "Open another session file"),
    PaletteCommand("Search messages", "search", "Find text in the messages' contents"),
    PaletteCommand("Jump to fresh tail", "jump_tail", "Scroll to the fresh-tail boundary"),
    PaletteCommand("Toggle settings", "toggle_settings", "Show or hide the policy knobs"),
    PaletteCommand("Help", "help", "Keys, zones, marks and gauge colours"),
    PaletteCommand("Switch theme", "change_theme", "Pick one of Textual's themes"),
)


def palette_commands() -> tuple[PaletteCommand, ...]:
    """All entries: the fixed actions, then one per preset and one per tokenizer."""
    presets = tuple(
        PaletteCommand(
            f"Preset: {name}", f"preset({name!r})", f"Re-plan with the {name} preset's knobs"
        )
        for name in PRESETS
    )
    tokenizers = tuple(
        PaletteCommand(f"Tokenizer: {spec}", f"tokenizer({spec!r})", f"Count tokens with {spec}")
        for spec in available_tokenizers()
    )
    return BASE_COMMANDS + presets + tokenizers


class CtxtuiCommands(Provider):
    """Offers every app action in the palette; the app's actions do the work.

    Hits call ``app.run_action`` with the action's name, so a key, the palette and a test all
    reach the same code, and remapped keys need no change here.
    """

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for command in palette_commands():
            score = matcher.match(command.title)
            if score > 0:
                yield Hit(
                    score,
                    matcher.highlight(command.title),
                    partial(self.app.run_action, command.action),
                    text=command.title,
                    help=command.help,
                )

    async def discover(self) -> Hits:
        for command in palette_commands():
            yield DiscoveryHit(
                command.title,
                partial(self.app.run_action, command.action),
                text=command.title,
                help=command.help,
            )
