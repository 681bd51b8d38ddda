"""The event store against a real PostgreSQL."""

from __future__ import annotations

import asyncio
import json
import random
import re
import time
import uuid
from typing import get_args

import asyncpg
import msgspec
import pytest

from muggins.bots.selfplay import make_bots, play_game
from muggins.domain.codec import StoredEvent, encoded_all, game_event
from muggins.domain.table_events import (
    AbsenceDecided,
    AnyTableEvent,
    BotAtSeat,
    BotTookOver,
    DisputeOpened,
    DisputeResolved,
    GameBegun,
    HandSealed,
    PlayerReturned,
    RematchAsked,
    SeatTaken,
    TableClosed,
    TableOpened,
)
from muggins.eventstore.migrations import MIGRATIONS, applied_versions, upgrade
from muggins.eventstore.records import (
    GENESIS_CHAIN,
    ConcurrencyError,
    RecordedEvent,
    canonical_json,
    chain_link,
    event_digest,
    recorded_at_text,
)
from muggins.eventstore.store import EventStore, StoreUnavailable, create_pool
from muggins.infra.sql import migration_files
from muggins.rules.events import AnyEvent, Passed, TileDrawn
from muggins.rules.presets import preset
from muggins.rules.shuffle import game_seed_from_text
from muggins.rules.tiles import Tile
from tests.integration.events import MOVE

#: Strings canonical JSON must get right: every escape, letters beyond ASCII,
#: beyond the BMP, and the separators JavaScript once had to escape.
AWKWARD = "".join(chr(c) for c in range(1, 128)) + "é✓😀\u2028\u2029\ufeff中"


def chain_breaks(recorded: list[RecordedEvent]) -> int | None:
    """The position of the first event whose stored chain value the definition
    (docs/fairness.md) does not give, each stream chained on its own; None if none."""
    previous: dict[str, bytes] = {}
    for r in sorted(recorded, key=lambda r: (r.stream_id, r.stream_version)):
        digest = event_digest(
            stream_id=r.stream_id, stream_version=r.stream_version, event_type=r.event_type,
            payload=bytes(r.payload), audience=r.audience, actor=r.actor,
            correlation_id=r.correlation_id, causation_id=r.causation_id, event_id=r.event_id)
        expected = chain_link(previous.get(r.stream_id, GENESIS_CHAIN), digest, r.position,
                              recorded_at_text(r.recorded_at))
        if r.chain != expected:
            return r.position
        previous[r.stream_id] = expected
    return None


async def test_migrations_apply_once_and_match_the_files(pool: asyncpg.Pool) -> None:
    assert await upgrade(pool) == []  # the fixture applied them already
    assert await applied_versions(pool) == [v for v, _, _ in migration_files(MIGRATIONS)]
    columns = {
        row["column_name"]
        for row in await pool.fetch(
            "SELECT column_name FROM information_schema.columns WHERE table_name = 'events'"
        )
    }
    assert columns == {
        "position", "event_id", "stream_id", "stream_version", "event_type", "payload",
        "audience", "actor", "correlation_id", "causation_id", "recorded_at", "chain",
        "global_chain",
    }


