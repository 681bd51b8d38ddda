"""NATS dies for 10 s, then comes back on the same port: the service must
recover by itself (ready again), finish the games it had, and play a new
one start to finish for a person who depends on the bus for every event."""

from __future__ import annotations

import asyncio
import contextlib
import time

import pytest

from muggins.eventstore.store import EventStore
from muggins.infra.embedded import EmbeddedNats
from tests.support.clients import loopback_http
from tests.support.processes import Launcher, wait_ready
from tests.support.scripted_players import (
    ScriptedHuman,
    bot_tables_then_a_person,
    create_table,
    human_table,
    settle,
    sit,
)
from tests.support.store_watch import StoreWatch, TableProgress

BOT_TABLES = 3
#: Two bots at 0.1 s a move reach 100 in seconds, and the person, who answers
#: at once, sooner (a game to 100 ends within 2.5 s of its start 7% of the
#: time): once each, on a busy machine, a game ended before the outage (the
#: harness's "games ended before the fault began").  At 200 almost none ends
#: within 4 s, and the median game, about 10 s, ends well within FINISH.
TARGET = 200
CLOCK = 5
BOT_DELAY = 0.1
PLAY_FIRST = 2.0
OUTAGE = 10.0
READY_AGAIN = 20.0
FINISH = 60.0
STALL = 20.0


@pytest.mark.slow
async def test_the_service_recovers_when_nats_is_killed_for_10_s(
    launcher: Launcher, store: EventStore, nats_server: EmbeddedNats
) -> None:
    service = launcher.service("serve", bot_delay=BOT_DELAY, hand_pause=1.0)
    await service.start_ready()
    deadline = time.monotonic() + 180
    playing: list[asyncio.Task[None]] = []
    try:
        async with loopback_http(base_url=service.url, timeout=10) as http:
            made = await bot_tables_then_a_person(
                http, [service.ws_url], bot_tables=BOT_TABLES, target=TARGET, clock=CLOCK,
                deadline=deadline)
            playing.append(made.playing)
        human, table_id = made.human, made.human.table_id
        tables = [TableProgress(t) for t in made.table_ids]
        watch = StoreWatch(store)
        await watch.wait_under_way(tables, played=PLAY_FIRST)
        try:
            nats_server.kill()
            await asyncio.sleep(OUTAGE)
        finally:
            if nats_server.running_pid() is None:
                nats_server.start()  # the server is shared by the whole session
        back = time.monotonic()
        try:
            await wait_ready(service.url, READY_AGAIN, service.process)
        except AssertionError as error:
            raise AssertionError(f"the service did not recover from a {OUTAGE:.0f} s NATS "
                                 f"outage by itself: {error}") from None
        await watch.wait_finished(tables, within=FINISH, stall=STALL, since=back,
                                  after=f"after NATS was killed for {OUTAGE:.0f} s")
        await settle(playing[:1], STALL)
        assert human.over, (f"the person at {table_id} never saw GameEnded after the outage "
                            f"(at version {human.version}; {human.last_failure})")

        # A new game after the outage, every event to the person through the bus.
        async with loopback_http(base_url=service.url, timeout=10) as http:
            new_table = await create_table(http, **human_table(50, CLOCK))
            newcomer = ScriptedHuman([service.ws_url], new_table,
                                     await sit(http, new_table, 0, "Bea"))
        playing.append(asyncio.create_task(newcomer.run(deadline)))
        await watch.wait_finished([TableProgress(new_table)], within=FINISH, stall=STALL,
                                  after="(a table created after the NATS outage)")
        await settle(playing[1:], STALL)
        assert newcomer.over, (f"the person at the new table {new_table} never saw GameEnded "
                               f"(at version {newcomer.version}; {newcomer.last_failure})")
        problems = human.problems + newcomer.problems
        for table in tables:
            await watch.checked_game(table.table_id)
        problems += human.check_store(await watch.checked_game(table_id))
        problems += newcomer.check_store(await watch.checked_game(new_table))
        assert not problems, "\n".join(problems)
    finally:
        for task in playing:
            task.cancel()
        for task in playing:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
