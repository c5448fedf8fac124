"""``keep_out_of_collections``: a large open session leaves the collector's walks; no leak."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest

from ctxtui.system.heap import FREEZE_FROM, keep_out_of_collections


class _Node:
    """A cycle's member that can be watched with a weak reference."""

    other: _Node | None = None


@pytest.fixture(autouse=True)
def _unfrozen_after() -> Iterator[None]:
    gc.unfreeze()
    yield
    gc.unfreeze()


def test_what_is_alive_when_a_large_session_opens_is_frozen() -> None:
    keep = [[] for _ in range(100)]
    keep_out_of_collections(FREEZE_FROM)
    assert gc.get_freeze_count() >= len(keep)


def test_a_small_session_is_not_frozen_and_hands_back_an_earlier_freeze() -> None:
    keep_out_of_collections(FREEZE_FROM)
    assert gc.get_freeze_count() > 0
    keep_out_of_collections(FREEZE_FROM - 1)
    assert gc.get_freeze_count() == 0


def test_a_cycle_frozen_at_one_open_is_collected_at_the_next() -> None:
    a, b = _Node(), _Node()
    a.other, b.other = b, a
    gone = weakref.ref(a)
    keep_out_of_collections(FREEZE_FROM)
    del a, b
    gc.collect()
    assert gone() is not None, "a frozen cycle waits for the next open"
    keep_out_of_collections(FREEZE_FROM)  # hands it back and collects before freezing
    assert gone() is None


def test_a_frozen_object_without_cycles_is_still_freed_when_dropped() -> None:
    node = _Node()
    gone = weakref.ref(node)
    keep_out_of_collections(FREEZE_FROM)
    del node
    assert gone() is None
