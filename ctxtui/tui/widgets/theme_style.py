"""Component-class styles as the theme means them, for widgets that paint their own text."""

from __future__ import annotations

from rich.style import Style
from textual.widget import Widget


def component_style(widget: Widget, name: str) -> Style:
    """The Rich style of component class ``name``, with its colours resolved.

    ``get_component_rich_style(partial=True)`` is what a painted row needs (only what the class
    sets, so it layers over the zone and cursor styles), but it drops alpha and ``auto``:
    ``$text-muted`` (``auto 60%``) comes back pure white, which vanishes on a light theme, and
    ``$primary 35%`` comes back at full strength. The full style has both resolved against the
    widget's background; this takes its colours for exactly the attributes the class sets.
    """
    partial = widget.get_component_rich_style(name, partial=True)
    if partial.color is None and partial.bgcolor is None:
        return partial
    full = widget.get_component_rich_style(name)
    return partial + Style(
        color=full.color if partial.color is not None else None,
        bgcolor=full.bgcolor if partial.bgcolor is not None else None,
    )
