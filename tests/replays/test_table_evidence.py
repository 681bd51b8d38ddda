"""Disputes settled beyond doubt (docs/fairness.md): tampering with a real
table's record, as an insider with the database's superuser would (triggers
off, nothing recomputed, or everything recomputed), is caught and named by
``replay verify`` alone, or by a receipt or a checkpoint the player kept.

The tables are played once, by the real service; each test tampers with a
copy of that database (``CREATE DATABASE … TEMPLATE``)."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import asyncpg
import msgspec
import pytest

from muggins.domain.streams import chat_stream, game_stream, table_stream
from muggins.eventstore.records import (
    GENESIS_CHAIN,
    chain_link,
    event_digest,
    global_link,
    recorded_at_text,
)
from muggins.eventstore.store import EventStore, create_pool
from muggins.evidence.checkpoints import latest_checkpoint, public_keys
from muggins.evidence.documents import Checkpoint, Receipt, signed_bytes
from muggins.evidence.signing import SiteKey
from muggins.infra.database_roles import OWNER_ROLE
from muggins.infra.embedded import PG_SUPERUSER, EmbeddedNats, EmbeddedPostgres
from muggins.replay.source import load_table_record
from muggins.replay.store_checks import check_checkpoint, check_receipts, verify_whole_store
from muggins.replay.table_verify import TableVerdict, verify_table
from muggins.tables.commands import Commands
from muggins.tables.disputes import Disputes
from muggins.tables.metrics import BroadcastClock
from muggins.tables.next_step import Timings
from muggins.tables.seat_keys import PostgresSeatKeys
from muggins.tables.seating import Seating
from muggins.tables.wakeups import Wakeups
from tests.support.clients import SeatClient
from tests.support.replays import muggins
from tests.support.service import serve
from tests.support.tables import create, sit

#: One worker builds this module's played games once (its module-wide fixtures).
pytestmark = pytest.mark.xdist_group("table-evidence")


class Played(msgspec.Struct):
    """The database the tables were played in, and what the players kept."""

    database: str
    tables: list[str]
    receipts: dict[str, list[dict[str, Any]]]
    #: Each table's seat token (seat 0, the person).
    tokens: dict[str, str]
    checkpoint: dict[str, Any]
    key_pem: bytes


async def _play(postgres: EmbeddedPostgres, nats_url: str, key_file: Path) -> Played:
    name = f"evidence_{uuid.uuid4().hex[:10]}"
    admin = await asyncpg.connect(postgres.url_for(PG_SUPERUSER, "postgres"))
    try:
        await admin.execute(f'CREATE DATABASE "{name}" OWNER {OWNER_ROLE}')
    finally:
        await admin.close()
    url = postgres.url_for(PG_SUPERUSER, name)
    tables: list[str] = []
    receipts: dict[str, list[dict[str, Any]]] = {}
    tokens: dict[str, str] = {}
    async with serve(url, nats_url, checkpoint_interval=0.2,
                     signing_key_file=str(key_file)) as service:
        for level in ("greedy", "random"):
            table = await create(service, preset="playelephant", seats=2,
                                 bots=[{"seat": 1, "level": level}])
            table_id = table["table_id"]
            granted = await sit(service, table_id, 0, "Ana")
            player = await SeatClient.connect(service.ws_url, table_id, granted["token"])
            await player.send({"type": "chat", "text": "good luck, bot"})
            await player.play_until_game_over(90)
            while True:  # the last hand's receipt follows the game's end
                given = [r for m in player.messages if m["type"] == "receipts"
                         for r in m["receipts"]]
                if given and given[-1]["version"] == player.version:
                    break
                await player.receive(5)
            await player.close()
            tables.append(table_id)
            receipts[table_id] = given
            tokens[table_id] = granted["token"]
        head = await service.runtime.infra.store.head_position()
        while True:  # a checkpoint of everything played
            found = await latest_checkpoint(service.runtime.infra.pool)
            if found is not None and found.position >= head:
                break
            await asyncio.sleep(0.1)
    return Played(name, tables, receipts, tokens, msgspec.to_builtins(found),
                  key_file.read_bytes())


@pytest.fixture(scope="module")
def played(postgres: EmbeddedPostgres, nats_server: EmbeddedNats,
           tmp_path_factory: pytest.TempPathFactory) -> Iterator[Played]:
    key = tmp_path_factory.mktemp("key") / "key.pem"
    yield asyncio.run(_play(postgres, nats_server.url, key))


@pytest.fixture
async def copy(played: Played, postgres: EmbeddedPostgres) -> AsyncIterator[str]:
    """A copy of the played database for one test to tamper with: its superuser URL."""
    name = f"t_{uuid.uuid4().hex[:12]}"
    admin = await asyncpg.connect(postgres.url_for(PG_SUPERUSER, "postgres"))
    try:
        await admin.execute(f'CREATE DATABASE "{name}" TEMPLATE "{played.database}" '
                            f'OWNER {OWNER_ROLE}')
        yield postgres.url_for(PG_SUPERUSER, name)
        await admin.execute(f'DROP DATABASE "{name}" WITH (FORCE)')
    finally:
        await admin.close()


@pytest.fixture
async def pool(copy: str) -> AsyncIterator[asyncpg.Pool]:
    the_pool = await create_pool(copy)
    yield the_pool
    await the_pool.close()


@pytest.fixture
def store(pool: asyncpg.Pool) -> EventStore:
    return EventStore(pool)


async def tamper(pool: asyncpg.Pool, sql: str, *args: object) -> None:
    """Change the store behind the application's back (triggers off)."""
    async with pool.acquire() as connection, connection.transaction():
        await connection.execute("ALTER TABLE events DISABLE TRIGGER events_append_only_rows")
        await connection.execute(sql, *args)
        await connection.execute("ALTER TABLE events ENABLE TRIGGER events_append_only_rows")


