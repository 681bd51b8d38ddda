"""The tests' PostgreSQL is reached through its Unix socket
(tests.support.servers.WorkerPostgres): a query skips the kernel's loopback
TCP both ways, about a tenth of the server tests' CPU.  Without the socket,
the URL is TCP's."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

import asyncpg

from muggins.infra.database_roles import SERVICE_ROLE
from muggins.infra.embedded import EmbeddedPostgres
from tests.support.servers import WorkerPostgres, role_url


async def test_every_role_connects_through_the_socket(database_url: str) -> None:
    for url in (database_url, role_url(database_url, SERVICE_ROLE)):
        connection = await asyncpg.connect(url)
        try:
            # No client address: a Unix socket's connection has none.
            assert await connection.fetchval("SELECT inet_client_addr()") is None, url
            assert await connection.fetchval("SELECT current_user") == urlsplit(url).username
        finally:
            await connection.close()


def test_without_its_socket_the_url_is_tcps(postgres: EmbeddedPostgres, tmp_path: Path) -> None:
    assert isinstance(postgres, WorkerPostgres)
    elsewhere = WorkerPostgres(tmp_path)  # a server's folder with no socket in it
    elsewhere.port, elsewhere.passwords = postgres.port, postgres.passwords
    assert urlsplit(elsewhere.url).hostname == "127.0.0.1"
    assert urlsplit(postgres.url).hostname != "127.0.0.1"
