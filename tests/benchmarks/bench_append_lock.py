"""Where the event store's single append lock saturates.

Every append takes one PostgreSQL transaction-scoped advisory lock to hand
out gap-free global positions (docs/eventstore.md), so appends from every
process queue on it.  This measures appends a second (and events a second)
with 1, 16 and 64 concurrent writers, each appending the commands of real
self-played games to its own stream with the due row the table service
writes beside every move; and, for scale, plain single-row INSERTs (no
order, no lock) at 64 connections.  deploy/README.md ("Past one append
lock") turns the figures into tables and says how the design would go past
them.

    python3 deploy/dev.py bench append_lock

``--smoke``: a fraction of a second a run, the same path.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from muggins.domain.codec import encoded_all
from muggins.eventstore.migrations import upgrade
from muggins.eventstore.records import Due
from muggins.eventstore.store import EventStore, create_pool
from muggins.infra.embedded import EmbeddedPostgres
from muggins.rules.events import Event
from tests.benchmarks.bench_eventstore import fresh_database, move_batches, plain_insert_rate
from tests.benchmarks.common import percentile

SECONDS = float(os.environ.get("MUGGINS_BENCH_SECONDS", "10"))
WRITERS = (1, 16, 64)


async def append_rate(url: str, batches: list[list[Event]], writers: int
                      ) -> tuple[float, float, list[float]]:
    """(appends/s, events/s, each append's milliseconds) with ``writers`` at once."""
    pool = await create_pool(url, max_size=writers + 2)
    await upgrade(pool)
    store = EventStore(pool)
    deadline = time.perf_counter() + SECONDS
    appends = events = 0
    latencies: list[float] = []

    async def writer(index: int) -> None:
        nonlocal appends, events
        round_number = 0
        while time.perf_counter() < deadline:
            table = f"w{index}r{round_number}"
            stream, version = f"{table}-g1", 0
            for batch in batches:
                if time.perf_counter() >= deadline:
                    return
                started = time.perf_counter()
                await store.append(stream, version, encoded_all(batch),
                                   actor="system", due=Due(table, 1.0))
                latencies.append((time.perf_counter() - started) * 1000)
                version += len(batch)
                appends += 1
                events += len(batch)
            round_number += 1

    started = time.perf_counter()
    await asyncio.gather(*(writer(i) for i in range(writers)))
    elapsed = time.perf_counter() - started
    await store.close()
    await pool.close()
    return appends / elapsed, events / elapsed, latencies


async def main(smoke: bool = False) -> int:
    global SECONDS
    if smoke:
        SECONDS = 0.5
    batches = move_batches(2 if smoke else 20)
    sizes = [len(b) for b in batches]
    print(f"{len(batches)} commands of self-played games, {statistics.mean(sizes):.2f} events "
          f"each; {SECONDS:g} s a run", flush=True)
    rows = []
    with tempfile.TemporaryDirectory(prefix="muggins-bench-lock-") as folder:
        postgres = EmbeddedPostgres(Path(folder))
        admin = postgres.start().rsplit("/", 1)[0] + "/postgres"
        try:
            for writers in WRITERS:
                url = await fresh_database(admin, f"lock{writers}")
                appends, events, latencies = await append_rate(url, batches, writers)
                rows.append((writers, appends, events, percentile(latencies, 0.5),
                             percentile(latencies, 0.99)))
                print(f"  {writers:3d} writers: {appends:8,.0f} appends/s  {events:8,.0f} events/s"
                      f"  append p50 {rows[-1][3]:6.1f} ms  p99 {rows[-1][4]:6.1f} ms",
                      flush=True)
            # As long as the runs it is compared with.
            plain = await plain_insert_rate(await fresh_database(admin, "plain"), 64, SECONDS)
        finally:
            postgres.stop()
    print(f"  plain INSERT, no order, 64 connections: {plain:8,.0f} rows/s")
    best = max(row[1] for row in rows)
    print(f"saturation: {best:,.0f} appends/s (one command, a move, is one append); at about "
          f"one move a second a table, that is about {best:,.0f} tables playing at once on "
          f"this machine, before the other work of a move")
    if smoke:
        assert all(row[1] > 0 for row in rows), "a run appended nothing"
        print("smoke run: ok")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main(smoke="--smoke" in sys.argv)))
