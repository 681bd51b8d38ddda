"""Least privilege (migration 0008, docs/eventstore.md, "Roles"): the
service's role reads and appends events and can do nothing else to them, nor
get round the append-only triggers; it can do everything the service does;
and the embedded server lets no role in without its password, a data
directory set up before the roles included."""

from __future__ import annotations

import re
import stat
import subprocess
from collections.abc import AsyncIterator
from pathlib import Path

import asyncpg
import pytest

from muggins.domain.codec import encoded_all
from muggins.eventstore.migrations import (
    MIGRATIONS,
    MigrationRefused,
    applied_versions,
    upgrade_at,
)
from muggins.eventstore.records import Due
from muggins.eventstore.store import EventStore, create_pool
from muggins.infra.database_roles import OWNER_ROLE, SERVICE_ROLE
from muggins.infra.embedded import PG_SUPERUSER, EmbeddedPostgres, free_port
from muggins.infra.sql import load_queries, migration_files
from muggins.projections.read_models import PROJECTIONS
from muggins.projections.runner import ProjectorRunner
from muggins.rules.events import PointsScored
from tests.replays.games import store_game

#: Every named query the service runs (the event store's, the table service's, the projectors').
QUERY_FILES = [
    MIGRATIONS.parent / "queries.sql",
    Path(__file__).parents[2] / "services" / "muggins" / "tables" / "queries.sql",
    MIGRATIONS.parents[1] / "projections" / "queries.sql",
]


@pytest.fixture
async def service(store: EventStore, service_database_url: str
                  ) -> AsyncIterator[asyncpg.Connection]:
    """A connection as the service's role, to a database holding a few events."""
    await store.append("lp-table", 0, encoded_all(SCORED), actor="system")
    connection = await asyncpg.connect(service_database_url)
    yield connection
    await connection.close()


SCORED = [PointsScored(1, 0, 0, 10, "count")]


async def test_the_service_role_is_a_login_and_nothing_more(
    service: asyncpg.Connection,
) -> None:
    row = await service.fetchrow(
        "SELECT current_user AS name, rolsuper, rolcreatedb, rolcreaterole, rolreplication, "
        "rolbypassrls FROM pg_roles WHERE rolname = current_user")
    assert row is not None and row["name"] == SERVICE_ROLE
    assert not any(row[flag] for flag in ("rolsuper", "rolcreatedb", "rolcreaterole",
                                          "rolreplication", "rolbypassrls"))
    assert not await service.fetchval("SELECT pg_has_role($1, 'MEMBER')", OWNER_ROLE)
    owners = await service.fetch(
        "SELECT DISTINCT pg_get_userbyid(relowner) AS owner FROM pg_class "
        "WHERE relnamespace = 'public'::regnamespace")
    assert [row["owner"] for row in owners] == [OWNER_ROLE]


@pytest.mark.parametrize("statement", [
    "UPDATE events SET event_type = 'Forged'",
    "DELETE FROM events",
    "TRUNCATE events",
    "ALTER TABLE events DISABLE TRIGGER ALL",
    "ALTER TABLE events DISABLE TRIGGER events_append_only_rows",
    "DROP TRIGGER events_append_only_rows ON events",
    "DROP TABLE events",
    "CREATE OR REPLACE FUNCTION refuse_event_changes() RETURNS trigger "
    "LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$",
    "SET session_replication_role = replica",
    "SELECT set_config('session_replication_role', 'replica', false)",
    "ALTER ROLE muggins_service SET session_replication_role = replica",
    "SET ROLE muggins_owner",
    "CREATE TABLE forged (x integer)",
    "CREATE TEMPORARY TABLE forged (x integer)",
    "CREATE SCHEMA forged",
    "CREATE ROLE forged",
    "CREATE DATABASE forged",
    "ALTER TABLE events OWNER TO muggins_service",
    "TRUNCATE table_views",
    "UPDATE seat_tokens SET seat = 0",
    # A player's secret may be rotated (0010), their id never changed.
    "UPDATE players SET player_id = '00000000-0000-0000-0000-000000000000'",
    "UPDATE players SET created_at = now()",
])
async def test_the_service_role_cannot_change_events_or_get_round_the_triggers(
    service: asyncpg.Connection, statement: str,
) -> None:
    before = await service.fetch("SELECT * FROM events ORDER BY position")
    with pytest.raises(asyncpg.InsufficientPrivilegeError):
        await service.execute(statement)
    assert await service.fetchval("SHOW session_replication_role") == "origin"
    assert await service.fetch("SELECT * FROM events ORDER BY position") == before


