"""Colours both shells draw with: the timeline's series, in the app and in the HTML report."""

from __future__ import annotations

from collections.abc import Mapping

SERIES_COLOURS: Mapping[str, Mapping[str, str]] = {
    "simulated": {"dark": "#3DD6A8", "light": "#00704F"},
    "reported": {"dark": "#56B4E9", "light": "#0068A8"},
    "window": {"dark": "#EE8AC8", "light": "#A03F00"},
    "trigger": {"dark": "#F0E442", "light": "#8B2D87"},
}
"""The timeline's series, one colour each on a dark and on a light background, shared by the
app's chart and the HTML report's. From the Okabe-Ito palette (told apart with colour-blind
eyes too), adjusted to read at 4:1 or better on every bundled theme's surface
(tests/tui/test_timeline_view.py); theme colours could not be used: several themes give
two of them one colour (textual-dark's accent is its warning)."""
