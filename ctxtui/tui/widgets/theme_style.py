"""Component-class styles as the theme means them, for widgets that paint their own text."""

from __future__ import annotations

from rich.color import Color
from rich.color_triplet import ColorTriplet
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


MIN_TEXT_CONTRAST = 4.5
"""WCAG's minimum contrast for body text: what a row's words and notes must reach."""


def _luminance(color: ColorTriplet) -> float:
    def channel(value: int) -> float:
        s = value / 255
        return s / 12.92 if s <= 0.03928 else ((s + 0.055) / 1.055) ** 2.4

    return (
        0.2126 * channel(color.red) + 0.7152 * channel(color.green) + 0.0722 * channel(color.blue)
    )


def contrast(a: ColorTriplet, b: ColorTriplet) -> float:
    """WCAG contrast ratio of two colours, 1 (the same) to 21 (black on white)."""
    hi, lo = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def _blend(a: ColorTriplet, b: ColorTriplet, share: float) -> ColorTriplet:
    return ColorTriplet(*(round(x + (y - x) * share) for x, y in zip(a, b, strict=True)))


def readable_on(
    style: Style, background: Color | None, minimum: float = MIN_TEXT_CONTRAST
) -> Style:
    """``style`` with its colour moved toward black or white (away from its background, its
    own or else ``background``) just far enough to reach ``minimum`` contrast.

    A theme's warning and accent are made for fills: $warning and $accent on textual-light are
    oranges that read at 1.4:1 as text, and even ``$text-warning`` (a 66% tint) stays under
    3:1 on some light themes. The hue stays; only the lightness moves, and a colour that
    already reads is kept as it is. ANSI colours are left to the terminal, whose palette
    decides how they look.
    """
    color = style.color
    ground_color = style.bgcolor or background  # a style with its own background is read on it
    if color is None or ground_color is None or color.triplet is None:
        return style
    ground = ground_color.triplet
    if ground is None:
        return style
    fg = color.triplet
    if contrast(fg, ground) >= minimum:
        return style
    black, white = ColorTriplet(0, 0, 0), ColorTriplet(255, 255, 255)
    target = black if contrast(black, ground) >= contrast(white, ground) else white
    for step in range(1, 21):
        moved = _blend(fg, target, step / 20)
        if contrast(moved, ground) >= minimum:
            break
    return style + Style(color=Color.from_triplet(moved))
