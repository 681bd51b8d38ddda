"""Wiring, in one place: from Settings to running servers and services.

* ``migrated_database(settings)``: the servers not configured are started
  (embedded PostgreSQL, and NATS if asked), the migrations are applied as
  the owner's role and a pool is made as the service's (docs/eventstore.md,
  "Roles");
* ``infrastructure(settings)``: that, plus the bus (a NATS connection that
  never stays closed), the JetStream stream and the relay.

Nothing here knows the table service: its objects are built by
muggins.tables.service on top of what this builds.  ``muggins serve``,
``muggins project``, ``muggins up`` and the tests all go through these;
each undoes what it started on the way out.
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

from muggins.bus.connection import Bus
from muggins.bus.jetstream import ensure_stream, stream_config
from muggins.bus.relay import Relay
from muggins.embedded import EmbeddedNats, EmbeddedPostgres, without_password
from muggins.eventstore.migrations import upgrade_at
from muggins.eventstore.store import EventStore, create_pool
from muggins.settings import Settings

log = structlog.get_logger(__name__)

EmbeddedServer = EmbeddedPostgres | EmbeddedNats


@dataclass
class Database:
    pool: asyncpg.Pool
    database_url: str
    #: None unless NATS was asked for.
    nats_url: str | None
    #: Migrations applied now (empty: it was up to date).
    applied: list[int]


@dataclass
class Infrastructure:
    settings: Settings
    database_url: str
    nats_url: str
    pool: asyncpg.Pool
    store: EventStore
    bus: Bus
    relay: Relay | None
    embedded: list[EmbeddedServer] = field(default_factory=list)

    @property
    def nats(self) -> NatsClient:
        """The bus's current NATS client (a new one after the bus rebuilt it)."""
        return self.bus.client

    @property
    def js(self) -> JetStreamContext:
        return self.bus.js


async def start_embedded(
    settings: Settings, *, with_nats: bool = True
) -> tuple[str, str, str | None, list[EmbeddedServer]]:
    """URLs of the configured servers (the database's twice: the service's and
    the migrations'), starting embedded ones for those not configured (NATS
    only ``with_nats``)."""
    started: list[EmbeddedServer] = []
    database_url = settings.database_url
    migration_url = settings.migration_database_url or database_url
    nats_url = settings.nats_url
    if database_url is None:
        postgres = EmbeddedPostgres(settings.data_path)
        await asyncio.to_thread(postgres.start)
        database_url, migration_url = postgres.service_url, postgres.owner_url
        started.append(postgres)
        log.info("embedded PostgreSQL", url=without_password(database_url),
                 reused=postgres.reused)
    assert migration_url is not None
    if nats_url is None and with_nats:
        server = EmbeddedNats(settings.data_path)
        nats_url = await asyncio.to_thread(server.start)
        started.append(server)
        log.info("embedded NATS", url=nats_url, reused=server.reused)
    return database_url, migration_url, nats_url, started


async def stop_embedded(servers: list[EmbeddedServer]) -> None:
    """Stop the embedded servers this process started (not those ``muggins up`` left)."""
    for server in reversed(servers):
        if not server.reused:
            await asyncio.to_thread(server.stop)


@asynccontextmanager
async def migrated_database(
    settings: Settings, *, with_nats: bool = False, keep_servers: bool = False,
) -> AsyncIterator[Database]:
    """The database, migrated, with a pool (and NATS's URL ``with_nats``);
    embedded servers this started are stopped afterwards unless ``keep_servers``."""
    database_url, migration_url, nats_url, started = await start_embedded(
        settings, with_nats=with_nats)
    try:
        applied = await upgrade_at(migration_url)
        pool = await create_pool(database_url, min_size=settings.db_pool_min,
                                 max_size=settings.db_pool_max)
        try:
            yield Database(pool, database_url, nats_url, applied)
        finally:
            await pool.close()
    finally:
        if not keep_servers:
            await stop_embedded(started)


@asynccontextmanager
async def event_store_only(settings: Settings) -> AsyncIterator[EventStore]:
    """The event store alone (for tools that need no bus): migrated, ready."""
    async with migrated_database(settings) as database:
        store = EventStore(database.pool)
        yield store
        await store.close()


@asynccontextmanager
async def infrastructure(
    settings: Settings, *, relay: bool = True
) -> AsyncIterator[Infrastructure]:
    database_url, migration_url, nats_url, embedded = await start_embedded(settings)
    assert nats_url is not None
    stop = asyncio.Event()
    relay_task: asyncio.Task[None] | None = None
    pool: asyncpg.Pool | None = None
    bus: Bus | None = None
    try:
        await upgrade_at(migration_url)
        pool = await create_pool(database_url, min_size=settings.db_pool_min,
                                 max_size=settings.db_pool_max)
        bus = Bus(nats_url)
        await bus.start()
        await ensure_stream(bus.js, stream_config(settings))
        store = EventStore(pool)
        connected = bus
        the_relay = (Relay(store, lambda: connected.js,
                           is_connected=lambda: connected.is_connected) if relay else None)
        if the_relay is not None:
            relay_task = asyncio.create_task(the_relay.run(stop), name="relay")
        yield Infrastructure(settings, database_url, nats_url, pool, store, bus, the_relay,
                             embedded)
        await store.close()
    finally:
        stop.set()
        if relay_task is not None:
            with contextlib.suppress(Exception):
                async with asyncio.timeout(10):
                    await relay_task
        if bus is not None:
            await bus.close()
        if pool is not None:
            await pool.close()
        await stop_embedded(embedded)
