"""Keeping a large open session out of the cyclic garbage collector's way.

A large session is millions of long-lived objects, and every full collection walks them all
while holding the interpreter lock, so a worker's collection stalls the app's keys. Filing the
open session as permanent (``gc.freeze``) takes it out of those walks.

Frozen objects are still freed by reference counting (a session holds no cycles). The next
open unfreezes them and collects once before freezing again; a small session is not frozen.
"""

from __future__ import annotations

import gc

FREEZE_FROM = 10_000
"""Messages from which an open session is frozen: below it, full walks are short."""


def keep_out_of_collections(messages: int) -> None:
    """File every object alive now as permanent when the session just opened is large; called
    by a shell, which owns the process, as a library would not."""
    refreeze = gc.get_freeze_count() > 0
    gc.unfreeze()
    if messages < FREEZE_FROM:
        return
    if refreeze:
        gc.collect()
    gc.freeze()
