"""A player must not be able to hold a table hostage.

The trick: let the turn clock run out once (a bot takes the seat), then,
when the seat's turn comes back, send any invalid command within the bot's
pause and stay connected doing nothing.  The table must move on anyway
(within a few clock periods a bot plays the seat) and the game must end,
while the person never plays again.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Any

import pytest

from muggins.eventstore.store import EventStore
from tests.support.clients import SeatClient, loopback_http
from tests.support.processes import Launcher
from tests.support.scripted_players import create_table, human_table, sit
from tests.support.store_watch import StoreWatch, TableProgress

CLOCK = 2
BOT_DELAY = 0.5
TARGET = 50
#: After the invalid command the table must move within this many seconds.
MOVE_ON = 4 * CLOCK + BOT_DELAY + 2.0
FINISH = 90.0


def not_in_hand(view: dict[str, Any]) -> list[int]:
    """A tile of the set that is not in the reader's hand."""
    hand = {tuple(tile) for tile in view["tiles"]}
    return next([low, high] for low in range(7) for high in range(low, 7)
                if (low, high) not in hand)


async def until_turn(client: SeatClient, after: int, timeout: float) -> None:
    """Until a view shows the seat on turn at a version past ``after``."""
    if client.my_turn() and client.version > after:
        return
    try:
        await client.until(lambda m: m["type"] in ("view", "welcome") and client.my_turn()
                           and client.version > after, timeout)
    except TimeoutError:
        phase = client.view["phase"] if client.view else None
        raise AssertionError(f"harness: seat {client.seat}'s turn did not come within "
                             f"{timeout:.0f} s (at version {client.version}, {phase})") from None


@pytest.mark.slow
async def test_a_player_cannot_hold_the_table_hostage(
    launcher: Launcher, store: EventStore
) -> None:
    await hostage(launcher, store, evade=True)


async def hostage(launcher: Launcher, store: EventStore, *, evade: bool) -> None:
    service = launcher.service("serve", bot_delay=BOT_DELAY, hand_pause=1.0)
    await service.start_ready()
    async with loopback_http(base_url=service.url, timeout=10) as http:
        table_id = await create_table(http, **human_table(TARGET, CLOCK))
        token = await sit(http, table_id, 0, "Hostage taker")
    client = await SeatClient.connect(service.ws_url, table_id, token)
    idling: asyncio.Task[None] | None = None
    try:
        # 1. The person's turn comes; they do nothing until the clock runs out.
        await until_turn(client, 0, 30)
        waited_from = client.version
        started = time.monotonic()
        try:
            await client.until(lambda m: m["type"] == "event"
                               and m["event"]["type"] == "TilePlayed"
                               and m["event"]["seat"] == client.seat, CLOCK + 10)
        except TimeoutError:
            raise AssertionError(
                f"table {table_id}: the {CLOCK} s turn clock of seat {client.seat} never ran "
                f"out: no bot played for it in {time.monotonic() - started:.0f} s "
                f"(version {waited_from})"
            ) from None
        played_for = client.version

        # 2. The turn comes back: an invalid command within the bot's pause, then idle.
        await until_turn(client, played_for, 30)
        assert client.view is not None
        at = client.version
        if evade:
            await client.send({"type": "play", "tile": not_in_hand(client.view),
                               "end": client.view["legal"][0]["end"], "known_version": at})
        sent_at = time.monotonic()

        async def stay_idle() -> None:
            with contextlib.suppress(Exception):  # only keeps the socket read (and open)
                while True:
                    await client.receive(3600)

        idling = asyncio.create_task(stay_idle())
        table = TableProgress(table_id)
        watch = StoreWatch(store)
        await watch.poll([table])
        try:
            await watch.wait_finished(
                [table], within=FINISH, stall=MOVE_ON, since=sent_at,
                after=(f"once seat {client.seat} sent an invalid command at version {at} and "
                       "then stayed connected and idle (a bot had already played for it)"
                       if evade else "with its player connected and idle"),
            )
        except AssertionError as error:
            raise AssertionError(f"held hostage: {error}") from None
        recorded = await watch.checked_game(table_id)
        own = [r.stream_version for r in recorded if r.actor == f"seat:{client.seat}"]
        assert not own, f"the idle person is recorded playing at versions {own}"
        errors = [m for m in client.messages if m["type"] == "error"]
        assert errors or not evade, "the invalid command was not refused"
    finally:
        if idling is not None:
            idling.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await idling
        with contextlib.suppress(Exception):
            await client.close()
