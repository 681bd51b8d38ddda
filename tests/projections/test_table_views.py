"""The table-views projector against real PostgreSQL: exactly once, whatever
the deliveries, restarts and kills."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time

import asyncpg
import pytest

from muggins.eventstore.store import EventStore
from muggins.infra.embedded import EmbeddedNats
from muggins.projections.read_models import TableViews
from muggins.projections.runner import ProjectorRunner
from muggins.rules.presets import preset
from tests.projections.streams import game_batches, store_interleaved
from tests.support.leagues import BOARD, store_league

READER_NAME = "projector:table-views"
READ_MODEL = "SELECT stream_id, table_id, game, version, position, state, public_view, phase " \
             "FROM table_views ORDER BY stream_id"


async def store_games(store: EventStore, count: int, name: str = "block", seats: int = 2,
                      prefix: str = "t") -> int:
    """Store ``count`` games, their commands interleaved as tables play at once."""
    rules = preset(name, seats, seats == 4 and name == "playelephant")
    return await store_interleaved(
        store, [(f"{prefix}{i}-g1", game_batches(rules, f"{prefix}/{i}")) for i in range(count)]
    )


async def snapshot(pool: asyncpg.Pool) -> list[tuple[object, ...]]:
    return [tuple(row) for row in await pool.fetch(READ_MODEL)]


async def test_a_second_delivery_of_everything_changes_nothing(
    store: EventStore, pool: asyncpg.Pool
) -> None:
    await store_games(store, 12, "playelephant")
    runner = ProjectorRunner(pool, store, TableViews(), page_size=97)
    first = await runner.catch_up()
    assert first == await store.head_position()
    once = await snapshot(pool)
    assert len(once) == 12 and {row[7] for row in once} == {"game-over"}
    # Every event again, as after a lost checkpoint or a replayed bus: no-op.
    await pool.execute("UPDATE checkpoints SET position = 0 WHERE reader = $1", READER_NAME)
    await runner.catch_up()
    assert await snapshot(pool) == once
    # Two runners on the same page: one writes, the other changes nothing.
    await runner.rebuild()
    page = await store.read_all(0, 50)
    results = await asyncio.gather(
        ProjectorRunner(pool, store, TableViews()).apply_page(0, page),
        ProjectorRunner(pool, store, TableViews()).apply_page(0, page),
    )
    assert sorted(results) == [False, True]
    await runner.catch_up()
    assert await snapshot(pool) == once


async def test_incremental_projection_equals_a_rebuild(
    store: EventStore, pool: asyncpg.Pool
) -> None:
    runner = ProjectorRunner(pool, store, TableViews(), page_size=64)
    for round_number in range(3):
        await store_games(store, 4, "all-fives", 3, prefix=f"r{round_number}-")
        await runner.catch_up()
    incremental = await snapshot(pool)
    await runner.rebuild()
    assert await snapshot(pool) == []
    await runner.catch_up()
    assert await snapshot(pool) == incremental
    public = await pool.fetchval("SELECT public_view::text FROM table_views LIMIT 1")
    assert '"tiles":null' in public.replace(" ", "")


async def test_two_runners_taking_turns_build_what_one_rebuild_does(
    store: EventStore, pool: asyncpg.Pool
) -> None:
    """A runner keeps the documents it wrote between its pages; when another
    runner wrote pages in between, it must read them again (it trusts what
    it kept only while its pages follow one another)."""
    await store_games(store, 6, "playelephant")
    runners = [ProjectorRunner(pool, store, TableViews(), page_size=7) for _ in range(2)]
    turn = 0
    after = 0
    while page := await store.read_all(after, 7):
        assert await runners[turn % 3 % 2].apply_page(after, page)  # A, B, A, A, B, A...
        after = page[-1].position
        turn += 1
    taking_turns = await snapshot(pool)
    await runners[0].rebuild()
    await runners[0].catch_up()
    assert await snapshot(pool) == taking_turns
    assert {row[7] for row in taking_turns} == {"game-over"}


async def test_a_projector_started_after_a_thousand_games_catches_up(
    store: EventStore, pool: asyncpg.Pool
) -> None:
    total = await store_games(store, 1000, "block", 2)
    runner = ProjectorRunner(pool, store, TableViews())
    began = time.perf_counter()
    assert await runner.catch_up() == total
    assert await pool.fetchval("SELECT count(*) FROM table_views") == 1000
    assert await runner.report_lag() == 0
    assert time.perf_counter() - began < 60


def project(database_url: str, nats_url: str, name: str, *args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "MUGGINS_DATABASE_URL": database_url, "MUGGINS_NATS_URL": nats_url,
           "MUGGINS_LOG_LEVEL": "warning"}
    return subprocess.Popen([sys.executable, "-m", "muggins.cli", "project", name, *args],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["table-views", "leaderboard"])
async def test_a_projector_killed_mid_stream_resumes_to_what_a_rebuild_gives(
    store: EventStore, pool: asyncpg.Pool, database_url: str, nats_server: EmbeddedNats,
    name: str,
) -> None:
    # Enough events for a run of pages (2,000 events each, a checkpoint
    # after each): about 36,000 for the table views and 25,000 for the
    # leaderboard, 13-18 pages.  A page is a read and a transaction, far
    # longer than the poll's 10 ms, so the poll sees the checkpoint part-way.
    if name == "table-views":
        await store_games(store, 150, "playelephant")
        read_model = READ_MODEL
    else:
        await store_league(store, 150)
        read_model = BOARD
    total = await store.head_position()
    reader = f"projector:{name}"
    process = project(database_url, nats_server.url, name)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        position = await store.checkpoint(reader)
        if 0 < position < total:
            break
        await asyncio.sleep(0.01)
    process.send_signal(signal.SIGKILL)
    process.wait(10)
    assert 0 < await store.checkpoint(reader) < total, "killed mid-stream"
    again = project(database_url, nats_server.url, name)
    while await store.checkpoint(reader) < total and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    again.send_signal(signal.SIGTERM)
    again.wait(20)
    resumed = [tuple(row) for row in await pool.fetch(read_model)]
    assert resumed, "the read model is empty"
    rebuild = project(database_url, nats_server.url, name, "--rebuild")
    out, err = rebuild.communicate(timeout=120)
    assert rebuild.returncode == 0, err
    assert f"rebuilt from {total} events" in out
    assert [tuple(row) for row in await pool.fetch(read_model)] == resumed


@pytest.mark.parametrize("bad", ["no-such-projector"])
def test_unknown_projector_is_a_usage_error(bad: str) -> None:
    result = subprocess.run([sys.executable, "-m", "muggins.cli", "project", bad],
                            capture_output=True, text=True, check=False)
    assert result.returncode == 2 and "table-views" in result.stderr
