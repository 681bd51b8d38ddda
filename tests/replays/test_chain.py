"""The hash chain: every stored field of a finished hand is tamper-evident,
in the store and in exported records, and docs/fairness.md alone is enough
to check it."""

from __future__ import annotations

import ast
import json
import re
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import asyncpg
import msgspec
import pytest

from muggins.bots.selfplay import make_bots, play_game_commands
from muggins.domain.codec import audience_of, encoded_all
from muggins.domain.streams import table_stream
from muggins.domain.table_events import BotTookOver, SeatTaken, TableEvent, TableOpened
from muggins.eventstore.migrations import MIGRATIONS, upgrade
from muggins.eventstore.records import (
    GENESIS_CHAIN,
    RecordedEvent,
    chain_link,
    event_digest,
    recorded_at_text,
)
from muggins.eventstore.store import EventStore, create_pool
from muggins.infra.sql import migration_files
from muggins.replay.record import StoredEvent, hands_of
from muggins.replay.source import encode_record, export_hand, load_game, read_record
from muggins.replay.verify import verify_game, verify_record
from muggins.rules.events import Event, GameStarted, SeatedPlayer, TilePlayed
from muggins.rules.presets import preset
from muggins.rules.shuffle import game_seed_from_text
from tests.support.replays import muggins, tamper
from tests.support.source_code import parsed

FAIRNESS = Path(__file__).resolve().parents[2] / "docs" / "fairness.md"
#: A name with what canonical JSON must get right: quotes, a backslash, a
#: control character, letters beyond ASCII.
PLAYERS = (
    SeatedPlayer(seat=0, player_id="5b0b5c7e-2f7c-4f44-9d59-0b7f3f0c1a11",
                 name='Zoë "the bone" \\ Ruiz\t✓'),
    SeatedPlayer(seat=1, player_id="bot:greedy", name="bot (greedy)", bot=True),
)


def seated(events: list[Event]) -> list[Event]:
    return [msgspec.structs.replace(e, players=PLAYERS) if isinstance(e, GameStarted) else e
            for e in events]


async def store_seated_game(store: EventStore, table: str) -> list[StoredEvent]:
    """A game as the service stores it: its players recorded, each command's
    events carrying the command's id."""
    rules = preset("playelephant", 2, False)
    game_seed = game_seed_from_text(f"chain/{table}")
    version = 0
    for result in play_game_commands(rules, game_seed, make_bots(["greedy"] * 2, game_seed)):
        command = str(uuid.uuid4())
        await store.append(table, version, encoded_all(seated(result.events)), actor=result.actor,
                           correlation_id=command, causation_id=command)
        version += len(result.events)
    return await load_game(store, table)


async def version_of(pool: asyncpg.Pool, table: str, event_type: str) -> int:
    version = await pool.fetchval(
        "SELECT min(stream_version) FROM events WHERE stream_id = $1 AND event_type = $2",
        table, event_type)
    assert version is not None
    return int(version)


async def delete_and_renumber(pool: asyncpg.Pool, table: str, version: int) -> None:
    async with pool.acquire() as connection, connection.transaction():
        await connection.execute("ALTER TABLE events DISABLE TRIGGER USER")
        await connection.execute(
            "DELETE FROM events WHERE stream_id = $1 AND stream_version = $2", table, version)
        await connection.execute(
            "UPDATE events SET stream_version = stream_version - 1 "
            "WHERE stream_id = $1 AND stream_version > $2", table, version)
        await connection.execute("ALTER TABLE events ENABLE TRIGGER USER")


#: Edits the rules cannot see (what was changed, the event's type, the SQL on it).
UNSEEN_BY_THE_RULES = {
    "a player's name": ("GameStarted", """payload = jsonb_set(payload, '{players,0,name}',
                                          '"Mallory"')"""),
    "a player's id": ("GameStarted", """payload = jsonb_set(payload, '{players,0,player_id}',
                                        to_jsonb(gen_random_uuid()::text))"""),
    "the actor": ("TilePlayed", "actor = CASE actor WHEN 'bot:0' THEN 'bot:1' ELSE 'bot:0' END"),
    "the commit time": ("HandEnded", "recorded_at = recorded_at - interval '3 seconds'"),
    "the audience": ("TilesDealt", "audience = 'public'"),
    "the position": ("PointsScored", "position = position + 1000000"),
    "the event type": ("TileDrawn", "event_type = 'Passed'"),
    "the command id": ("TilePlayed", "correlation_id = gen_random_uuid()"),
    "the chain value": ("HandStarted", "chain = sha256(chain)"),
}


