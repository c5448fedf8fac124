"""``keep_out_of_collections``: the open session leaves the collector's walks, and nothing leaks."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest

from ctxtui.core.heap import keep_out_of_collections


class _Node:
    """A cycle's member that can be watched with a weak reference."""

    other: _Node | None = None


@pytest.fixture(autouse=True)
def _unfrozen_after() -> Iterator[None]:
    yield
    gc.unfreeze()


def test_what_is_alive_is_frozen() -> None:
    gc.unfreeze()
    keep = [[] for _ in range(100)]
    keep_out_of_collections()
    assert gc.get_freeze_count() >= len(keep)


def test_a_cycle_frozen_with_one_session_is_collected_after_the_next() -> None:
    gc.unfreeze()
    a, b = _Node(), _Node()
    a.other, b.other = b, a
    gone = weakref.ref(a)
    keep_out_of_collections()
    del a, b
    gc.collect()
    assert gone() is not None, "a frozen cycle waits for the next call"
    keep_out_of_collections()  # hands the frozen objects back and collects before freezing
    assert gone() is None


def test_a_frozen_object_without_cycles_is_still_freed_when_dropped() -> None:
    gc.unfreeze()
    node = _Node()
    gone = weakref.ref(node)
    keep_out_of_collections()
    del node
    assert gone() is None
