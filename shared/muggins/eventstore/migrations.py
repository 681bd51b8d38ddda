"""Versioned SQL migrations, applied once each, in order, under a lock so two
processes starting at once do not race."""

from __future__ import annotations

from pathlib import Path

import asyncpg
import structlog

from muggins.sql import migration_files

MIGRATIONS = Path(__file__).parent / "migrations"
_MIGRATION_LOCK = 7431020611

log = structlog.get_logger(__name__)


async def upgrade(pool: asyncpg.Pool) -> list[int]:
    """Apply every migration not applied yet; return the versions applied now."""
    async with pool.acquire() as connection:
        return await _upgrade(connection)


async def _upgrade(connection: asyncpg.pool.PoolConnectionProxy) -> list[int]:
    await connection.execute("SELECT pg_advisory_lock($1)", _MIGRATION_LOCK)
    try:
        await connection.execute(
            """CREATE TABLE IF NOT EXISTS schema_migrations (
                   version    integer     PRIMARY KEY,
                   name       text        NOT NULL,
                   applied_at timestamptz NOT NULL DEFAULT clock_timestamp())"""
        )
        done = {row["version"] for row in await connection.fetch(
            "SELECT version FROM schema_migrations"
        )}
        applied = []
        for version, name, path in migration_files(MIGRATIONS):
            if version in done:
                continue
            async with connection.transaction():
                await connection.execute(path.read_text())
                await connection.execute(
                    "INSERT INTO schema_migrations (version, name) VALUES ($1, $2)", version, name
                )
            log.info("migration applied", version=version, name=name)
            applied.append(version)
        return applied
    finally:
        await connection.execute("SELECT pg_advisory_unlock($1)", _MIGRATION_LOCK)


async def applied_versions(pool: asyncpg.Pool) -> list[int]:
    rows = await pool.fetch("SELECT version FROM schema_migrations ORDER BY version")
    return [row["version"] for row in rows]
