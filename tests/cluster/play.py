"""Tables played through the load balancer while a test breaks the cluster:
scripted people (reconnecting through HAProxy whenever their socket drops)
and bot tables, then every game held to the store and the rules."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable

import httpx

from muggins.cluster.local import LocalCluster
from muggins.eventstore.store import EventStore
from tests.faults.harness import (
    ScriptedHuman,
    StoreWatch,
    TableProgress,
    bot_table,
    create_table,
    human_table,
    settle,
    sit,
    unhandled_errors,
)

HUMAN_TABLES = 4
BOT_TABLES = 4
TARGET = 100
CLOCK = 10
#: Seconds of play before the fault.
PLAY_FIRST = 2.0
#: After the fault: every game over within FINISH s, no table silent for STALL s.
FINISH = 90.0
STALL = 25.0


async def play_through(cluster: LocalCluster, store: EventStore,
                       fault: Callable[[], Awaitable[str]]) -> list[ScriptedHuman]:
    """Play, call ``fault`` mid-game (it says what it did), and check that
    every game ended, verifies, and holds each confirmed play exactly once."""
    ws_url = cluster.url.replace("http", "ws", 1)
    deadline = time.monotonic() + FINISH + 60
    humans: list[ScriptedHuman] = []
    playing: list[asyncio.Task[None]] = []
    try:
        async with httpx.AsyncClient(base_url=cluster.url, timeout=10) as http:
            for n in range(HUMAN_TABLES):
                table_id = await create_table(http, **human_table(TARGET, CLOCK))
                human = ScriptedHuman([ws_url], table_id,
                                      await sit(http, table_id, 0, f"Player {n}"))
                humans.append(human)
                playing.append(asyncio.create_task(human.run(deadline)))
            bot_ids = [await create_table(http, **bot_table(TARGET))
                       for _ in range(BOT_TABLES)]
        tables = [TableProgress(t) for t in [h.table_id for h in humans] + bot_ids]
        watch = StoreWatch(store)
        await asyncio.sleep(PLAY_FIRST)
        await watch.poll(tables)
        mid_game = [t for t in tables if not t.over and t.version > 0]
        assert len(mid_game) >= len(tables) // 2, (
            f"harness: only {len(mid_game)} of {len(tables)} tables were mid-game")
        after = await fault()
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
        return humans
    finally:
        for task in playing:
            task.cancel()
        for task in playing:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task


def no_unhandled_errors(cluster: LocalCluster) -> None:
    """No muggins process logged an exception that escaped every handler."""
    found = []
    for instance in cluster.instances():
        if instance.kind in ("service", "spectators", "projector"):
            path = cluster.logs / f"{instance.name}.log"
            text = path.read_text(errors="replace") if path.exists() else ""
            found += [f"{instance.name}: {line}" for line in unhandled_errors(text)]
    assert not found, "\n".join(found)