async def test_an_untouched_game_verifies_with_its_chain(store: EventStore) -> None:
    stored = await store_seated_game(store, "c-clean")
    verdict = verify_game(stored)
    assert verdict.ok, verdict.problems
    recorded = await store.read_stream("c-clean")
    assert all(r.chain is not None and len(r.chain) == 32 for r in recorded)
    assert len({r.chain for r in recorded}) == len(recorded)
    assert all(entry.stored is not None for entry in stored)


@pytest.mark.parametrize("edit", UNSEEN_BY_THE_RULES)
async def test_an_edit_the_rules_cannot_see_is_caught_and_named(
    store: EventStore, pool: asyncpg.Pool, edit: str
) -> None:
    table = "c-" + re.sub(r"\W", "", edit)[:20]
    assert verify_game(await store_seated_game(store, table)).ok
    event_type, change = UNSEEN_BY_THE_RULES[edit]
    version = await version_of(pool, table, event_type)
    await tamper(pool, f"UPDATE events SET {change} WHERE stream_id = $1 AND stream_version = $2",
                 table, version)
    verdict = verify_game(await load_game(store, table))
    # The rules see nothing wrong: only the chain shows it, at that event.
    assert [(p.version, p.message.split(" ")[0]) for p in verdict.problems] == [
        (version, event_type)
    ]
    assert "is the first changed event" in verdict.problems[0].message


async def test_a_deleted_event_with_the_versions_renumbered_is_caught_and_named(
    store: EventStore, pool: asyncpg.Pool
) -> None:
    stored = await store_seated_game(store, "c-renum")
    version = await version_of(pool, "c-renum", "PointsScored")
    now_there = stored[version]  # the event after it moves into its place
    await delete_and_renumber(pool, "c-renum", version)
    verdict = verify_game(await load_game(store, "c-renum"))
    first = verdict.problems[0]
    assert first.version == version
    assert first.message.startswith(f"{type(now_there.event).__name__} (")
    assert "is the first changed event" in first.message


async def test_verify_names_the_first_changed_event_and_fails(
    store: EventStore, pool: asyncpg.Pool, database_url: str
) -> None:
    await store_seated_game(store, "c-cli")
    await tamper(pool, """UPDATE events SET payload = jsonb_set(payload, '{players,1,name}',
                         '"someone else"') WHERE stream_id = 'c-cli' AND stream_version = 1""")
    verified = muggins("replay", "verify", "c-cli", database_url=database_url)
    assert verified.returncode == 1
    assert "✗ table c-cli: event 1: GameStarted (" in verified.stdout
    assert "is the first changed event" in verified.stdout and "PROBLEMS FOUND" in verified.stdout


def _entries(record: dict[str, Any]) -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = record["events"]
    return entries


FILE_EDITS: dict[str, Callable[[dict[str, Any]], int]] = {}


def file_edit(function: Callable[[dict[str, Any]], int]) -> Callable[[dict[str, Any]], int]:
    """An edit of a record file; returns the version that must be named."""
    FILE_EDITS[function.__name__] = function
    return function


@file_edit
def actor(record: dict[str, Any]) -> int:
    entry = next(e for e in _entries(record) if e["event"]["type"] == "TilePlayed")
    entry["stored"]["actor"] = "seat:1" if entry["stored"]["actor"] != "seat:1" else "seat:0"
    return int(entry["version"])


@file_edit
def recorded_at(record: dict[str, Any]) -> int:
    entry = _entries(record)[3]
    entry["stored"]["recorded_at"] = "2020-01-01T00:00:00.000000Z"
    return int(entry["version"])


@file_edit
def audience_made_public(record: dict[str, Any]) -> int:
    entry = next(e for e in _entries(record) if e["event"]["type"] == "TilesDealt")
    entry["stored"]["audience"] = "public"
    return int(entry["version"])


@file_edit
def deleted_and_renumbered(record: dict[str, Any]) -> int:
    entries = _entries(record)
    index = next(i for i, e in enumerate(entries) if e["event"]["type"] == "PointsScored")
    version = int(entries[index]["version"])
    del entries[index]
    for entry in entries[index:]:
        entry["version"] -= 1
    return version


@file_edit
def chain_value(record: dict[str, Any]) -> int:
    entry = _entries(record)[5]
    entry["stored"]["chain"] = "00" * 32
    return int(entry["version"])


@file_edit
def chain_before_the_hand(record: dict[str, Any]) -> int:
    first = _entries(record)[0]
    first["stored"]["previous"] = "11" * 32
    return int(first["version"])


