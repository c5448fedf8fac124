"""What the app is asked to open with, carried from the command line to the main screen."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ctxtui.core.policies.preset_choice import FROM_OPTION


@dataclass(frozen=True, slots=True)
class Start:
    """How the app starts: the session's format (``None``: detected), the preset (``None``:
    each session on its agent's) and where that choice came from, the knobs given, whether it
    opens on the sessions picker (``--pick``) and follows the file as it grows (``--watch``)."""

    format: str | None = None
    preset: str | None = None
    overrides: Mapping[str, Any] = field(default_factory=dict)
    pick: bool = False
    watch: bool = False
    preset_origin: str = FROM_OPTION


PLAIN = Start()
"""No flag given."""