async def test_append_then_read_back(store: EventStore) -> None:
    corr = "3f1c5e9a-8d1b-4f7e-9a41-6b7d0e1c2a3b"
    recorded = await store.append("table-a", 0, encoded_all(MOVE),
                                  actor="seat:0", correlation_id=corr)
    assert [r.stream_version for r in recorded] == [1, 2]
    assert [r.position for r in recorded] == [1, 2]
    drawn = TileDrawn(1, 1, Tile(2, 3))
    await store.append("table-a", 2, encoded_all([drawn, Passed(1, 1)]), actor="system")
    stream = await store.read_stream("table-a")
    assert [game_event(r) for r in stream] == [*MOVE, drawn, Passed(1, 1)]
    assert [r.audience for r in stream] == ["public", "public", "seat:1", "public"]
    assert stream[0].correlation_id == corr and stream[0].actor == "seat:0"
    assert stream[0].recorded_at == recorded[0].recorded_at
    assert [r.stream_version for r in await store.read_stream("table-a", after_version=2)] == [3, 4]
    assert await store.stream_version("table-a") == 4
    assert await store.stream_version("nothing-here") == 0
    assert [r.position for r in await store.read_all(1, limit=2)] == [2, 3]
    assert await store.head_position() == 4
    # Each event chained on the one before it in its stream (docs/fairness.md).
    assert all(r.chain is None for r in recorded)  # the database computes it
    assert chain_breaks(stream) is None
    assert stream[2].chain == chain_link(
        stream[1].chain or b"", event_digest(
            stream_id="table-a", stream_version=3, event_type="TileDrawn",
            payload=msgspec.json.encode(drawn), audience="seat:1", actor="system",
            correlation_id=None, causation_id=None, event_id=stream[2].event_id),
        stream[2].position, recorded_at_text(stream[2].recorded_at))


async def test_two_writers_at_the_same_version_exactly_one_wins(
    store: EventStore, pool: asyncpg.Pool
) -> None:
    await store.append("table-b", 0, encoded_all(MOVE), actor="seat:0")
    other = EventStore(pool)  # a second writer with its own batching
    try:
        results = await asyncio.gather(
            store.append("table-b", 2, encoded_all([Passed(1, 1)]), actor="seat:1"),
            other.append("table-b", 2, encoded_all([Passed(1, 1)]), actor="bot:1"),
            return_exceptions=True,
        )
    finally:
        await other.close()
    winners = [r for r in results if not isinstance(r, BaseException)]
    losers = [r for r in results if isinstance(r, ConcurrencyError)]
    assert len(winners) == 1 and len(losers) == 1
    assert "table-b" in str(losers[0])
    assert await store.stream_version("table-b") == 3


async def test_a_guarded_append_is_written_only_while_its_guard_stays_put(
    store: EventStore,
) -> None:
    """A move is decided on its table's stream too: the append's guard is
    that stream's version, checked by the store with the append."""
    await store.append("table-g", 0, encoded_all(MOVE), actor="system")
    # Guard at its version: written.  A guard stream that has no events is at 0.
    await store.append("game-g", 0, encoded_all([Passed(1, 1)]),
                       actor="seat:1", guard=("table-g", 2))
    await store.append("game-g", 1, encoded_all([Passed(1, 0)]),
                       actor="seat:0", guard=("nothing-yet", 0))
    # Guard moved on: refused, naming the guard, and nothing is written.
    with pytest.raises(ConcurrencyError, match=r"stream table-g is no longer at version 1: "
                       r"it guarded an append to game-g") as refused:
        await store.append("game-g", 2, encoded_all([Passed(1, 1)]),
                           actor="seat:1", guard=("table-g", 1))
    assert refused.value.stream_id == "table-g"
    assert await store.stream_version("game-g") == 2
    # Its own stream moved: the usual refusal, about its own stream.
    with pytest.raises(ConcurrencyError, match="stream game-g is no longer at version 1: it "
                       "is at version 2"):
        await store.append("game-g", 1, encoded_all([Passed(1, 1)]),
                           actor="seat:1", guard=("table-g", 2))
    # Sent together, the guard stream's append first: never judged in the same
    # transaction (where it would see the guard stream as it was before).
    results = await asyncio.gather(
        store.append("table-g", 2, encoded_all([Passed(1, 0)]), actor="system"),
        store.append("game-g", 2, encoded_all([Passed(1, 1)]),
                     actor="seat:1", guard=("table-g", 2)),
        return_exceptions=True,
    )
    assert isinstance(results[0], list) and isinstance(results[1], ConcurrencyError)
    assert await store.stream_version("game-g") == 2
    assert chain_breaks(await store.read_all(0)) is None


