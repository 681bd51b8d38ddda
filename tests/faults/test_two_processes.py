"""Two service processes on the same servers; the one that made the tables dies.

The survivor must carry on every table the dead one was driving (bots,
deals, clocks), and the person connected to the dead one reconnects to
the survivor and plays on.
"""

from __future__ import annotations

import asyncio
import contextlib
import time

import pytest

from muggins.eventstore.store import EventStore
from tests.support.clients import loopback_http
from tests.support.processes import Launcher
from tests.support.scripted_players import (
    bot_tables_then_a_person,
    settle,
)
from tests.support.store_watch import StoreWatch, TableProgress

BOT_TABLES = 6
#: Made first, the bot tables play longest before the kill (six tables made,
#: then the person's, then PLAY_FIRST): at 100 a game ends within 5 s about
#: 2% of the time; at 150 almost never, and the longest, about 30 s, still
#: ends well within FINISH.
TARGET = 150
CLOCK = 5
BOT_DELAY = 0.2
PLAY_FIRST = 2.0
#: A table may be silent for one turn clock, plus this long for the survivor to notice.
MARGIN = 15.0
FINISH = 60.0


@pytest.mark.slow
async def test_the_second_process_carries_on_when_the_first_is_killed(
    launcher: Launcher, store: EventStore
) -> None:
    first = launcher.service("a", bot_delay=BOT_DELAY, hand_pause=1.0)
    second = launcher.service("b", bot_delay=BOT_DELAY, hand_pause=1.0)
    await first.start_ready()
    await second.start_ready()
    deadline = time.monotonic() + 120
    playing: asyncio.Task[None] | None = None
    try:
        async with loopback_http(base_url=first.url, timeout=10) as http:
            made = await bot_tables_then_a_person(
                http, [first.ws_url, second.ws_url], bot_tables=BOT_TABLES, target=TARGET,
                clock=CLOCK, deadline=deadline)
            playing = made.playing
        human, table_id = made.human, made.human.table_id
        tables = [TableProgress(t) for t in made.table_ids]
        watch = StoreWatch(store)
        await watch.wait_under_way(tables, played=PLAY_FIRST)
        assert human.connections == 1, f"harness: the person is not playing ({human.last_failure})"
        first.kill()
        await watch.wait_finished(
            tables, within=FINISH, stall=CLOCK + MARGIN,
            after="after process A (which created them) was SIGKILLed, with process B "
                  "still running",
        )
        await settle([playing], CLOCK + MARGIN)
        assert human.over, (f"the person at {table_id} never saw GameEnded through process B "
                            f"(at version {human.version}; {human.last_failure})")
        assert human.ws_urls[0] == second.ws_url and human.connections >= 2, (
            "harness: the person did not move to process B"
        )
        problems = list(human.problems)
        for table in tables:
            await watch.checked_game(table.table_id)
        problems += human.check_store(await watch.checked_game(table_id))
        assert not problems, "\n".join(problems)
    finally:
        if playing is not None:
            playing.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await playing