async def test_every_query_of_the_service_is_allowed_to_its_role(
    service: asyncpg.Connection,
) -> None:
    """Each named query runs (on nulls, rolled back): the table-level
    privileges are checked before any row is touched, so an error other
    than a refused privilege means the role was let through."""
    refused = []
    for path in QUERY_FILES:
        for name, sql in load_queries(path).items():
            arguments = [None] * max((int(n) for n in re.findall(r"\$(\d+)", sql)), default=0)
            transaction = service.transaction()
            await transaction.start()
            try:
                await service.execute(sql, *arguments)
            except asyncpg.InsufficientPrivilegeError as error:
                refused.append(f"{path.parent.name}/{name}: {error}")
            except asyncpg.PostgresError:  # nulls where none may be: past the privileges
                pass
            finally:
                await transaction.rollback()
    assert refused == []


async def test_the_service_role_does_everything_the_service_does(
    store: EventStore, service_database_url: str
) -> None:
    service_pool = store.pool
    assert await service_pool.fetchval("SELECT current_user") == SERVICE_ROLE
    # Appends and reads; every projector catches up, and rebuilds.
    stored = await store_game(store, "Lp1-g1", "all-fives")
    assert len(await store.read_stream("Lp1-g1")) == len(stored)
    head = await store.head_position()
    assert [e.position for e in await store.read_all(0, 10_000)] == list(range(1, head + 1))
    for make in PROJECTIONS.values():
        runner = ProjectorRunner(service_pool, store, make())
        assert await runner.catch_up() == head
        await runner.rebuild()
        assert await runner.catch_up() == head
    assert await service_pool.fetchval("SELECT count(*) FROM table_views") == 1
    # The relay's checkpoint; appends that make something due, and undo it.
    await store.save_checkpoint("relay", head)
    assert await store.checkpoint("relay") == head
    await store.append("Lp2-g1", 0, encoded_all(SCORED), actor="system", due=Due("Lp2", 5.0))
    assert await service_pool.fetchval("SELECT count(*) FROM due WHERE key = 'Lp2'") == 1
    await store.append("Lp2-g1", 1, encoded_all(SCORED), actor="system", due=Due("Lp2", None))
    assert await service_pool.fetchval("SELECT count(*) FROM due WHERE key = 'Lp2'") == 0
    assert await applied_versions(service_pool) == [v for v, _, _ in migration_files(MIGRATIONS)]
    # Up to date, the migrations ask nothing of it but reading schema_migrations.
    assert await upgrade_at(service_database_url) == []


async def test_the_service_role_cannot_apply_migrations(
    pool: asyncpg.Pool, service_database_url: str
) -> None:
    # A migration still to come (as if the files were newer than the database).
    await pool.execute("DELETE FROM schema_migrations WHERE version = "
                       "(SELECT max(version) FROM schema_migrations)")
    with pytest.raises(MigrationRefused, match=f"{SERVICE_ROLE} may not apply the migrations"):
        await upgrade_at(service_database_url)


async def _refused(url: str) -> None:
    with pytest.raises((asyncpg.InvalidPasswordError,
                        asyncpg.InvalidAuthorizationSpecificationError)):
        connection = await asyncpg.connect(url, timeout=10)
        await connection.close()


