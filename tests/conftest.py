"""Test-wide settings: no animations, no network, deterministic hypothesis."""

from __future__ import annotations

import os

# Must be set before Textual is imported anywhere in the test session.
os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")

from hypothesis import settings

settings.register_profile("ci", deadline=None, print_blob=True, derandomize=True)
settings.load_profile("ci")
