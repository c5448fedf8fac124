"""Whose summary a compaction writes: the key of every agent's template, prompt and size.

A module of its own, importing nothing, so that the policy's knob and the templates keyed by it
(``core.summaries.templates``) name the same type and ``ctxtui --help`` stays light.
"""

from __future__ import annotations

from enum import StrEnum


class SummaryTemplate(StrEnum):
    """Whose summary a compaction writes."""

    PLAN = "plan"  # the plan's six sections
    OPENCODE = "opencode"  # Objective / Important Details / Work State / Next Move / Files
    CODEX = "codex"  # the handoff prompt; the summary follows Codex's prefix
    CLAUDE_CODE = "claude_code"  # the nine sections
    PICOCLAW = "picoclaw"  # free text: seahorse's leaf text, legacy's summarizeBatch