async def test_the_embedded_server_lets_nobody_in_without_a_password(
    postgres: EmbeddedPostgres,
) -> None:
    port = postgres.port
    for role in (SERVICE_ROLE, OWNER_ROLE, PG_SUPERUSER):
        await _refused(f"postgresql://{role}@127.0.0.1:{port}/muggins")
        await _refused(f"postgresql://{role}:wrong@127.0.0.1:{port}/muggins")
    connection = await asyncpg.connect(postgres.service_url)
    try:
        assert await connection.fetchval("SELECT current_user") == SERVICE_ROLE
    finally:
        await connection.close()
    admin = await asyncpg.connect(postgres.url)
    try:
        methods = {row["auth_method"] for row in await admin.fetch(
            "SELECT auth_method FROM pg_hba_file_rules")}
        assert methods == {"scram-sha-256"}
        owner = await admin.fetchval(
            "SELECT pg_get_userbyid(datdba) FROM pg_database WHERE datname = 'muggins'")
        assert owner == OWNER_ROLE
    finally:
        await admin.close()
    mode = postgres.passwords_file.stat().st_mode
    assert stat.S_IMODE(mode) == 0o600


def _pg(server: EmbeddedPostgres, *argv: str) -> None:
    subprocess.run([server._bin(argv[0]), *argv[1:]], check=True, capture_output=True,
                   **server._run_as())  # type: ignore[call-overload]


async def test_a_data_directory_from_before_the_roles_is_brought_up_to_date(
    tmp_path: Path,
) -> None:
    # As the code before made it: everyone trusted, the database and all it
    # holds the superuser's, migrated up to the one before least privilege.
    server = EmbeddedPostgres(tmp_path)
    pgdata = tmp_path / "postgres"
    pgdata.mkdir()
    server._prepare_permissions(pgdata)
    _pg(server, "initdb", "-D", str(pgdata), "--auth=trust", "-U", PG_SUPERUSER,
        "--encoding=UTF8", "--no-instructions")
    port = free_port()
    _pg(server, "pg_ctl", "-D", str(pgdata), "-l", str(pgdata / "server.log"),
        "-o", f"-h 127.0.0.1 -p {port} -k {pgdata}", "-w", "start")
    try:
        admin = await asyncpg.connect(f"postgresql://{PG_SUPERUSER}@127.0.0.1:{port}/postgres")
        await admin.execute("CREATE DATABASE muggins")
        await admin.close()
        legacy = await create_pool(f"postgresql://{PG_SUPERUSER}@127.0.0.1:{port}/muggins")
        try:
            async with legacy.acquire() as connection:
                await connection.execute(
                    "CREATE TABLE schema_migrations (version integer PRIMARY KEY, "
                    "name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())")
                for version, name, path in migration_files(MIGRATIONS):
                    if name == "least_privilege":
                        break
                    await connection.execute(path.read_text())
                    await connection.execute("INSERT INTO schema_migrations VALUES ($1, $2)",
                                             version, name)
            await EventStore(legacy).close()
        finally:
            await legacy.close()
    finally:
        _pg(server, "pg_ctl", "-D", str(pgdata), "-m", "fast", "-w", "stop")

    server.start()
    try:
        for role in (SERVICE_ROLE, PG_SUPERUSER):
            await _refused(f"postgresql://{role}@127.0.0.1:{server.port}/muggins")
        # The data directory predates the roles: that migration and every later one.
        roles = next(v for v, name, _ in migration_files(MIGRATIONS) if name == "least_privilege")
        assert await upgrade_at(server.owner_url) == [
            v for v, _, _ in migration_files(MIGRATIONS) if v >= roles]
        pool = await create_pool(server.service_url)
        try:
            store = EventStore(pool)
            await store.append("Old1-g1", 0, encoded_all(SCORED),
                               actor="system", due=Due("Old1", 1.0))
            await store.close()
            with pytest.raises(asyncpg.InsufficientPrivilegeError):
                await pool.execute("ALTER TABLE events DISABLE TRIGGER ALL")
            owners = await pool.fetch(
                "SELECT DISTINCT pg_get_userbyid(relowner) AS owner FROM pg_class "
                "WHERE relnamespace = 'public'::regnamespace")
            assert [row["owner"] for row in owners] == [OWNER_ROLE]
        finally:
            await pool.close()
    finally:
        server.stop()