async def rechain(pool: asyncpg.Pool) -> None:
    """What a careful insider does after an edit: positions renumbered without
    gaps, versions too, and every stream chain and the global chain recomputed."""
    rows = await pool.fetch("""SELECT position, event_id, stream_id, stream_version, event_type,
                               payload::text AS payload, audience, actor, correlation_id,
                               causation_id, recorded_at FROM events ORDER BY position""")
    streams: dict[str, tuple[int, bytes]] = {}
    global_value = GENESIS_CHAIN
    updates = []
    for position, row in enumerate(rows, start=1):
        version, previous = streams.get(row["stream_id"], (0, GENESIS_CHAIN))
        version += 1
        digest = event_digest(
            stream_id=row["stream_id"], stream_version=version, event_type=row["event_type"],
            payload=row["payload"], audience=row["audience"], actor=row["actor"],
            correlation_id=str(row["correlation_id"]) if row["correlation_id"] else None,
            causation_id=str(row["causation_id"]) if row["causation_id"] else None,
            event_id=str(row["event_id"]))
        chain = chain_link(previous, digest, position, recorded_at_text(row["recorded_at"]))
        global_value = global_link(global_value, chain)
        streams[row["stream_id"]] = (version, chain)
        updates.append((row["event_id"], position, version, chain, global_value))
    async with pool.acquire() as connection, connection.transaction():
        await connection.execute("ALTER TABLE events DISABLE TRIGGER events_append_only_rows")
        await connection.execute("ALTER TABLE events DROP CONSTRAINT events_pkey")
        await connection.execute(
            "ALTER TABLE events DROP CONSTRAINT events_stream_id_stream_version_key")
        await connection.executemany(
            "UPDATE events SET position = $2, stream_version = $3, chain = $4, "
            "global_chain = $5 WHERE event_id = $1", updates)
        await connection.execute("ALTER TABLE events ADD PRIMARY KEY (position)")
        await connection.execute("ALTER TABLE events ADD UNIQUE (stream_id, stream_version)")
        await connection.execute("ALTER TABLE events ENABLE TRIGGER events_append_only_rows")


async def verdict_of(store: EventStore, table: str) -> TableVerdict:
    return verify_table(await load_table_record(store, table), await public_keys(store.pool))


def problems_of(verdict: TableVerdict) -> list[str]:
    found = [f"{s.label}: {p}" for s in verdict.streams for p in s.problems]
    found += [f"game {g.number}: {p}" for g, v in verdict.games for p in v.problems]
    return found + [str(p) for p in (*verdict.store_problems, *verdict.seal_problems)]


async def first_of(pool: asyncpg.Pool, stream: str, event_type: str) -> int:
    version = await pool.fetchval("SELECT min(stream_version) FROM events WHERE stream_id = $1 "
                                  "AND event_type = $2", stream, event_type)
    assert version is not None, (stream, event_type)
    return int(version)


