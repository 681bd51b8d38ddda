"""Real PostgreSQL and NATS for every test that needs them (a pytest plugin:
tests/conftest.py): started once per test session from the same embedded
packages the service uses; each test gets a fresh database (a copy of one
migrated once) and an empty JetStream stream.

PostgreSQL has the roles a deployment has (docs/eventstore.md, "Roles"):
the migrations run as the owner role, the event store and the service
connect as the service's role, and the superuser's URL is left to tests
that inspect or tamper with the database behind the service's back."""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import TypeVar
from urllib.parse import quote, urlsplit

import asyncpg
import pytest
from nats.aio.client import Client as NatsClient
from nats.js import JetStreamContext

from muggins.bus.jetstream import STREAM_NAME, connect, ensure_stream
from muggins.eventstore.migrations import upgrade_at
from muggins.eventstore.store import EventStore, create_pool
from muggins.infra.database_roles import OWNER_ROLE, SERVICE_ROLE
from muggins.infra.embedded import PG_SUPERUSER, EmbeddedNats, EmbeddedPostgres

Server = TypeVar("Server", EmbeddedPostgres, EmbeddedNats)


@pytest.fixture(scope="session")
def servers_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("servers")


def _running(server: Server) -> Iterator[Server]:
    """The server, started, for the session; stopped after it."""
    server.start()
    yield server
    server.stop()


#: The session's PostgreSQL servers by port, for ``role_url``.
_POSTGRES: dict[int, EmbeddedPostgres] = {}


class WorkerPostgres(EmbeddedPostgres):
    """The worker's PostgreSQL, its URLs through its Unix socket: a query
    and its answer then skip the kernel's loopback TCP both ways.
    asyncpg's writes of queries to their sockets were a fifth of the
    workers' busy samples over a whole run (py-spy, 2026-12-05);
    tests/service, tests/integration and tests/projections, in three
    workers back to back, took 75.5 and 77.6 core-seconds through the
    socket against 83.8 and 83.4 through TCP.  The URL's host is the
    socket's folder, percent-encoded, as libpq and asyncpg read it, and
    its port stays (``role_url`` finds the server by it).  Everything that
    connects to it (the service, the fault tests' processes, the tools)
    does so through asyncpg, as a deployment does, but over the socket; the
    tests whose PostgreSQL is their own (the local cluster's, a server
    started late, ``dev.py run``) keep TCP.  Without the socket (not there,
    or its folder not readable by this user) the URL is TCP's."""

    @property
    def url_host(self) -> str:
        socket = self.unix_socket
        try:
            there = socket.exists()
        except OSError:
            there = False
        return quote(str(socket.parent), safe="") if there else super().url_host


@pytest.fixture(scope="session")
def postgres(servers_dir: Path) -> Iterator[EmbeddedPostgres]:
    for server in _running(WorkerPostgres(servers_dir / "pg")):
        assert server.port is not None
        _POSTGRES[server.port] = server
        yield server
        del _POSTGRES[server.port]


def role_url(url: str, role: str) -> str:
    """The database of ``url`` (on this session's PostgreSQL) as ``role``."""
    parts = urlsplit(url)
    assert parts.port is not None
    return _POSTGRES[parts.port].url_for(role, parts.path.lstrip("/"))


@pytest.fixture(scope="session")
def nats_server(servers_dir: Path) -> Iterator[EmbeddedNats]:
    yield from _running(EmbeddedNats(servers_dir / "nats"))


#: The database every test's own is copied from: migrated once per session.
MIGRATED_TEMPLATE = "t_migrated_template"


@pytest.fixture(scope="session")
def migrated_template(postgres: EmbeddedPostgres) -> str:
    """A database migrated as a deployment migrates it (as the owner role),
    once for the session: copying it is cheaper than migrating for each test."""
    async def build() -> None:
        admin = await asyncpg.connect(postgres.url_for(PG_SUPERUSER, "postgres"))
        try:
            await admin.execute(f'CREATE DATABASE "{MIGRATED_TEMPLATE}" OWNER {OWNER_ROLE}')
        finally:
            await admin.close()
        await upgrade_at(postgres.url_for(OWNER_ROLE, MIGRATED_TEMPLATE))

    asyncio.run(build())
    return MIGRATED_TEMPLATE


