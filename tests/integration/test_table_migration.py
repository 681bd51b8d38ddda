"""Migration 0006 turns the tables that exist into table streams: nothing a
database held before about who sits where is lost."""

from __future__ import annotations

import hashlib
import uuid

import asyncpg
import msgspec

from muggins.domain.streams import table_stream
from muggins.domain.table_events import fold_table, table_event_decoder
from muggins.eventstore.migrations import MIGRATIONS, upgrade
from muggins.eventstore.store import EventStore
from muggins.infra.sql import migration_files
from muggins.rules.presets import preset


async def _migrated_up_to(database_url: str, last: int) -> asyncpg.Connection:
    connection = await asyncpg.connect(database_url)
    await connection.execute(
        "CREATE TABLE schema_migrations (version integer PRIMARY KEY, name text NOT NULL, "
        "applied_at timestamptz NOT NULL DEFAULT clock_timestamp())")
    for version, name, path in migration_files(MIGRATIONS):
        if version > last:
            break
        await connection.execute(path.read_text())
        await connection.execute("INSERT INTO schema_migrations VALUES ($1, $2)", version, name)
    return connection


async def test_tables_of_before_become_streams_with_their_seats_tokens_and_games(
    blank_database_url: str,
) -> None:
    database_url = blank_database_url
    connection = await _migrated_up_to(database_url, 5)
    ruleset = preset("playelephant", 4, True)
    ana, bo = uuid.uuid4(), uuid.uuid4()
    token = hashlib.sha256(b"ana's token").digest()
    try:
        # A table being played (game 2, Ana away with a bot in her seat) and
        # one waiting for people.
        await connection.execute(
            "INSERT INTO tables (table_id, ruleset, turn_clock_seconds, game_number) "
            "VALUES ('Played1', $1, 20, 2), ('Waits1', $1, 30, 0)",
            msgspec.json.encode(ruleset).decode())
        await connection.executemany(
            "INSERT INTO seats (table_id, seat, bot_level, name, player_id, token_hash, "
            "bot_playing, taken_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
            [("Played1", 0, None, "Ana", ana, token, True, None),
             ("Played1", 1, "greedy", "bot (greedy)", None, None, True, None),
             ("Played1", 2, None, "Bo", bo, hashlib.sha256(b"bo").digest(), False, None),
             ("Played1", 3, "random", "bot (random)", None, None, True, None),
             ("Waits1", 0, None, None, None, None, False, None),
             ("Waits1", 1, "greedy", "bot (greedy)", None, None, True, None),
             ("Waits1", 2, None, None, None, None, False, None),
             ("Waits1", 3, None, None, None, None, False, None)])
    finally:
        await connection.close()

    pool = await asyncpg.create_pool(database_url)
    try:
        assert await upgrade(pool) == [v for v, _, _ in migration_files(MIGRATIONS) if v > 5]
        store = EventStore(pool)
        played_events = await store.read_stream(table_stream("Played1"))
        played = fold_table((table_event_decoder.decode(r.payload) for r in played_events),
                            "Played1")
        assert played.ruleset == ruleset and played.turn_clock_seconds == 20
        assert played.game == 2
        assert [(s.name, s.player_id, s.bot_level, s.takeover) for s in played.seats] == [
            ("Ana", str(ana), None, "absent"), (None, None, "greedy", None),
            ("Bo", str(bo), None, None), (None, None, "random", None)]
        waiting = fold_table((table_event_decoder.decode(r.payload) for r in
                              await store.read_stream(table_stream("Waits1"))), "Waits1")
        assert waiting.game == 0 and waiting.free_seats == 3
        # Ana's token still gets her seat; the table being played is due now.
        row = await pool.fetchrow("SELECT seat, player_id FROM seat_tokens "
                                  "WHERE table_id = 'Played1' AND token_hash = $1", token)
        assert row is not None and row["seat"] == 0 and row["player_id"] == ana
        assert await pool.fetchval("SELECT count(*) FROM due WHERE key = 'Played1'") == 1
        assert await pool.fetchval("SELECT count(*) FROM due WHERE key = 'Waits1'") == 0
        # Positions stay gap-free after the events written by the migration.
        positions = [r["position"] for r in await pool.fetch(
            "SELECT position FROM events ORDER BY position")]
        assert positions == list(range(1, len(positions) + 1))
        await store.close()
    finally:
        await pool.close()