# ------------------------------------------------------------ verify alone


async def test_what_was_played_verifies_whole(played: Played, store: EventStore,
                                              copy: str) -> None:
    for table in played.tables:
        verdict = await verdict_of(store, table)
        assert verdict.ok, problems_of(verdict)
        assert verdict.seals == len(played.receipts[table]) >= 1
        assert [s.events for s in verdict.streams][1] == 1  # the chat line
    result = muggins("replay", "verify", played.tables[0], database_url=copy)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "=== table stream" in result.stdout and "=== chat" in result.stdout
    assert "hand(s) sealed, each signed by the site" in result.stdout
    assert "all fair" in result.stdout
    whole = await verify_whole_store(store)
    assert not whole.problems and whole.events == await store.head_position()


async def test_rewriting_who_sat_where_is_named(played: Played, pool: asyncpg.Pool,
                                                store: EventStore, copy: str) -> None:
    table = played.tables[0]
    await tamper(pool, """UPDATE events SET payload = jsonb_set(payload, '{bots,0,level}',
                          '"expert"') WHERE stream_id = $1 AND stream_version = 1""",
                 table_stream(table))
    verdict = await verdict_of(store, table)
    assert verdict.streams[0].problems and "TableOpened at the table stream version 1 is the " \
        "first changed event" in str(verdict.streams[0].problems[0])
    result = muggins("replay", "verify", table, database_url=copy)
    assert result.returncode == 1 and "PROBLEMS FOUND" in result.stdout
    assert "✗ TableOpened at the table stream version 1" in result.stdout


async def test_rewording_a_chat_line_is_named(played: Played, pool: asyncpg.Pool,
                                              store: EventStore) -> None:
    table = played.tables[0]
    await tamper(pool, """UPDATE events SET payload = jsonb_set(payload, '{text}',
                          '"you cheat"') WHERE stream_id = $1""", chat_stream(table))
    verdict = await verdict_of(store, table)
    assert not verdict.ok
    assert "ChatSaid at the chat version 1 is the first changed event" in \
        str(verdict.streams[1].problems[0])


async def test_deleting_the_last_hand_of_a_finished_game_is_named(
        played: Played, pool: asyncpg.Pool, store: EventStore) -> None:
    table = played.tables[0]
    stream = game_stream(table, 1)
    last = await pool.fetchval("SELECT max(stream_version) FROM events WHERE stream_id = $1 "
                               "AND event_type = 'HandStarted'", stream)
    await tamper(pool, "DELETE FROM events WHERE stream_id = $1 AND stream_version >= $2",
                 stream, last)
    problems = "\n".join(problems_of(await verdict_of(store, table)))
    assert "has no version" in problems and "the game was cut short" in problems


@pytest.mark.parametrize("stream_kind", ["table", "chat", "game"])
@pytest.mark.parametrize("field", ["payload", "event_type", "audience", "actor", "event_id",
                                   "correlation_id", "recorded_at", "chain", "global_chain"])
async def test_an_edit_of_any_stored_field_of_any_stream_is_caught(
        played: Played, pool: asyncpg.Pool, store: EventStore, field: str,
        stream_kind: str) -> None:
    table = played.tables[1]
    stream = {"table": table_stream(table), "chat": chat_stream(table),
              "game": game_stream(table, 1)}[stream_kind]
    change = {
        "payload": "payload = payload || '{\"x\": 1}'",
        "event_type": "event_type = event_type || 'X'",
        "audience": "audience = CASE audience WHEN 'audit' THEN 'public' ELSE 'audit' END",
        "actor": "actor = CASE actor WHEN 'seat:3' THEN 'system' ELSE 'seat:3' END",
        "event_id": "event_id = gen_random_uuid()",
        "correlation_id": "correlation_id = gen_random_uuid()",
        "recorded_at": "recorded_at = recorded_at + interval '1 microsecond'",
        "chain": "chain = sha256(chain)",
        "global_chain": "global_chain = sha256(global_chain)",
    }[field]
    await tamper(pool, f"UPDATE events SET {change} WHERE stream_id = $1 AND "
                       f"stream_version = 1", stream)
    verdict = await verdict_of(store, table)
    assert not verdict.ok, (field, stream_kind)


