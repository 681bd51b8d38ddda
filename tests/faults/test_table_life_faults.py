"""A table's life through kills (muggins.domain.table_life): its waits are durable
steps any process carries out, and each close and each choice happens once,
however many processes there are.

* A table nobody sits at closes as idle though the process that opened it
  was SIGKILLed at once: the other one closes it, once.
* A game paused for a person who left stays paused (no deal) when the
  process serving it is SIGKILLed; on the other process the one who stayed
  chooses, through two processes at once: exactly one choice and one close.
"""

from __future__ import annotations

import asyncio
import time

import pytest

from muggins.domain.streams import game_stream, table_stream
from muggins.eventstore.store import EventStore
from tests.support.clients import SeatClient, hands_ended, life_of, loopback_http, play_until
from tests.support.processes import Launcher
from tests.support.scripted_players import create_table, sit

#: Short waits: a page gone half a second has left; the choice opens a
#: second after.
GRACE = 0.5
ABSENCE_WAIT = ["--absence-wait", "1"]


async def table_events(store: EventStore, table_id: str) -> list[str]:
    return [r.event_type for r in await store.read_stream(table_stream(table_id))]


async def closed_within(store: EventStore, table_id: str, seconds: float) -> list[str]:
    deadline = time.monotonic() + seconds
    while "TableClosed" not in (events := await table_events(store, table_id)):
        assert time.monotonic() < deadline, f"{table_id} did not close: {events}"
        await asyncio.sleep(0.2)
    return events


async def test_a_table_nobody_sits_at_closes_once_though_its_process_was_killed(
    launcher: Launcher, store: EventStore
) -> None:
    first, second = (launcher.service(name, bot_delay=0.05, extra=["--idle-close", "4"])
                     for name in ("a", "b"))
    await first.start_ready()
    await second.start_ready()
    async with loopback_http(base_url=first.url, timeout=10) as http:
        idle = await create_table(http, seats=2)
    first.kill()
    events = await closed_within(store, idle, 30)
    await asyncio.sleep(2.0)  # a second close would be written in this time: none may be
    assert await table_events(store, idle) == events == ["TableOpened", "TableClosed"]


@pytest.mark.slow
async def test_a_pause_survives_a_kill_and_two_processes_choose_once(
    launcher: Launcher, store: EventStore
) -> None:
    first, second = (launcher.service(name, bot_delay=0.05, hand_pause=0.3,
                                      grace_period=GRACE, extra=ABSENCE_WAIT)
                     for name in ("a", "b"))
    await first.start_ready()
    await second.start_ready()
    async with loopback_http(base_url=second.url, timeout=10) as http:
        table_id = await create_table(http, seats=2)
        ana_token = await sit(http, table_id, 0, "Ana")
        bea_token = await sit(http, table_id, 1, "Bea")
    ana = await SeatClient.connect(second.ws_url, table_id, ana_token)
    bea = await SeatClient.connect(second.ws_url, table_id, bea_token)
    await play_until([ana, bea], lambda: hands_ended(bea) >= 1
                     and bea.view is not None and bea.view["phase"] == "playing")
    await ana.close()
    await play_until([bea], lambda: (life_of(bea) or {}).get("kind") == "paused")
    # Bea stays (a socket on process A), so that only Ana is gone.
    on_first = await SeatClient.connect(first.ws_url, table_id, bea_token)
    await bea.close()
    second.kill()
    paused_at = len(await store.read_stream(game_stream(table_id, 1)))
    await asyncio.sleep(3.0)  # process A's scheduler has had every chance to deal
    assert len(await store.read_stream(game_stream(table_id, 1))) == paused_at, \
        "a hand was dealt while the game was paused"
    # Bea, on both processes at once, ends the game twice over.
    await second.start_ready()
    sockets = [on_first, await SeatClient.connect(second.ws_url, table_id, bea_token)]
    assert all((life_of(s) or {}).get("kind") == "paused" for s in sockets)
    await asyncio.gather(*(s.send({"type": "decide", "choice": "end"}) for s in sockets))
    await closed_within(store, table_id, 30)
    await asyncio.sleep(2.0)  # a second decision would be written in this time: none may be
    events = await table_events(store, table_id)
    assert events.count("AbsenceDecided") == 1 and events.count("TableClosed") == 1, events
    assert len(await store.read_stream(game_stream(table_id, 1))) == paused_at
    for socket in sockets:
        await socket.close()
