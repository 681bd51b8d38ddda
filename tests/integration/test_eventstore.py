"""The event store against a real PostgreSQL."""

from __future__ import annotations

import asyncio
import re
import time

import asyncpg
import pytest

from muggins.eventstore.migrations import MIGRATIONS, applied_versions, upgrade
from muggins.eventstore.store import ConcurrencyError, EventStore, StoreUnavailable, create_pool
from muggins.rules.events import Passed, PointsScored, TileDrawn, TilePlayed
from muggins.rules.tiles import Tile
from muggins.sql import migration_files

MOVE = [TilePlayed(1, 0, Tile(1, 4), 0, 10, None), PointsScored(1, 0, 0, 10, "count")]


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
        "audience", "actor", "correlation_id", "causation_id", "recorded_at",
    }


async def test_append_then_read_back(store: EventStore) -> None:
    corr = "3f1c5e9a-8d1b-4f7e-9a41-6b7d0e1c2a3b"
    recorded = await store.append("table-a", 0, MOVE, actor="seat:0", correlation_id=corr)
    assert [r.stream_version for r in recorded] == [1, 2]
    assert [r.position for r in recorded] == [1, 2]
    drawn = TileDrawn(1, 1, Tile(2, 3))
    await store.append("table-a", 2, [drawn, Passed(1, 1)], actor="system")
    stream = await store.read_stream("table-a")
    assert [r.event() for r in stream] == [*MOVE, drawn, Passed(1, 1)]
    assert [r.audience for r in stream] == ["public", "public", "seat:1", "public"]
    assert stream[0].correlation_id == corr and stream[0].actor == "seat:0"
    assert stream[0].recorded_at == recorded[0].recorded_at
    assert [r.stream_version for r in await store.read_stream("table-a", after_version=2)] == [3, 4]
    assert await store.stream_version("table-a") == 4
    assert await store.stream_version("nothing-here") == 0
    assert [r.position for r in await store.read_all(1, limit=2)] == [2, 3]
    assert await store.head_position() == 4


async def test_two_writers_at_the_same_version_exactly_one_wins(
    store: EventStore, pool: asyncpg.Pool
) -> None:
    await store.append("table-b", 0, MOVE, actor="seat:0")
    other = EventStore(pool)  # a second writer with its own batching
    try:
        results = await asyncio.gather(
            store.append("table-b", 2, [Passed(1, 1)], actor="seat:1"),
            other.append("table-b", 2, [Passed(1, 1)], actor="bot:1"),
            return_exceptions=True,
        )
    finally:
        await other.close()
    winners = [r for r in results if not isinstance(r, BaseException)]
    losers = [r for r in results if isinstance(r, ConcurrencyError)]
    assert len(winners) == 1 and len(losers) == 1
    assert "table-b" in str(losers[0])
    assert await store.stream_version("table-b") == 3


async def test_a_conflict_in_one_batch_does_not_fail_the_others(store: EventStore) -> None:
    # Appended together: they share one transaction, yet only the stale one fails.
    results = await asyncio.gather(
        store.append("c1", 0, MOVE, actor="seat:0"),
        store.append("c2", 5, MOVE, actor="seat:0"),
        store.append("c3", 0, MOVE, actor="seat:0"),
        store.append("c1", 0, MOVE, actor="seat:1"),
        return_exceptions=True,
    )
    kinds = [type(r).__name__ for r in results]
    assert kinds[1] == "ConcurrencyError" and kinds[2] == "list"
    # The two appends to c1 at version 0: exactly one wins, whichever came first.
    assert sorted([kinds[0], kinds[3]]) == ["ConcurrencyError", "list"]
    assert await store.stream_version("c2") == 0
    positions = [r.position for r in await store.read_all(0)]
    assert positions == [1, 2, 3, 4]


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
            await target.append(stream, version, MOVE, actor="seat:0")
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
    await store.append("table-c", 0, MOVE, actor="seat:0")
    with pytest.raises(asyncpg.InsufficientPrivilegeError, match="append-only"):
        await pool.execute(statement)
    assert len(await store.read_stream("table-c")) == 2


async def test_stream_ids_become_subject_tokens(store: EventStore) -> None:
    for bad in ("has.dot", "has space", "", "x" * 65, "star*"):
        with pytest.raises(ValueError, match="stream id"):
            await store.append(bad, 0, MOVE, actor="seat:0")


async def test_unreachable_database_is_a_clear_error() -> None:
    with pytest.raises(StoreUnavailable, match=re.escape("cannot reach PostgreSQL at 127.0.0.1:9")):
        await create_pool("postgresql://postgres@127.0.0.1:9/none")
