"""Real PostgreSQL and NATS for the integration tests: started once per test
session from the same embedded packages the service uses; each test gets a
fresh database and an empty JetStream stream."""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import TypeVar

import asyncpg
import pytest
from nats.aio.client import Client as NatsClient
from nats.js import JetStreamContext

from muggins.bus.jetstream import STREAM_NAME, connect, ensure_stream
from muggins.embedded import EmbeddedNats, EmbeddedPostgres
from muggins.eventstore.migrations import upgrade
from muggins.eventstore.store import EventStore, create_pool

Server = TypeVar("Server", EmbeddedPostgres, EmbeddedNats)


@pytest.fixture(scope="session")
def servers_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("servers")


def _running(server: Server) -> Iterator[Server]:
    """The server, started, for the session; stopped after it."""
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def postgres(servers_dir: Path) -> Iterator[EmbeddedPostgres]:
    yield from _running(EmbeddedPostgres(servers_dir / "pg"))


@pytest.fixture(scope="session")
def nats_server(servers_dir: Path) -> Iterator[EmbeddedNats]:
    yield from _running(EmbeddedNats(servers_dir / "nats"))


@pytest.fixture
async def database_url(postgres: EmbeddedPostgres) -> AsyncIterator[str]:
    name = f"t_{uuid.uuid4().hex[:12]}"
    admin = await asyncpg.connect(postgres.url.rsplit("/", 1)[0] + "/postgres")
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
        yield postgres.url.rsplit("/", 1)[0] + f"/{name}"
        await admin.execute(f'DROP DATABASE "{name}" WITH (FORCE)')
    finally:
        await admin.close()


@pytest.fixture
async def pool(database_url: str) -> AsyncIterator[asyncpg.Pool]:
    the_pool = await create_pool(database_url, max_size=24)
    await upgrade(the_pool)
    yield the_pool
    await the_pool.close()


@pytest.fixture
async def store(pool: asyncpg.Pool) -> AsyncIterator[EventStore]:
    the_store = EventStore(pool)
    yield the_store
    await the_store.close()


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
