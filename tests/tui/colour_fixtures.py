"""How a terminal shows a theme's colours, measured: ANSI colours through the palette the
theme implies, then WCAG contrast (text) or RGB distance (bars)."""

from __future__ import annotations

from typing import Any

from rich.color import Color
from rich.terminal_theme import DEFAULT_TERMINAL_THEME, SVG_EXPORT_THEME, TerminalTheme
from textual.app import App

RGB = tuple[int, int, int]


def themes() -> list[str]:
    return sorted(App().available_themes)


def rgb(color: Color | None, terminal: TerminalTheme, *, foreground: bool) -> RGB:
    assert color is not None
    c = color.get_truecolor(terminal, foreground=foreground)
    return (c.red, c.green, c.blue)


def luminance(c: RGB) -> float:
    def channel(v: int) -> float:
        s = v / 255
        return s / 12.92 if s <= 0.03928 else ((s + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(v) for v in c)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: RGB, b: RGB) -> float:
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def distance(a: RGB, b: RGB) -> float:
    return float(sum((x - y) ** 2 for x, y in zip(a, b, strict=True)) ** 0.5)


def terminal_for(app: App[Any]) -> TerminalTheme:
    return SVG_EXPORT_THEME if app.current_theme.dark else DEFAULT_TERMINAL_THEME