@file_edit
def points_of_a_score(record: dict[str, Any]) -> int:
    # What the seed decides is also the rules' to catch; the chain names it too.
    entry = next(e for e in _entries(record) if e["event"]["type"] == "PointsScored")
    entry["event"]["points"] += 5
    return int(entry["version"])


async def test_a_tampered_record_file_is_caught_and_named(
    store: EventStore, tmp_path: Path, database_url: str
) -> None:
    stored = await store_seated_game(store, "c-file")
    second = next(part for part in hands_of(stored) if part.hand == 2)
    record = json.loads(encode_record(export_hand(stored, "c-file", 2)))
    before = stored[second.start - 1].stored
    assert before is not None and record["events"][0]["stored"]["previous"] == before.chain
    assert all("payload" not in e["stored"] for e in record["events"])  # the same as `event`
    path = tmp_path / "hand.json"
    path.write_text(json.dumps(record))
    assert verify_record(read_record(path)).ok

    for name, edit in FILE_EDITS.items():
        changed = json.loads(json.dumps(record))
        version = edit(changed)
        path.write_text(json.dumps(changed))
        verdict = verify_record(read_record(path))
        assert not verdict.ok, name
        assert verdict.problems[0].version == version, (name, verdict.problems)
        assert any(p.version == version and "the first changed event" in p.message
                   for p in verdict.problems), (name, verdict.problems)

    actor(record)
    path.write_text(json.dumps(record))
    from_file = muggins("replay", "verify", "--file", str(path), database_url=database_url)
    assert from_file.returncode == 1 and "is the first changed event" in from_file.stdout


# -- docs/fairness.md is enough ------------------------------------------------------

def fairness_code() -> tuple[str, list[str]]:
    """The SQL and the Python blocks of the hash chain section of docs/fairness.md."""
    section = FAIRNESS.read_text().split("## Tamper evidence: the hash chain", 1)[1]
    sql = re.findall(r"```sql\n(.*?)```", section, re.DOTALL)
    python = re.findall(r"```python\n(.*?)```", section, re.DOTALL)
    assert len(sql) == 1 and len(python) == 3
    for block in python:  # the standard library's hashlib and json, nothing else
        for node in ast.walk(parsed(block)):
            if isinstance(node, ast.Import):
                assert {alias.name for alias in node.names} <= {"hashlib", "json"}
            assert not isinstance(node, ast.ImportFrom)
    return sql[0], python


async def run_the_documented_checker(
    pool: asyncpg.Pool, stream: str, folder: Path, capsys: pytest.CaptureFixture[str],
    record: bytes | None = None,
) -> list[str]:
    """What the document's code prints for the stream in the store (and for a record)."""
    sql, (define, from_rows, from_record) = fairness_code()
    rows = await pool.fetch(sql.replace("'Ab12Cd34Ef56-g1'", "$1"), stream)
    (folder / "rows.jsonl").write_text("".join(row[0] + "\n" for row in rows))
    namespace: dict[str, Any] = {}
    capsys.readouterr()  # what was printed before is not the document's
    exec(define, namespace)  # the document's own code, as a reader runs it
    exec(from_rows, namespace)
    if record is not None:
        (folder / "hand.json").write_bytes(record)
        exec(from_record, namespace)
    return capsys.readouterr().out.splitlines()


