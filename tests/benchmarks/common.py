"""What the benchmarks share: a throw-away embedded event store, game storage,
WebSocket reading and percentiles."""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import msgspec
from websockets.asyncio.client import ClientConnection

from muggins.bootstrap import event_store_only
from muggins.domain.codec import encoded_all
from muggins.eventstore.store import EventStore
from muggins.infra.embedded import EmbeddedNats, EmbeddedPostgres
from muggins.infra.settings import Settings
from muggins.rules.events import Event

#: ``python -m tests.benchmarks.bench_NAME --smoke``: tiny sizes, the same code
#: path, no speed bars judged (the test suite runs every benchmark so).
SMOKE = "--smoke" in sys.argv[1:]


def bench_setting(name: str, default: str, smoke: str) -> str:
    """MUGGINS_BENCH_<NAME> from the environment, else ``default``; at smoke
    size always ``smoke`` (a size left in the environment does not apply)."""
    return smoke if SMOKE else os.environ.get(f"MUGGINS_BENCH_{name}", default)


@contextmanager
def bench_servers() -> Iterator[tuple[Path, dict[str, str]]]:
    """Fresh embedded PostgreSQL and NATS in a scratch folder, stopped and
    removed afterwards: the folder (for the service processes' logs) and the
    environment that points ``muggins serve`` at them."""
    with tempfile.TemporaryDirectory(prefix="muggins-bench-") as scratch:
        folder = Path(scratch)
        postgres = EmbeddedPostgres(folder)
        nats = EmbeddedNats(folder)
        database_url, nats_url = postgres.start(), nats.start()
        try:
            yield folder, {**os.environ, "MUGGINS_DATABASE_URL": database_url,
                           "MUGGINS_NATS_URL": nats_url, "MUGGINS_LOG_LEVEL": "warning",
                           "MUGGINS_LOG_FORMAT": "json"}
        finally:
            nats.stop()
            postgres.stop()


@asynccontextmanager
async def scratch_store() -> AsyncIterator[EventStore]:
    """An event store on a fresh embedded PostgreSQL, removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="muggins-bench-") as folder:
        settings = Settings(data_dir=folder, log_level="warning")
        async with event_store_only(settings) as store:
            yield store


async def store_games(store: EventStore, games: Sequence[list[Event]], prefix: str,
                      chunk: int = 400) -> None:
    """Each game as stream PREFIX<n>-g1, 16 games at a time, ``chunk`` events an append."""

    async def put(index: int, events: list[Event]) -> None:
        for start in range(0, len(events), chunk):
            await store.append(f"{prefix}{index}-g1", start,
                               encoded_all(events[start : start + chunk]), actor="system")

    for first in range(0, len(games), 16):
        await asyncio.gather(*(put(i, games[i])
                               for i in range(first, min(first + 16, len(games)))))


async def messages_until(ws: ClientConnection, until: float) -> AsyncIterator[dict[str, Any]]:
    """Each message ``ws`` receives, decoded, until the monotonic clock passes ``until``."""
    decode = msgspec.json.decode
    while time.monotonic() < until:
        try:
            raw = await asyncio.wait_for(ws.recv(), max(0.1, until - time.monotonic()))
        except TimeoutError:
            return
        message: dict[str, Any] = decode(raw)
        yield message


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] if ordered else 0.0
