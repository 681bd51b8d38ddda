"""The store and the command line as the replay tests use them
(tests/replays/): run ``muggins`` in a subprocess against a database, find
the first version of an event type in a stream, and tamper with stored events
behind the application's back as an attacker with superuser rights could."""

from __future__ import annotations

import os
import subprocess
import sys

import asyncpg


def muggins(*args: str, database_url: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "MUGGINS_DATABASE_URL": database_url, "MUGGINS_LOG_LEVEL": "warning"}
    return subprocess.run(
        [sys.executable, "-m", "muggins.cli", *args],
        capture_output=True, text=True, env=env, timeout=120, check=False,
    )


async def tamper(pool: asyncpg.Pool, sql: str, *args: object) -> None:
    """Change the store behind the application's back, as an attacker with the
    database's superuser rights could (the triggers stop everyone else)."""
    async with pool.acquire() as connection, connection.transaction():
        await connection.execute("ALTER TABLE events DISABLE TRIGGER events_append_only_rows")
        await connection.execute(sql, *args)
        await connection.execute("ALTER TABLE events ENABLE TRIGGER events_append_only_rows")


async def first_version(pool: asyncpg.Pool, table: str, event_type: str, extra: str = "") -> int:
    version = await pool.fetchval(
        f"SELECT min(stream_version) FROM events WHERE stream_id = $1 AND event_type = $2 {extra}",
        table, event_type,
    )
    assert version is not None
    return int(version)
