"""What the benchmarks share: a throw-away embedded event store, game storage
and percentiles."""

from __future__ import annotations

import asyncio
import tempfile
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path

from muggins.embedded import EmbeddedPostgres
from muggins.eventstore.migrations import upgrade
from muggins.eventstore.store import EventStore, create_pool
from muggins.rules.events import Event


@asynccontextmanager
async def scratch_store(max_connections: int = 20) -> AsyncIterator[EventStore]:
    """An event store on a fresh embedded PostgreSQL, removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="muggins-bench-") as folder:
        postgres = EmbeddedPostgres(Path(folder))
        url = postgres.start()
        try:
            pool = await create_pool(url, max_size=max_connections)
            try:
                await upgrade(pool)
                store = EventStore(pool)
                yield store
                await store.close()
            finally:
                await pool.close()
        finally:
            postgres.stop()


async def store_games(store: EventStore, games: Sequence[list[Event]], prefix: str,
                      chunk: int = 400) -> None:
    """Each game as stream PREFIX<n>-g1, 16 games at a time, ``chunk`` events an append."""

    async def put(index: int, events: list[Event]) -> None:
        for start in range(0, len(events), chunk):
            await store.append(f"{prefix}{index}-g1", start, events[start : start + chunk],
                               actor="system")

    for first in range(0, len(games), 16):
        await asyncio.gather(*(put(i, games[i])
                               for i in range(first, min(first + 16, len(games)))))


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] if ordered else 0.0