async def test_a_conflict_in_one_batch_does_not_fail_the_others(store: EventStore) -> None:
    # Appended together: they share one transaction, yet only the stale one fails.
    results = await asyncio.gather(
        store.append("c1", 0, encoded_all(MOVE), actor="seat:0"),
        store.append("c2", 5, encoded_all(MOVE), actor="seat:0"),
        store.append("c3", 0, encoded_all(MOVE), actor="seat:0"),
        store.append("c1", 0, encoded_all(MOVE), actor="seat:1"),
        return_exceptions=True,
    )
    kinds = [type(r).__name__ for r in results]
    assert kinds[1] == "ConcurrencyError" and kinds[2] == "list"
    # The two appends to c1 at version 0: exactly one wins, whichever came first.
    assert sorted([kinds[0], kinds[3]]) == ["ConcurrencyError", "list"]
    assert await store.stream_version("c2") == 0
    positions = [r.position for r in await store.read_all(0)]
    assert positions == [1, 2, 3, 4]
    assert chain_breaks(await store.read_all(0)) is None


async def test_twenty_writers_then_a_catch_up_reader_sees_everything_once_in_order(
    store: EventStore, pool: asyncpg.Pool
) -> None:
    second = EventStore(pool)  # appends also come from "another process"
    deadline = time.monotonic() + 3.0
    written: dict[str, int] = {}
    seen_live: list[int] = []

    async def writer(index: int) -> None:
        target = store if index % 2 else second
        stream = f"w{index}"
        version = 0
        while time.monotonic() < deadline:
            await target.append(stream, version, encoded_all(MOVE), actor="seat:0")
            version += 2
        written[stream] = version

    async def live_reader() -> None:
        # Reads while the writers commit: must never skip a position.
        after = 0
        while time.monotonic() < deadline + 0.5:
            page = await store.read_all(after, limit=200)
            for event in page:
                assert event.position == after + 1, "a reader skipped a position"
                after = event.position
                seen_live.append(after)
            if not page:
                await asyncio.sleep(0.005)

    try:
        await asyncio.gather(*(writer(i) for i in range(20)), live_reader())
    finally:
        await second.close()
    total = sum(written.values())
    assert total > 200
    everything = []
    after = 0
    while page := await store.read_all(after, limit=333):
        everything += page
        after = page[-1].position
    assert [e.position for e in everything] == list(range(1, total + 1))
    assert len({e.event_id for e in everything}) == total
    for stream, version in written.items():
        versions = [e.stream_version for e in everything if e.stream_id == stream]
        assert versions == list(range(1, version + 1))
    assert seen_live == list(range(1, len(seen_live) + 1))
    # Many streams' batches in each call: every stream is still its own chain.
    assert chain_breaks(everything) is None


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE events SET event_type = 'Forged'",
        "DELETE FROM events",
        "TRUNCATE events",
    ],
)
async def test_the_events_table_refuses_changes(
    store: EventStore, pool: asyncpg.Pool, statement: str
) -> None:
    await store.append("table-c", 0, encoded_all(MOVE), actor="seat:0")
    with pytest.raises(asyncpg.InsufficientPrivilegeError, match="append-only"):
        await pool.execute(statement)
    assert len(await store.read_stream("table-c")) == 2


async def test_stream_ids_become_subject_tokens(store: EventStore) -> None:
    for bad in ("has.dot", "has space", "", "x" * 65, "star*"):
        with pytest.raises(ValueError, match="stream id"):
            await store.append(bad, 0, encoded_all(MOVE), actor="seat:0")


async def test_unreachable_database_is_a_clear_error() -> None:
    with pytest.raises(StoreUnavailable, match=re.escape("cannot reach PostgreSQL at 127.0.0.1:9")):
        await create_pool("postgresql://postgres@127.0.0.1:9/none")