async def test_the_documented_checker_recomputes_the_stored_chain(
    store: EventStore, pool: asyncpg.Pool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    stored = await store_seated_game(store, "c-docs")
    record = encode_record(export_hand(stored, "c-docs", 2))
    fine = "every event is as it was appended"
    assert await run_the_documented_checker(pool, "c-docs", tmp_path, capsys, record) == [
        fine, fine]

    version = await version_of(pool, "c-docs", "TilePlayed")
    await tamper(pool, "UPDATE events SET actor = 'seat:1' "
                       "WHERE stream_id = 'c-docs' AND stream_version = $1", version)
    assert await run_the_documented_checker(pool, "c-docs", tmp_path, capsys) == [str(version)]
    await tamper(pool, """UPDATE events SET payload = jsonb_set(payload, '{players,0,name}',
                         '"Mallory"') WHERE stream_id = 'c-docs' AND stream_version = 1""")
    assert await run_the_documented_checker(pool, "c-docs", tmp_path, capsys) == ["1"]


# -- events stored before the chain ----------------------------------------------------

async def test_events_stored_before_the_chain_are_chained_by_the_migration(
    blank_database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    database_url = blank_database_url
    connection = await asyncpg.connect(database_url)
    try:
        await connection.execute(
            "CREATE TABLE schema_migrations (version integer PRIMARY KEY, name text NOT NULL, "
            "applied_at timestamptz NOT NULL DEFAULT clock_timestamp())")
        for version, name, path in migration_files(MIGRATIONS):
            if version > 6:
                break
            await connection.execute(path.read_text())
            await connection.execute("INSERT INTO schema_migrations VALUES ($1, $2)",
                                     version, name)
        await _store_before_the_chain(connection)
    finally:
        await connection.close()

    pool = await create_pool(database_url)
    store = EventStore(pool)
    try:
        assert 7 in await upgrade(pool)
        stored = await load_game(store, "old-g1")
        verdict = verify_game(stored)
        assert verdict.ok, verdict.problems
        table = await store.read_stream(table_stream("old"))
        assert chain_breaks(table) is None
        # Appends go on from the migrated chain.
        await store.append(table_stream("old"), len(table), encoded_all([SeatTaken(
            seat=1, player_id=str(uuid.uuid4()), name="late")]), actor="seat:1")
        assert chain_breaks(await store.read_stream(table_stream("old"))) is None

        # Plays stored without `claim` (older code) travel in a record as stored.
        record = export_hand(stored, "old-g1", 1)
        assert any(e.stored and e.stored.payload is not None for e in record.events)
        assert verify_record(record).ok
        monkeypatch.chdir(tmp_path)
        assert await run_the_documented_checker(
            pool, "old-g1", tmp_path, capsys, encode_record(record)
        ) == ["every event is as it was appended"] * 2
    finally:
        await store.close()
        await pool.close()


async def _store_before_the_chain(connection: asyncpg.Connection) -> None:
    """A game and a table stream written by migration 0006's append_events,
    some payloads as older code wrote them (a field added since missing)."""
    append = """SELECT * FROM append_events($1, $2, $3, $4, $5, $6, $7, $8, $9, $10,
                                            $11, $12, $13)"""

    async def write(stream: str, version: int, actor: str, payloads: list[dict[str, Any]],
                    audiences: list[str], command: uuid.UUID | None) -> None:
        await connection.fetch(
            append, [stream], [version], [len(payloads)], [actor], [command], [command],
            [uuid.uuid4() for _ in payloads], [p["type"] for p in payloads],
            [json.dumps(p) for p in payloads], audiences, [None], [None], [False])

    rules = preset("playelephant", 2, False)
    game_seed = game_seed_from_text("chain/old")
    version = 0
    for result in play_game_commands(rules, game_seed, make_bots(["greedy"] * 2, game_seed)):
        payloads = [msgspec.to_builtins(e) for e in seated(result.events)]
        for event, payload in zip(result.events, payloads, strict=True):
            if isinstance(event, TilePlayed) and event.hand == 1:
                del payload["claim"]
        await write("old-g1", version, result.actor, payloads,
                    [audience_of(e) for e in result.events], uuid.uuid4())
        version += len(payloads)
    table_events: list[TableEvent] = [
        TableOpened(ruleset=rules, turn_clock_seconds=20),
        SeatTaken(seat=0, player_id=PLAYERS[0].player_id, name=PLAYERS[0].name),
        BotTookOver(seat=0, reason="absent", game=1, version=3, hand=1),
    ]
    old_takeover = msgspec.to_builtins(table_events[2])
    del old_takeover["for_the_hand"]  # as migration 0006 wrote them
    await write(table_stream("old"), 0, "system",
                [*map(msgspec.to_builtins, table_events[:2]), old_takeover],
                ["public"] * 3, None)


def chain_breaks(recorded: list[RecordedEvent]) -> int | None:
    """The version of the first event whose stored chain value the store's
    own definition does not give (any stream, any event type)."""
    previous = GENESIS_CHAIN
    for r in recorded:
        digest = event_digest(
            stream_id=r.stream_id, stream_version=r.stream_version, event_type=r.event_type,
            payload=bytes(r.payload), audience=r.audience, actor=r.actor,
            correlation_id=r.correlation_id, causation_id=r.causation_id, event_id=r.event_id)
        if chain_link(previous, digest, r.position, recorded_at_text(r.recorded_at)) != r.chain:
            return r.stream_version
        assert r.chain is not None
        previous = r.chain
    return None


def test_a_record_from_before_the_chain_is_checked_by_the_rules_alone() -> None:
    examples = Path(__file__).resolve().parents[2] / "replays" / "examples"
    record = read_record(sorted(examples.glob("*.json"))[0])
    assert all(entry.stored is None for entry in record.events)
    assert verify_record(record).ok

