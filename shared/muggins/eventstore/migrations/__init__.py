"""Versioned SQL migrations, applied once each, in order, under a lock so two
processes starting at once do not race.

They run as the role that owns the schema (``OWNER_ROLE``); the service
connects as ``SERVICE_ROLE``, which may only do what its queries need
(migration 0008, docs/eventstore.md, "Roles")."""

from __future__ import annotations

from pathlib import Path

import asyncpg
import structlog

from muggins.eventstore.store import StoreUnavailable, create_pool
from muggins.infra.database_roles import OWNER_ROLE
from muggins.infra.sql import migration_files

MIGRATIONS = Path(__file__).parent
_MIGRATION_LOCK = 7431020611

log = structlog.get_logger(__name__)


class MigrationRefused(StoreUnavailable):
    """The database refused a migration to the role running it (the service's
    role, say): the message names the role and what to configure."""


async def upgrade(pool: asyncpg.Pool, up_to: int | None = None) -> list[int]:
    """Apply every migration not applied yet (up to version ``up_to``: a
    benchmark's "before"); return the versions applied now."""
    async with pool.acquire() as connection:
        return await _upgrade(connection, up_to)


async def upgrade_at(url: str) -> list[int]:
    """``upgrade`` over a connection of its own to ``url`` (the owner's), closed after."""
    pool = await create_pool(url, min_size=1, max_size=1)
    try:
        return await upgrade(pool)
    finally:
        await pool.close()


async def _upgrade(connection: asyncpg.pool.PoolConnectionProxy,
                   up_to: int | None = None) -> list[int]:
    await connection.execute("SELECT pg_advisory_lock($1)", _MIGRATION_LOCK)
    try:
        return await _apply_pending(connection, up_to)
    except asyncpg.InsufficientPrivilegeError as error:
        role = await connection.fetchval("SELECT current_user")
        raise MigrationRefused(
            f"the role {role} may not apply the migrations ({error}): run them as "
            f"{OWNER_ROLE} (set MUGGINS_MIGRATION_DATABASE_URL, deploy/README.md)"
        ) from error
    finally:
        await connection.execute("SELECT pg_advisory_unlock($1)", _MIGRATION_LOCK)


async def _apply_pending(connection: asyncpg.pool.PoolConnectionProxy,
                         up_to: int | None = None) -> list[int]:
    # Only the owner may create it: a database already up to date asks
    # nothing more of the service's role than reading it.
    if await connection.fetchval("SELECT to_regclass('schema_migrations')") is None:
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
        if version in done or (up_to is not None and version > up_to):
            continue
        async with connection.transaction():
            await connection.execute(path.read_text())
            await connection.execute(
                "INSERT INTO schema_migrations (version, name) VALUES ($1, $2)", version, name
            )
        log.info("migration applied", version=version, name=name)
        applied.append(version)
    return applied


async def applied_versions(pool: asyncpg.Pool) -> list[int]:
    rows = await pool.fetch("SELECT version FROM schema_migrations ORDER BY version")
    return [row["version"] for row in rows]