def every_event_type() -> list[StoredEvent]:
    """At least one event of every type, game and table, with awkward text."""
    events: list[StoredEvent] = []
    for name, seats in (("playelephant", 2), ("muggins", 3), ("block", 4), ("classic-muggins", 2)):
        game_seed = game_seed_from_text(f"canonical/{name}")
        events += play_game(preset(name, seats, False), game_seed,
                            make_bots(["greedy"] * seats, game_seed))
    rules = preset("five-up", 4, True)
    events += [
        TableOpened(ruleset=rules, turn_clock_seconds=20, bots=(BotAtSeat(1, "greedy"),)),
        SeatTaken(seat=0, player_id=str(uuid.uuid4()), name=AWKWARD),
        GameBegun(game=1),
        BotTookOver(seat=0, reason="clock", game=1, version=12, hand=1, for_the_hand=True),
        PlayerReturned(seat=0, reason="back"),
        AbsenceDecided(game=1, seats=(0, 2), choice="seat", by_seat=3),
        RematchAsked(seat=3, game=1),
        TableClosed(reason="everyone-left"),
        HandSealed(game=1, hand=2, version=40, chain="ab" * 32, position=41,
                   global_chain="cd" * 32, game_over=True,
                   signed_at="2026-12-01T09:30:00.000123Z", key_id="0123456789abcdef",
                   signature="ef" * 64),
        DisputeOpened(dispute=1, seat=0, player_id=str(uuid.uuid4()), name=AWKWARD, game=1,
                      hand=2, reason=AWKWARD, receipt='{"format": "muggins-receipt"}'),
        DisputeResolved(dispute=1, verdict="rejected", note=AWKWARD, by=AWKWARD),
    ]
    covered = {type(event) for event in events}
    assert covered == {*get_args(AnyEvent), *get_args(AnyTableEvent)}
    return events


def awkward_values() -> list[object]:
    generator = random.Random(7)
    letters = [c for c in range(1, 0x2FFFF) if not 0xD800 <= c <= 0xDFFF]
    strings = ["".join(chr(generator.choice(letters)) for _ in range(generator.randint(0, 12)))
               for _ in range(300)]
    return [
        AWKWARD, "", 0, -1, 2**62, -(2**62), True, False, None, [], {}, [[], {}, [None]],
        {"z": 1, "Z": 2, "_": 3, "a": {"é": 1, "e": [2, {"b": 0, "a": 1}]}, "aa": 4, "A": 5},
        {string: index for index, string in enumerate(strings[:50])},
        strings,
    ]


async def test_the_database_canonical_json_is_the_applications(pool: asyncpg.Pool) -> None:
    """Migration 0007 chains the events stored before it with its own canonical
    JSON: byte for byte the application's, and Python's plain json module's."""
    values = [msgspec.to_builtins(e) for e in every_event_type()] + awkward_values()
    texts = [json.dumps(value) for value in values]
    in_sql = await pool.fetch(
        "SELECT canonical_json(v) AS text FROM unnest($1::jsonb[]) WITH ORDINALITY AS x (v, n) "
        "ORDER BY n", texts)
    for value, row in zip(values, in_sql, strict=True):
        plain = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        assert canonical_json(value) == plain.encode("utf-8")
        assert row["text"] == plain


async def test_the_database_chains_every_event_type_as_the_application_does(
    store: EventStore, pool: asyncpg.Pool
) -> None:
    events = every_event_type()
    version = 0
    for start in range(0, len(events), 7):
        batch = events[start : start + 7]
        command = str(uuid.uuid4()) if start % 2 else None
        await store.append("every-type", version, encoded_all(batch), actor="system",
                           correlation_id=command, causation_id=command)
        version += len(batch)
    mismatched = await pool.fetch(
        """SELECT position FROM (
               SELECT position, chain,
                      event_chain(decode(repeat('00', 32), 'hex'),
                                  event_digest(stream_id, stream_version, event_type, payload,
                                               audience, actor, correlation_id, causation_id,
                                               event_id),
                                  position, chain_time(recorded_at))
                          OVER (PARTITION BY stream_id ORDER BY stream_version) AS again
                 FROM events) AS chained
            WHERE chain IS DISTINCT FROM again""")
    assert mismatched == []
    assert await pool.fetchval("SELECT count(*) FROM events") == len(events)
    assert chain_breaks(await store.read_all(0, limit=10_000)) is None