async def test_a_deleted_event_in_the_middle_of_the_store_is_a_gap(
        played: Played, pool: asyncpg.Pool, store: EventStore, copy: str) -> None:
    # An event of the first table's game, deleted: the second table's record
    # is untouched, but the store has a gap, and the first table's stream too.
    victim = await pool.fetchval("SELECT position FROM events WHERE stream_id = $1 AND "
                                 "stream_version = 5", game_stream(played.tables[0], 1))
    await tamper(pool, "DELETE FROM events WHERE position = $1", victim)
    whole = await verify_whole_store(store)
    assert any(f"position {victim} holds no event" in p for p in whole.problems)
    result = muggins("replay", "verify", "--store", database_url=copy)
    assert result.returncode == 1 and f"position {victim} holds no event" in result.stdout
    problems = "\n".join(problems_of(await verdict_of(store, played.tables[0])))
    assert f"position {victim}" in problems and "deleted" in problems


async def test_a_swapped_stream_is_named(played: Played, pool: asyncpg.Pool,
                                         store: EventStore) -> None:
    first, second = (game_stream(t, 1) for t in played.tables)
    for old, new in ((first, "swapping"), (second, first), ("swapping", second)):
        await tamper(pool, "UPDATE events SET stream_id = $2 WHERE stream_id = $1", old, new)
    for table in played.tables:
        problems = "\n".join(problems_of(await verdict_of(store, table)))
        assert "is the first changed event" in problems
        assert "has another chain value than the one sealed" in problems


# ------------------------------------------------------------ a receipt or a checkpoint


def receipts_file(played: Played, table: str, tmp_path: Path) -> Path:
    path = tmp_path / "receipts.json"
    path.write_text(json.dumps(played.receipts[table]))
    return path


def checkpoint_file(played: Played, tmp_path: Path) -> Path:
    path = tmp_path / "checkpoint.json"
    path.write_text(json.dumps(played.checkpoint))
    return path


async def test_a_game_tail_deleted_and_everything_recomputed_shows_against_the_receipts(
        played: Played, pool: asyncpg.Pool, store: EventStore, copy: str,
        tmp_path: Path) -> None:
    table = played.tables[0]
    stream = game_stream(table, 1)
    last = await pool.fetchval("SELECT max(stream_version) FROM events WHERE stream_id = $1 "
                               "AND event_type = 'HandStarted'", stream)
    hand = await pool.fetchval("SELECT count(*) FROM events WHERE stream_id = $1 AND "
                               "event_type = 'HandStarted'", stream)
    await tamper(pool, "DELETE FROM events WHERE stream_id = $1 AND stream_version >= $2",
                 stream, last)
    await tamper(pool, "DELETE FROM events WHERE stream_id = $1 AND event_type = 'HandSealed' "
                       "AND (payload->>'hand')::int = $2", table_stream(table), hand)
    await rechain(pool)
    # The record now holds together on its own ...
    assert not (await verdict_of(store, table)).store_problems
    # ... but not against what the players were given.
    receipts = [msgspec.convert(r, Receipt) for r in played.receipts[table]]
    found, _ = await check_receipts(store, table, receipts, await public_keys(pool), 1)
    assert any(problems for _, problems in found)
    result = muggins("replay", "verify", table, "--receipt",
                     str(receipts_file(played, table, tmp_path)), database_url=copy)
    assert result.returncode == 1, result.stdout
    assert f"receipt for game 1 hand {hand}" in result.stdout
    kept = checkpoint_file(played, tmp_path)
    against = muggins("replay", "verify", "--checkpoint", str(kept), database_url=copy)
    assert against.returncode == 1 and "PROBLEMS FOUND" in against.stdout


async def test_the_store_tail_deleted_shows_against_a_checkpoint(
        played: Played, pool: asyncpg.Pool, store: EventStore, copy: str,
        tmp_path: Path) -> None:
    kept = msgspec.convert(played.checkpoint, Checkpoint)
    await tamper(pool, "DELETE FROM events WHERE position > $1", kept.position - 7)
    problems, _ = await check_checkpoint(store, kept, await public_keys(pool))
    assert any("cut" in p for p in problems), problems
    result = muggins("replay", "verify", "--checkpoint", str(checkpoint_file(played, tmp_path)),
                     database_url=copy)
    assert result.returncode == 1 and "was cut" in result.stdout


