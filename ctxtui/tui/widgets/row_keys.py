"""The keys of a list of message rows: one table for the message list and the compare lanes.

Both are Line-API views with a row cursor, and help describes their keys by these tooltips;
two copies of the table drifted once (one had no tooltips), so it lives here.
"""

from __future__ import annotations

from textual.binding import Binding, BindingType

_ROW_KEYS = (
    ("up", "cursor_up", "Up", "up", "Select the message above"),
    ("down", "cursor_down", "Down", "down", "Select the message below"),
    ("pageup", "page_up", "Page up", "page_up", "Select a screenful up"),
    ("pagedown", "page_down", "Page down", "page_down", "Select a screenful down"),
    ("home", "first", "First", "first", "Select the first message"),
    ("end", "last", "Last", "last", "Select the last message"),
)


def row_bindings(scope: str) -> list[BindingType]:
    """The cursor keys of a row list, their ids under ``scope`` (``list.up``, ``compare.up``)."""
    return [
        Binding(key, action, description, show=False, id=f"{scope}.{name}", tooltip=tooltip)
        for key, action, description, name, tooltip in _ROW_KEYS
    ]
