"""SIGKILL the service mid-game and start it again: every game must still end.

What must happen next at a table (a bot's move, the next deal, a turn
clock) has to survive the process: 30 tables in play, the service killed
without warning, a new process on the same port; the scripted people
reconnect with ``since``.  Every game must end, verify, and hold every
move the people saw confirmed exactly once.
"""

from __future__ import annotations

import asyncio
import contextlib
import time

import httpx

from muggins.eventstore.store import EventStore
from tests.faults.harness import (
    Launcher,
    ScriptedHuman,
    StoreWatch,
    TableProgress,
    bot_table,
    create_table,
    human_table,
    settle,
    sit,
)

BOT_TABLES = 20
HUMAN_TABLES = 10
#: About 65 moves and 4 hands a game: long enough to be mid-game at the kill.
TARGET = 150
CLOCK = 5
BOT_DELAY = 0.05
#: Seconds of play before the kill.
PLAY_FIRST = 3.0
#: After the restart: every game over within FINISH s, no table silent for STALL s.
FINISH = 60.0
STALL = 20.0


async def kill_and_restart(launcher: Launcher, store: EventStore, *, kill: bool) -> None:
    service = launcher.service("serve", bot_delay=BOT_DELAY, hand_pause=1.0)
    await service.start_ready()
    deadline = time.monotonic() + 120
    humans: list[ScriptedHuman] = []
    playing: list[asyncio.Task[None]] = []
    try:
        async with httpx.AsyncClient(base_url=service.url, timeout=10) as http:
            # People first: their games start when they sit, bots' at once.
            for n in range(HUMAN_TABLES):
                table_id = await create_table(http, **human_table(TARGET, CLOCK))
                human = ScriptedHuman([service.ws_url], table_id,
                                      await sit(http, table_id, 0, f"Player {n}"))
                humans.append(human)
                playing.append(asyncio.create_task(human.run(deadline)))
            bot_ids = [await create_table(http, **bot_table(TARGET))
                       for _ in range(BOT_TABLES)]
        tables = [TableProgress(t) for t in [h.table_id for h in humans] + bot_ids]
        watch = StoreWatch(store)
        await asyncio.sleep(PLAY_FIRST)
        after = "with no fault"
        if kill:
            await watch.poll(tables)
            mid_game = [t for t in tables if not t.over and t.version > 0]
            assert len(mid_game) >= len(tables) // 2, (
                f"harness: only {len(mid_game)} of {len(tables)} tables were mid-game at the "
                "kill; the games are too short for this machine"
            )
            service.kill()
            restarted_in = await service.start_ready()
            after = (f"after the service was SIGKILLed with {len(mid_game)} games in play and "
                     f"restarted ({restarted_in:.1f} s to ready)")
        await watch.wait_finished(tables, within=FINISH, stall=STALL, after=after)
        await settle(playing, STALL)
        problems = []
        for human in humans:
            if not human.over:
                problems.append(f"table {human.table_id}: the person never saw GameEnded "
                                f"(at version {human.version}; {human.last_failure})")
            problems += human.problems
        for table in tables:
            await watch.checked_game(table.table_id)
        for human in humans:
            problems += human.check_store(await watch.checked_game(human.table_id))
        assert not problems, "\n".join(problems)
        if kill:
            reconnected = [h for h in humans if h.connections > 1]
            assert reconnected, "harness: no scripted person noticed the kill"
    finally:
        for task in playing:
            task.cancel()
        for task in playing:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task


async def test_every_game_ends_after_the_service_is_killed_and_restarted(
    launcher: Launcher, store: EventStore
) -> None:
    await kill_and_restart(launcher, store, kill=True)
