"""Names the core imports from one place; ``StrEnum`` is the standard library's (3.11+)."""

from __future__ import annotations

from enum import StrEnum

__all__ = ["StrEnum"]
