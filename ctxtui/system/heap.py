"""Keeping a large open session out of the cyclic garbage collector's way.

A 100k-message session is millions of objects that stay alive as long as it is open. CPython's
full collections walk every one of them, each time the old generation has grown by a quarter:
0.25–1 s on a 2-core machine, holding the interpreter lock, so a replay or a recount running in a
worker froze the app's keys for that long (a timeline key took 350 ms) and a headless replay
spent a fifth of its time there. Filing the open session as permanent (``gc.freeze``) takes it
out of those walks.

Nothing leaks: frozen objects are still freed by reference counting when the session is
dropped (a session holds no reference cycles). What an earlier open froze is handed back to the
collector at the next open; before freezing again then, one full collection clears the garbage
that would otherwise be frozen with it (once per open, and only after an earlier freeze: a
command line loads once and skips it). A small session is not frozen at all: its walks are short,
and a full collection per open would cost more than it saves (it did in the test suite, which
opens hundreds of small sessions in one process).
"""

from __future__ import annotations

import gc

FREEZE_FROM = 10_000
"""Messages from which an open session is frozen: a full walk of 10k messages takes ~50 ms."""


def keep_out_of_collections(messages: int) -> None:
    """File every object alive now as permanent when the session just opened is large.

    Called by a shell once a session of ``messages`` messages is open; the shells own the
    process, a library call would not.
    """
    refreeze = gc.get_freeze_count() > 0
    gc.unfreeze()
    if messages < FREEZE_FROM:
        return
    if refreeze:
        gc.collect()
    gc.freeze()
