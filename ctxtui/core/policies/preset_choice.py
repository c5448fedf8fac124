"""Which preset a session opens on, and where that choice came from: the one rule both shells
follow. A preset the user named (``--preset``, the config file, the settings panel) wins;
else the agent that wrote the transcript names its own (``FormatInfo.preset``); else ``plan``.
"""

from __future__ import annotations

from dataclasses import dataclass

from ctxtui.core.policies.presets import DEFAULT_PRESET
from ctxtui.core.session.formats import FORMATS
from ctxtui.core.session.models import Session

FROM_TRANSCRIPT = "from the transcript"
FROM_OPTION = "from --preset"
FROM_CONFIG = "from your settings"  # the config file or a CTXTUI_PRESET variable
FROM_USER = "your choice"
DEFAULT = "the default"


@dataclass(frozen=True, slots=True)
class PresetChoice:
    """A preset's name and where it came from (one of the origins above)."""

    name: str
    origin: str

    def words(self) -> str:
        """``claude-code, from the transcript``: what the session bar says."""
        return f"{self.name}, {self.origin}"


def agent_preset(session: Session) -> str | None:
    """The preset of the agent that wrote ``session``, as its format row names it; ``None``
    for a format that is no agent's store (a chat export, an API request, ctxtui's own)."""
    meta = session.meta
    for info in FORMATS:
        if info.name == meta.format:
            name = info.preset_of(meta.source_path)
            return None if name == DEFAULT_PRESET and not info.store_presets else name
    return None


def resolve_preset(
    session: Session | None, given: str | None = None, origin: str = FROM_OPTION
) -> PresetChoice:
    """The preset for ``session``: ``given`` (said to come from ``origin``) when the user
    named one, else the transcript's agent's, else ``plan``."""
    if given:
        return PresetChoice(given, origin)
    agent = agent_preset(session) if session is not None else None
    if agent is not None:
        return PresetChoice(agent, FROM_TRANSCRIPT)
    return PresetChoice(DEFAULT_PRESET, DEFAULT)
