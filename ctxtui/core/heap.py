"""Keeping an open session out of the cyclic garbage collector's way.

A 100k-message session is millions of objects that stay alive as long as it is open. CPython's
full collections walk every one of them, each time the old generation has grown by a quarter:
0.25–1 s on a 2-core machine, holding the interpreter lock, so a replay or a recount running in a
worker froze the app's keys for that long (a timeline key took 350 ms) and a headless replay
spent a fifth of its time there. Filing the open session as permanent (``gc.freeze``) takes it
out of those walks.

Nothing leaks: frozen objects are still freed by reference counting when the session is
dropped (a session holds no reference cycles), and the next ``keep_out_of_collections`` hands
the frozen objects back to the collector and collects once before freezing again, so a cycle
that was garbage at the last open is collected at the next one (a full walk, once per open;
the first open in a process has nothing frozen to hand back and skips it).
"""

from __future__ import annotations

import gc


def keep_out_of_collections() -> None:
    """File every object alive now (the session just opened among them) as permanent.

    Called by a shell once a session is open; the shells own the process, a library call would
    not. What was frozen before goes back to the collector and is collected first.
    """
    if gc.get_freeze_count():
        gc.unfreeze()
        gc.collect()
    gc.freeze()