async def test_a_stream_rewritten_with_its_chains_recomputed_shows_against_both(
        played: Played, pool: asyncpg.Pool, store: EventStore, copy: str,
        tmp_path: Path) -> None:
    table = played.tables[1]
    version = await first_of(pool, game_stream(table, 1), "PointsScored")
    await tamper(pool, """UPDATE events SET actor = 'seat:1' WHERE stream_id = $1
                          AND stream_version = $2""", game_stream(table, 1), version)
    await rechain(pool)
    verdict = await verdict_of(store, table)
    assert not verdict.store_problems and all(not s.problems for s in verdict.streams)
    kept = msgspec.convert(played.checkpoint, Checkpoint)
    problems, _ = await check_checkpoint(store, kept, await public_keys(pool))
    assert any("not the one the site signed" in p for p in problems), problems
    table_wise, _ = await check_checkpoint(store, kept, await public_keys(pool),
                                           from_position=1)
    assert table_wise
    result = muggins("replay", "verify", table, "--receipt",
                     str(receipts_file(played, table, tmp_path)), database_url=copy)
    assert result.returncode == 1 and "✗ receipt for game 1" in result.stdout


async def test_the_untouched_store_holds_to_its_receipts_and_checkpoint(
        played: Played, copy: str, tmp_path: Path) -> None:
    table = played.tables[0]
    result = muggins("replay", "verify", table, "--receipt",
                     str(receipts_file(played, table, tmp_path)), "--checkpoint",
                     str(checkpoint_file(played, tmp_path)), database_url=copy)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "the stored record is what the player was given" in result.stdout
    assert "the store reaches it" in result.stdout and "all as the site signed" in result.stdout
    whole = muggins("replay", "verify", "--checkpoint", str(checkpoint_file(played, tmp_path)),
                    database_url=copy)
    assert whole.returncode == 0, whole.stdout + whole.stderr


async def test_a_forged_receipt_is_called_a_forgery(played: Played, copy: str,
                                                    tmp_path: Path) -> None:
    table = played.tables[0]
    honest = played.receipts[table][0]
    edited = {**honest, "chain": "ab" * 32}
    other_key = SiteKey.generate()
    unsigned = msgspec.convert({**honest, "key_id": other_key.key_id}, Receipt)
    by_another = {**msgspec.to_builtins(unsigned),
                  "signature": other_key.sign(signed_bytes(unsigned)).hex()}
    for forged in (edited, by_another):
        path = tmp_path / "forged.json"
        path.write_text(json.dumps(forged))
        result = muggins("replay", "verify", table, "--receipt", str(path), database_url=copy)
        assert result.returncode == 1
        assert "is a forgery" in result.stdout, result.stdout


@pytest.mark.parametrize(("content", "says"), [
    (b"", "is empty"),
    (b'{"format": "muggins-receipt", "table": "Ab', "cut short"),
    (b"not json at all", "not JSON"),
    (b'{"format": "muggins-checkpoint"}', "not a muggins receipt"),
    (b'{"format": "muggins-receipt", "table": "Abcd1234", "game": "one"}',
     "not a muggins receipt"),
    (b"[" + b'"x",' * 400_000 + b'"x"]', "at most"),
])
async def test_bad_receipt_and_checkpoint_files_get_a_clear_error(
        played: Played, copy: str, tmp_path: Path, content: bytes, says: str) -> None:
    path = tmp_path / "given.json"
    path.write_bytes(content)
    result = muggins("replay", "verify", played.tables[0], "--receipt", str(path),
                     database_url=copy)
    assert result.returncode == 1 and says in result.stderr, result.stderr
    assert "Traceback" not in result.stderr
    checked = muggins("replay", "verify", "--checkpoint", str(path), database_url=copy)
    assert checked.returncode == 1 and "Traceback" not in checked.stderr
    missing = muggins("replay", "verify", "--checkpoint", str(tmp_path / "nope.json"),
                      database_url=copy)
    assert missing.returncode == 1 and "cannot read" in missing.stderr




# ------------------------------------------------------------ the evidence file


CHECKER = Path(__file__).resolve().parents[2] / "docs" / "check_evidence.py"


