"""Run a recursive JSON step (parse, dump, walk) on values nested deeper than Python allows.

The stdlib's JSON scanner and encoder recurse once per nesting level against the interpreter's
recursion limit (1,000 by default, less what the caller's stack already uses), which would
refuse a valid transcript whose tool arguments nest 1,000 levels. ``deep_call`` runs the
step as it is first (the common, shallow case costs nothing more); only on ``RecursionError``
does it run it again in a thread of its own with a large stack and a raised limit.
``DEEP_STACK`` leaves a wide margin for ``DEEP_RECURSION_LIMIT`` frames; the limit is what
stops an absurdly deep document, which then raises ``RecursionError`` and is refused.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

DEEP_RECURSION_LIMIT = 12_000
DEEP_STACK = 128 * 1024 * 1024
"""Address space only: a thread's stack pages are touched (and count in RSS) as used."""

_lock = threading.Lock()
_stack_lock = threading.Lock()
_raised = 0
_saved_limit = 0


def _raise_limit() -> None:
    global _raised, _saved_limit
    with _lock:
        if _raised == 0:
            _saved_limit = sys.getrecursionlimit()
            sys.setrecursionlimit(max(_saved_limit, DEEP_RECURSION_LIMIT))
        _raised += 1


def _restore_limit() -> None:
    global _raised
    with _lock:
        _raised -= 1
        if _raised == 0:
            sys.setrecursionlimit(_saved_limit)


def deep_call(fn: Callable[..., T], *args: Any) -> T:
    """``fn(*args)``, retried with room for deep recursion if it raises ``RecursionError``.

    Any exception of the retry (``RecursionError`` included) is raised in the caller's thread.
    """
    try:
        return fn(*args)
    except RecursionError:
        pass
    result: list[T] = []
    failure: list[BaseException] = []

    def run() -> None:
        _raise_limit()
        try:
            result.append(fn(*args))
        except BaseException as exc:  # handed to the caller's thread, which re-raises it
            failure.append(exc)
        finally:
            _restore_limit()

    worker = threading.Thread(target=run, name="ctxtui-deep-json", daemon=True)
    with _stack_lock:  # the size is read when the thread starts, and is process-wide
        previous = threading.stack_size(DEEP_STACK)
        try:
            worker.start()
        finally:
            threading.stack_size(previous)
    worker.join()
    if failure:
        raise failure[0]
    return result[0]