@contextlib.asynccontextmanager
async def fresh_database(postgres: EmbeddedPostgres, template: str | None
                          ) -> AsyncIterator[str]:
    """A new database owned by the owner role (a copy of ``template``, or
    empty), dropped after: the superuser's URL."""
    name = f"t_{uuid.uuid4().hex[:12]}"
    # FILE_COPY: the template's files copied as they are, not written again
    # through the WAL as WAL_LOG (the default since PostgreSQL 15) does: a
    # copy and its drop took 14 ms of the server's CPU against 23-32
    # (PostgreSQL 18, the 8 MB template, 2026-12-05), about 600 times a run.  Its checkpoints cost
    # little on a test server, whose other databases are a test's own.
    copied = f' TEMPLATE "{template}" STRATEGY FILE_COPY' if template else ""
    admin = await asyncpg.connect(postgres.url_for(PG_SUPERUSER, "postgres"))
    try:
        await admin.execute(f'CREATE DATABASE "{name}"{copied} OWNER {OWNER_ROLE}')
        if template:
            # A copy takes the template's contents, not its own privileges
            # (migration 0008 revokes TEMPORARY from PUBLIC, grants CONNECT).
            await admin.execute("UPDATE pg_database SET datacl = (SELECT datacl FROM "
                                "pg_database WHERE datname = $1) WHERE datname = $2",
                                template, name)
        yield postgres.url_for(PG_SUPERUSER, name)
        await admin.execute(f'DROP DATABASE "{name}" WITH (FORCE)')
    finally:
        await admin.close()


@pytest.fixture
async def database_url(postgres: EmbeddedPostgres, migrated_template: str
                       ) -> AsyncIterator[str]:
    """A fresh database, migrated (a copy of the session's template): the
    superuser's URL (``role_url`` gives the others)."""
    async with fresh_database(postgres, migrated_template) as url:
        yield url


@pytest.fixture
async def blank_database_url(postgres: EmbeddedPostgres) -> AsyncIterator[str]:
    """A fresh database not migrated yet, for the tests of the migrations."""
    async with fresh_database(postgres, None) as url:
        yield url


@pytest.fixture
def migration_database_url(database_url: str) -> str:
    """The owner role's URL of ``database_url``: the migrations run with it."""
    return role_url(database_url, OWNER_ROLE)


@pytest.fixture
def service_database_url(pool: asyncpg.Pool, database_url: str) -> str:
    """The service role's URL of ``database_url``, migrated."""
    return role_url(database_url, SERVICE_ROLE)


@pytest.fixture
async def pool(database_url: str) -> AsyncIterator[asyncpg.Pool]:
    """The database, migrated; a pool of the superuser's."""
    the_pool = await create_pool(database_url, max_size=24)
    yield the_pool
    await the_pool.close()


@pytest.fixture
async def store(pool: asyncpg.Pool, database_url: str) -> AsyncIterator[EventStore]:
    """The event store as the service uses it: connected as the service's role."""
    service_pool = await create_pool(role_url(database_url, SERVICE_ROLE), max_size=24)
    the_store = EventStore(service_pool)
    yield the_store
    await the_store.close()
    await service_pool.close()


@pytest.fixture
async def nats_client(nats_server: EmbeddedNats) -> AsyncIterator[NatsClient]:
    client = await connect(nats_server.url)
    yield client
    await client.drain()


@pytest.fixture
async def js(nats_client: NatsClient) -> JetStreamContext:
    """JetStream with the muggins stream, emptied for this test."""
    context = nats_client.jetstream()
    with contextlib.suppress(Exception):  # not there yet
        await context.delete_stream(STREAM_NAME)
    await ensure_stream(context)
    return context