def check_offline(path: Path) -> subprocess.CompletedProcess[str]:
    """docs/check_evidence.py, as anyone runs it: plain Python, no site packages."""
    return subprocess.run([sys.executable, "-I", "-S", str(CHECKER), str(path)],
                          capture_output=True, text=True, timeout=120, check=False)


@pytest.mark.parametrize("scope", [(), ("--game", "1"), ("--game", "1", "--hand", "2")])
async def test_the_evidence_file_is_checked_offline_and_a_tampered_one_refused(
        played: Played, copy: str, tmp_path: Path, scope: tuple[str, ...]) -> None:
    table = played.tables[0]
    exported = muggins("replay", "export", table, "--evidence", *scope, database_url=copy)
    assert exported.returncode == 0, exported.stderr
    evidence = json.loads(exported.stdout)
    assert evidence["format"] == "muggins-evidence" and evidence["checkpoint"] is not None
    assert evidence["receipts"] == played.receipts[table]
    streams = {e["stream_id"] for e in evidence["events"]}
    assert {table_stream(table), chat_stream(table), game_stream(table, 1)} <= streams
    path = tmp_path / "evidence.json"
    path.write_text(exported.stdout)
    checked = check_offline(path)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert checked.stdout.splitlines()[-1].startswith("OK")

    game_event = next(e for e in evidence["events"] if e["stream_id"] == game_stream(table, 1)
                      and e["event_type"] == "PointsScored")
    game_event["payload"]["points"] += 5
    path.write_text(json.dumps(evidence))
    tampered = check_offline(path)
    assert tampered.returncode == 1 and "PROBLEM" in tampered.stdout, tampered.stdout
    game_event["payload"]["points"] -= 5
    evidence["receipts"][0]["chain"] = "ab" * 32
    path.write_text(json.dumps(evidence))
    forged = check_offline(path)
    assert forged.returncode == 1 and "forgery" in forged.stdout, forged.stdout


async def test_an_evidence_file_of_what_is_not_there_is_refused_clearly(
        played: Played, copy: str) -> None:
    table = played.tables[0]
    for args, says in ((("--game", "9"), "has no game 9"),
                       (("--game", "1", "--hand", "99"), "has no finished hand 99"),
                       (("--hand", "1"), "add --game N")):
        result = muggins("replay", "export", table, "--evidence", *args, database_url=copy)
        assert result.returncode == 1 and says in result.stderr, result.stderr


# ------------------------------------------------------------ disputes from the terminal


async def test_an_operator_lists_reads_and_resolves_a_dispute_from_the_terminal(
        played: Played, store: EventStore, copy: str) -> None:
    table = played.tables[1]
    seating = Seating(PostgresSeatKeys(store.pool), store)
    disputes = Disputes(seating, Commands(store, seating, Timings(), BroadcastClock(),
                                          Wakeups()))
    await disputes.open(table, played.tokens[table], 1, 1, "the bot drew too well")
    listed = muggins("dispute", "list", "--open", database_url=copy)
    assert listed.returncode == 0, listed.stderr
    assert f"{table} #1  game 1 hand 1  Ana (seat 0)  open" in listed.stdout
    shown = muggins("dispute", "show", table, "1", database_url=copy)
    assert shown.returncode == 0, shown.stderr
    assert "✓ every stream as appended" in shown.stdout and "← disputed" in shown.stdout
    assert " person " in shown.stdout and " bot " in shown.stdout
    assert "checkpoint after: position" in shown.stdout
    resolved = muggins("dispute", "resolve", table, "1", "--verdict", "rejected", "--note",
                       "Every draw came from the committed seed.", "--by", "Marta",
                       database_url=copy)
    assert resolved.returncode == 0, resolved.stderr
    assert "rejected by Marta" in resolved.stdout
    again = muggins("dispute", "resolve", table, "1", "--verdict", "upheld", "--note", "x",
                    "--by", "Op", database_url=copy)
    assert again.returncode == 1 and "resolved already" in again.stderr
    for args in (("show", table, "7"), ("show", "no!", "1"), ("resolve", table, "2",
                                                             "--verdict", "upheld", "--note",
                                                             "x", "--by", "y")):
        refused = muggins("dispute", *args, database_url=copy)
        assert refused.returncode == 1 and "Traceback" not in refused.stderr, refused.stderr
    # The resolution is an event of the table stream: the table still verifies whole.
    assert (await verdict_of(store, table)).ok
