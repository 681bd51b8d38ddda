"""Wiring, in one place: from Settings to running servers and services.

* ``migrated_database(settings)``: the servers not configured are started
  (embedded PostgreSQL, and NATS if asked), the migrations are applied as
  the owner's role and a pool is made as the service's (docs/eventstore.md,
  "Roles");
* ``infrastructure(settings)``: that, plus the bus (a NATS connection that
  never stays closed), the JetStream stream and the relay; configured
  servers that are not ready yet are waited for (see there).

Nothing here knows the table service: its objects are built by
muggins.tables.service on top of what this builds.  ``muggins serve``,
``muggins project``, ``muggins up`` and the tests all go through these;
each undoes what it started on the way out.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar

import asyncpg
import structlog

from muggins.domain.codec import public_payload
from muggins.domain.streams import BELL_SUBJECT
from muggins.eventstore.migrations import upgrade_at
from muggins.eventstore.store import EventStore, create_pool, store_down
from muggins.infra.background import BackgroundTasks
from muggins.infra.embedded import EmbeddedNats, EmbeddedPostgres, without_password
from muggins.infra.logs import log_context
from muggins.infra.retry import Retry, Transient
from muggins.infra.settings import Settings

if TYPE_CHECKING:
    # The bus is imported where ``infrastructure`` builds it: the tools that
    # need only the database (``muggins replay``, ``dispute``, ``db``) would
    # otherwise import NATS's client and aiohttp at every start: importing
    # muggins.cli took 0.54 s before, 0.27 s after (2026-12-03).
    from nats.aio.client import Client as NatsClient
    from nats.js import JetStreamContext

    from muggins.bus.connection import Bus
    from muggins.bus.relay import Relay

log = structlog.get_logger(__name__)

EmbeddedServer = EmbeddedPostgres | EmbeddedNats
Made = TypeVar("Made")
#: Seconds one attempt to reach NATS at start may take (a cluster's servers
#: tried in turn) before it is logged and tried again after a pause.
NATS_ATTEMPT = 5.0
#: Told what a starting process waits for now ("PostgreSQL at db:5432
#: (ConnectionRefusedError ...)"), and None once it waits for nothing.
Waiting = Callable[[str | None], None]


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
    #: The process's background loops (the relay, the bus's watchdog, and
    #: what the table service adds): one that ends by an error is kept here.
    tasks: BackgroundTasks = field(default_factory=BackgroundTasks)

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
    settings: Settings, *, relay: bool = True, stop: asyncio.Event | None = None,
    waiting: Waiting | None = None,
) -> AsyncIterator[Infrastructure]:
    """The servers, pool, bus, stream and relay, until the block ends.

    A configured server that is not ready (PostgreSQL starting or away,
    NATS away, the stream without a leader while a NATS cluster elects
    one) is waited for, for ever, with growing pauses and a warning each
    time (muggins.infra.retry, "startup"): a process started before its servers
    comes up when they do.  ``waiting`` is told what it waits for;
    ``stop`` ends the wait (muggins.infra.retry.Stopped).  A failure that no
    waiting mends (a refused password, a migration the role may not run,
    a stream configuration JetStream refuses) is raised at once.
    """
    from muggins.bus.connection import Bus
    from muggins.bus.jetstream import bus_down, ensure_stream, stream_config
    from muggins.bus.relay import Relay

    stop = stop or asyncio.Event()
    tell: Waiting = waiting or (lambda _: None)
    database_url, migration_url, nats_url, embedded = await start_embedded(settings)
    assert nats_url is not None
    tasks = BackgroundTasks()
    relay_stop = asyncio.Event()
    relay_task: asyncio.Task[None] | None = None
    pool: asyncpg.Pool | None = None
    bus: Bus | None = None
    try:
        postgres = f"PostgreSQL at {_where(database_url)}"
        await _wait_for(postgres, lambda: upgrade_at(migration_url), store_down, stop, tell)
        pool = await _wait_for(postgres, lambda: create_pool(
            database_url, min_size=settings.db_pool_min, max_size=settings.db_pool_max),
            store_down, stop, tell)
        bus = connected = Bus(nats_url, tasks=tasks)
        await _wait_for(f"NATS at {_where(nats_url)}",
                        lambda: connected.start(timeout=NATS_ATTEMPT), bus_down, stop, tell)
        await _wait_for(f"jetstream stream {settings.stream_name} (no leader yet?)",
                        lambda: ensure_stream(connected.js, stream_config(settings)),
                        bus_down, stop, tell)
        tell(None)
        store = EventStore(pool)
        the_relay = (Relay(store, lambda: connected.js, public_payload,
                           is_connected=lambda: connected.is_connected,
                           bell=lambda: connected.publish(BELL_SUBJECT, b""))
                     if relay else None)
        if the_relay is not None:
            relay_task = tasks.start("relay", the_relay.run(relay_stop))
        yield Infrastructure(settings, database_url, nats_url, pool, store, bus, the_relay,
                             embedded, tasks)
        await store.close()
    finally:
        relay_stop.set()
        if relay_task is not None:
            with contextlib.suppress(Exception):
                async with asyncio.timeout(10):
                    await relay_task
        if bus is not None:
            await bus.close()
        if pool is not None:
            await pool.close()
        await stop_embedded(embedded)


async def _wait_for(what: str, make: Callable[[], Awaitable[Made]], transient: Transient,
                    stop: asyncio.Event, tell: Waiting) -> Made:
    """``make()`` once ``what`` is ready: tried again after each failure that
    passes, ``tell`` hearing what it waits for and the last failure."""
    tell(what)

    def failed(error: BaseException) -> None:
        tell(f"{what}: {error}" if str(error) else f"{what}: {error!r}")

    with log_context(waiting_for=what):
        return await Retry("startup", transient, stop=stop, on_failure=failed,
                           message=f"waiting for {what}").call(make)


def _where(url: str) -> str:
    """A server's address for a log line or /readyz: no user, no password."""
    return ",".join(part.rpartition("@")[2] for part in url.split(","))
