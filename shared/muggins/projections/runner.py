"""Keeps the table-views read model up to date, exactly once per event.

Each page of events is folded in memory and written, with the checkpoint,
in one transaction that first locks the checkpoint row and checks it still
says where the page starts.  So a page delivered twice, a runner restarted
mid-page or killed outright, or two runners at once, all leave the same read
model as one clean pass: an event at or below the checkpoint is never
applied again.

The event store is the source: the runner reads it after its checkpoint.
JetStream (a durable consumer on the public subjects) only rings the bell
when something new is there; when the bus is quiet or has lost messages, a
poll of the store covers it.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import asyncpg
import msgspec
import structlog
from nats.js import JetStreamContext
from prometheus_client import Counter, Gauge

from muggins.eventstore.store import EventStore, RecordedEvent
from muggins.projections.table_views import NAME, TableViewDocument, apply
from muggins.rules.game import GameState
from muggins.sql import load_queries

QUERIES = load_queries(Path(__file__).parent / "queries.sql")
READER = f"projector:{NAME}"
log = structlog.get_logger(__name__)

LAG = Gauge("muggins_projector_lag_events", "Events stored but not yet projected",
            ["projector"])
APPLIED = Counter("muggins_projector_events_total", "Events projected", ["projector"])

_encode = msgspec.json.Encoder().encode
_decode_state = msgspec.json.Decoder(GameState).decode


class TableViewsRunner:
    def __init__(self, pool: asyncpg.Pool, store: EventStore, page_size: int = 2000) -> None:
        self.pool = pool
        self.store = store
        self.page_size = page_size

    async def checkpoint(self) -> int:
        return await self.store.checkpoint(READER)

    async def rebuild(self) -> None:
        """Drop the read model and its checkpoint: the next catch-up starts at event 0."""
        async with self.pool.acquire() as connection, connection.transaction():
            await connection.execute(QUERIES["forget_everything"])
            await connection.execute(QUERIES["reset_checkpoint"], READER)

    async def catch_up(self, on_page: Callable[[int, int], None] | None = None) -> int:
        """Project everything after the checkpoint; return how many events."""
        applied = 0
        while True:
            after = await self.checkpoint()
            page = await self.store.read_all(after, self.page_size)
            if not page:
                await self.report_lag()
                return applied
            if await self.apply_page(after, page):
                applied += len(page)
                APPLIED.labels(NAME).inc(len(page))
            if on_page is not None:
                on_page(applied, page[-1].position)

    async def apply_page(self, after: int, page: list[RecordedEvent]) -> bool:
        """Fold one page and write it with the checkpoint; False if another
        runner got there first (nothing is written then)."""
        streams = sorted({event.stream_id for event in page})
        documents: dict[str, TableViewDocument | None] = dict.fromkeys(streams)
        for row in await self.pool.fetch(QUERIES["load_documents"], streams):
            documents[row[0]] = TableViewDocument(
                row[0], row[1], row[2], row[3], row[4], _decode_state(row[5])
            )
        for event in page:
            document = documents[event.stream_id]
            if document is not None and event.stream_version <= document.version:
                continue  # seen already (a replay): nothing to do
            documents[event.stream_id] = apply(document, event)
        changed = [d for d in documents.values() if d is not None]
        async with self.pool.acquire() as connection, connection.transaction():
            await connection.execute(QUERIES["create_checkpoint"], READER)
            current = await connection.fetchval(QUERIES["lock_checkpoint"], READER)
            if current != after:
                return False
            await connection.execute(
                QUERIES["save_documents"],
                [d.stream_id for d in changed],
                [d.table_id for d in changed],
                [d.game for d in changed],
                [d.version for d in changed],
                [d.position for d in changed],
                [_encode(d.state).decode() for d in changed],
                [_encode(d.public_view).decode() for d in changed],
                [d.state.phase for d in changed],
            )
            await connection.execute(QUERIES["move_checkpoint"], READER, page[-1].position)
        return True

    async def report_lag(self) -> int:
        lag = max(0, await self.store.head_position() - await self.checkpoint())
        LAG.labels(NAME).set(lag)
        return lag

    async def follow(self, stop: asyncio.Event, js: JetStreamContext | None = None,
                     poll_interval: float = 1.0) -> None:
        """Catch up, then keep up until ``stop``: woken by the bus, polling the store."""
        subscription = None
        if js is not None:
            with contextlib.suppress(Exception):
                subscription = await js.pull_subscribe(
                    "muggins.table.*.public", durable=f"projector-{NAME}"
                )
        try:
            await self._keep_up(stop, subscription, poll_interval)
        finally:
            if subscription is not None:
                with contextlib.suppress(Exception):
                    await subscription.unsubscribe()  # or a drain would wait for it

    async def _keep_up(self, stop: asyncio.Event, subscription: Any,
                       poll_interval: float) -> None:
        while not stop.is_set():
            try:
                await self.catch_up()
            except (OSError, asyncpg.PostgresError) as error:
                log.warning("projector could not catch up; retrying", error=str(error))
            if subscription is None:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), poll_interval)
                continue
            try:
                messages = await subscription.fetch(500, timeout=poll_interval)
            except Exception:  # a timeout or a bus outage: the store poll covers both
                continue
            for message in messages:
                with contextlib.suppress(Exception):
                    await message.ack()
