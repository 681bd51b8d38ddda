"""PostgreSQL stops answering for 40 s (every one of its processes SIGSTOPped),
then carries on: every game must still end, and nothing may escape the
service's own handling on the way (no "Task exception was never retrieved",
no unhandled traceback in its log)."""

from __future__ import annotations

import asyncio
import contextlib
import time

import pytest

from muggins.eventstore.store import EventStore
from muggins.infra.embedded import EmbeddedPostgres
from tests.support.clients import loopback_http
from tests.support.processes import Launcher, freeze_postgres, thaw, unhandled_errors
from tests.support.scripted_players import (
    bot_tables_then_a_person,
    settle,
)
from tests.support.store_watch import StoreWatch, TableProgress

BOT_TABLES = 4
# A game long enough to outlast the stretch before the pause on a loaded
# machine (at 100, CI once saw games end before the pause began).
TARGET = 200
CLOCK = 5
BOT_DELAY = 0.1
PLAY_FIRST = 1.0
PAUSE = 40.0
FINISH = 90.0
STALL = 25.0


@pytest.mark.slow
async def test_every_game_ends_after_postgres_is_paused_40_s(
    launcher: Launcher, store: EventStore, postgres: EmbeddedPostgres
) -> None:
    service = launcher.service("serve", bot_delay=BOT_DELAY, hand_pause=1.0)
    await service.start_ready()
    deadline = time.monotonic() + PAUSE + 120
    playing: asyncio.Task[None] | None = None
    try:
        async with loopback_http(base_url=service.url, timeout=10) as http:
            made = await bot_tables_then_a_person(
                http, [service.ws_url], bot_tables=BOT_TABLES, target=TARGET, clock=CLOCK,
                deadline=deadline)
            playing = made.playing
        human, table_id = made.human, made.human.table_id
        tables = [TableProgress(t) for t in made.table_ids]
        watch = StoreWatch(store)
        await watch.wait_under_way(tables, played=PLAY_FIRST)
        stopped: list[int] = []
        try:
            freeze_postgres(postgres.pgdata, stopped)
            await asyncio.sleep(PAUSE)
        finally:
            thaw(stopped)  # the servers are shared by the whole session
        resumed = time.monotonic()
        problems = []
        try:
            await watch.wait_finished(
                tables, within=FINISH, stall=STALL, since=resumed,
                after=f"after PostgreSQL ({len(stopped)} processes) was paused {PAUSE:.0f} s",
            )
            await settle([playing], STALL)
            if not human.over:
                problems.append(f"the person at {table_id} never saw GameEnded "
                                f"(at version {human.version}; {human.last_failure})")
            for table in tables:
                await watch.checked_game(table.table_id)
            problems += human.problems
            problems += human.check_store(await watch.checked_game(table_id))
        except AssertionError as error:
            problems.append(str(error))
        service.stop()
        escaped = unhandled_errors(service.log_text())
        if escaped:
            problems.append(f"the service's log shows {len(escaped)} unhandled exceptions "
                            f"after the pause, e.g.:\n  " + "\n  ".join(escaped[:8]))
        assert not problems, "\n".join(problems)
    finally:
        if playing is not None:
            playing.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await playing
