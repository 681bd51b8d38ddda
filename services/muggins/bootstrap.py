"""Wiring, in one place: from Settings to running infrastructure.

``infrastructure(settings)`` starts what is not configured (embedded
PostgreSQL and NATS), connects, applies migrations, makes sure the JetStream
stream exists, starts the relay, and undoes all of it on the way out.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

import asyncpg
import structlog
from nats.aio.client import Client as NatsClient
from nats.js import JetStreamContext

from muggins.bus.jetstream import connect, ensure_stream
from muggins.bus.relay import Relay
from muggins.embedded import EmbeddedNats, EmbeddedPostgres
from muggins.eventstore.migrations import upgrade
from muggins.eventstore.store import EventStore, create_pool
from muggins.settings import Settings

log = structlog.get_logger(__name__)


@dataclass
class Infrastructure:
    settings: Settings
    database_url: str
    nats_url: str
    pool: asyncpg.Pool
    store: EventStore
    nats: NatsClient
    js: JetStreamContext
    relay: Relay | None
    embedded: list[EmbeddedPostgres | EmbeddedNats] = field(default_factory=list)


EmbeddedServer = EmbeddedPostgres | EmbeddedNats


async def start_embedded(
    settings: Settings, *, with_nats: bool = True
) -> tuple[str, str | None, list[EmbeddedServer]]:
    """URLs of the configured servers, starting embedded ones for those not configured
    (NATS only ``with_nats``)."""
    started: list[EmbeddedPostgres | EmbeddedNats] = []
    database_url = settings.database_url
    nats_url = settings.nats_url
    if database_url is None:
        postgres = EmbeddedPostgres(settings.data_path)
        database_url = await asyncio.to_thread(postgres.start)
        started.append(postgres)
        log.info("embedded PostgreSQL", url=database_url, reused=postgres.reused)
    if nats_url is None and with_nats:
        server = EmbeddedNats(settings.data_path)
        nats_url = await asyncio.to_thread(server.start)
        started.append(server)
        log.info("embedded NATS", url=nats_url, reused=server.reused)
    return database_url, nats_url, started


async def stop_embedded(servers: list[EmbeddedPostgres | EmbeddedNats]) -> None:
    """Stop the embedded servers this process started (not those ``muggins up`` left)."""
    for server in reversed(servers):
        if not server.reused:
            await asyncio.to_thread(server.stop)


@asynccontextmanager
async def event_store_only(settings: Settings) -> AsyncIterator[EventStore]:
    """The event store alone (for tools that need no bus): migrated, ready."""
    database_url, _, started = await start_embedded(settings, with_nats=False)
    try:
        pool = await create_pool(database_url)
        try:
            await upgrade(pool)
            store = EventStore(pool)
            yield store
            await store.close()
        finally:
            await pool.close()
    finally:
        await stop_embedded(started)


@asynccontextmanager
async def infrastructure(
    settings: Settings, *, relay: bool = True
) -> AsyncIterator[Infrastructure]:
    database_url, nats_url, embedded = await start_embedded(settings)
    assert nats_url is not None
    stop = asyncio.Event()
    relay_task: asyncio.Task[None] | None = None
    pool = nc = None
    try:
        pool = await create_pool(database_url)
        await upgrade(pool)
        nc = await connect(nats_url)
        js = nc.jetstream()
        await ensure_stream(js)
        store = EventStore(pool)
        the_relay = Relay(store, js) if relay else None
        if the_relay is not None:
            relay_task = asyncio.create_task(the_relay.run(stop), name="relay")
        yield Infrastructure(
            settings, database_url, nats_url, pool, store, nc, js, the_relay, embedded
        )
        await store.close()
    finally:
        stop.set()
        if relay_task is not None:
            with contextlib.suppress(Exception):
                async with asyncio.timeout(10):
                    await relay_task
        if nc is not None:
            with contextlib.suppress(Exception):
                await nc.drain()
        if pool is not None:
            await pool.close()
        await stop_embedded(embedded)
