"""The cyclic garbage collector in a process that serves players: fewer,
cheaper pauses.

Python's collector stops the event loop while it runs.  With its default
thresholds (700, 10, 10) the service at 500 tables (bench_service,
2026-12-02) ran young collections of up to 43 ms and full ones of 100-340 ms,
over a heap of about 340,000 tracked objects (sockets' tasks, and the tiles
of the games it keeps: a NamedTuple is never untracked as a plain tuple is):
the players' p99 was 320-525 ms.  With the thresholds here, young
collections run about once a second (14 ms on average), the middle
generation about once a minute, and a full collection at most every ten
minutes or so: the same run gave p99 76-78 ms.  Cyclic garbage lives longer
before it is freed (minutes, not seconds), which costs some memory, never
correctness: reference counting frees everything else at once.
"""

from __future__ import annotations

import gc

#: Allocations (net of frees) between two young collections.
YOUNG_EVERY = 20_000
#: Young collections between two of the middle generation.
MIDDLE_EVERY = 50
#: Middle collections between two full ones (Python also waits until the
#: long-lived heap has grown by a quarter).
FULL_EVERY = 10


def settle_for_serving() -> None:
    """Freeze what exists now (it lives as long as the process: no future
    collection scans it) and space the collections out."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(YOUNG_EVERY, MIDDLE_EVERY, FULL_EVERY)
