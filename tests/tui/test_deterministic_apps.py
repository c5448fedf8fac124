"""Apps made in the tests run without animations, however pytest was started.

Snapshots taken mid-animation would differ from run to run. ``make test`` sets
``TEXTUAL_ANIMATIONS=none``; a bare ``pytest`` relies on ``tests/conftest.py``, which must set
the value Textual already read (a pytest plugin imports Textual before any conftest runs).
"""

from __future__ import annotations

from tests.tui.main_fixtures import app_for, demo_session


def test_an_app_made_in_a_test_has_animations_off() -> None:
    assert app_for(demo_session()).animation_level == "none"
