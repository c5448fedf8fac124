"""Apps made in the tests run without animations, however pytest was started.

Snapshots taken mid-animation would differ from run to run. ``make test`` sets
``TEXTUAL_ANIMATIONS=none``; a bare ``pytest`` relies on ``tests/conftest.py``, which must set
the value Textual already read (a pytest plugin imports Textual before any conftest runs).
"""

from __future__ import annotations

import textual._wait

from tests.conftest import IDLE_SLICE
from tests.tui.main_fixtures import app_for, demo_session


def test_an_app_made_in_a_test_has_animations_off() -> None:
    assert app_for(demo_session()).animation_level == "none"


def test_pilots_wait_for_idle_in_short_slices_with_textuals_idle_share() -> None:
    """``tests/conftest.py`` shortens the slices a pilot waits in, not what counts as idle.

    Textual's own slice is 20 ms with a twentieth of it as the idle bound; a shorter slice
    with a larger share would call a busy app idle, and a key press would be read too soon.
    """
    assert textual._wait.SLEEP_GRANULARITY == IDLE_SLICE < 0.02
    assert textual._wait.SLEEP_IDLE == IDLE_SLICE / 20
