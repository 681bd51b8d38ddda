"""The table layer's durability: the table's own stream, the clock that
cannot be dodged, the schedule kept in the database, a bus that heals."""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Any

import pytest

from muggins.domain.streams import game_stream, table_stream
from muggins.domain.table_events import BotTookOver, PlayerReturned, fold_table, table_event_decoder
from muggins.eventstore.store import EventStore
from muggins.infra.embedded import EmbeddedNats
from tests.support.clients import SeatClient
from tests.support.service import Running, serve
from tests.support.tables import create, seat_is_bot, sit, verify_store

SHORT = {"overrides": {"target": 30}}


async def table_events(service: Running, table_id: str) -> list[Any]:
    recorded = await service.infra.store.read_stream(table_stream(table_id))
    return [table_event_decoder.decode(r.payload) for r in recorded]


async def game_over(service: Running, table_id: str, within: float = 60) -> None:
    deadline = time.monotonic() + within
    while (await service.http.get(f"/tables/{table_id}")).json()["status"] not in (
            "finished", "closed"):
        assert time.monotonic() < deadline, f"table {table_id} did not finish in {within} s"
        await asyncio.sleep(0.1)


async def test_the_seating_history_rebuilt_from_the_stream_is_what_the_api_says(
    database_url: str, nats_server: EmbeddedNats
) -> None:
    async with serve(database_url, nats_server.url, grace_period=0.2) as service:
        table = await create(service, seats=4, partnerships=True,
                             bots=[{"seat": 1}, {"seat": 3, "level": "random"}])
        table_id = table["table_id"]
        first = await sit(service, table_id, 0, "Ana")
        await sit(service, table_id, 2, "Bo")
        ana = await SeatClient.connect(service.ws_url, table_id, first["token"])
        await ana.close()  # Ana leaves: after the grace period a bot plays for her
        await seat_is_bot(service, table_id, 0, True)
        again = await SeatClient.connect(service.ws_url, table_id, first["token"])
        await again.send({"type": "back"})
        await seat_is_bot(service, table_id, 0, False)
        await again.close()

        events = await table_events(service, table_id)
        assert [type(e).__name__ for e in events] == [
            "TableOpened", "SeatTaken", "SeatTaken", "GameBegun", "BotTookOver",
            "PlayerReturned"]
        assert isinstance(events[4], BotTookOver) and events[4].reason == "absent"
        assert isinstance(events[5], PlayerReturned) and events[5].reason == "back"
        rebuilt = fold_table(events, table_id)
        info = (await service.http.get(f"/tables/{table_id}")).json()
        assert info["game"] == rebuilt.game == 1
        assert [(s["name"], s["bot"], s["bot_level"], s["free"]) for s in info["seats"]] == [
            (s.display_name, s.is_bot, s.bot_level, s.free) for s in rebuilt.seats]
        # The same history, for people settling a dispute: who did what, and when.
        history = (await service.http.get(f"/tables/{table_id}/seating")).json()
        assert [h["event"]["type"] for h in history] == [type(e).__name__ for e in events]
        assert [h["actor"] for h in history] == [
            "system", "seat:0", "seat:2", "seat:2", "system", "seat:0"]
        # No secret in any table event: neither the seat token nor its hash.
        raw = b"".join(bytes(r.payload) for r in
                       await service.infra.store.read_stream(table_stream(table_id)))
        assert first["token"].encode() not in raw and b"token" not in raw


async def test_a_refused_seat_writes_nothing(service: Running) -> None:
    table = await create(service, bots=[{"seat": 1}])
    table_id = table["table_id"]
    before = len(await table_events(service, table_id))
    players_before = await service.infra.pool.fetchval("SELECT count(*) FROM players")
    tokens_before = await service.infra.pool.fetchval("SELECT count(*) FROM seat_tokens")
    for seat in (1, 1, 7):  # a bot's seat, twice, and one that does not exist
        response = await service.http.post(f"/tables/{table_id}/seats/{seat}",
                                           json={"name": "Eve"})
        assert response.status_code in (400, 409), response.text
        assert response.json()["code"] in ("seat-taken", "bad-request")
    assert len(await table_events(service, table_id)) == before
    assert await service.infra.pool.fetchval("SELECT count(*) FROM players") == players_before
    assert await service.infra.pool.fetchval("SELECT count(*) FROM seat_tokens") == \
        tokens_before


async def test_one_identity_holds_one_seat_at_a_table(service: Running) -> None:
    table = await create(service, seats=4, partnerships=True)
    granted = await sit(service, table["table_id"], 0, "Ana")
    again = await service.http.post(
        f"/tables/{table['table_id']}/seats/1",
        json={"name": "Ana", "player": {"player_id": granted["player_id"],
                                        "secret": granted["player_secret"]}})
    assert again.status_code == 409 and "seat 0" in again.json()["detail"]


@pytest.mark.slow
async def test_the_clock_cannot_be_dodged(database_url: str, nats_server: EmbeddedNats) -> None:
    """The hostage sequence: the clock runs out once, and when the turn comes
    back the player sends rubbish and stays, idle.  Only a valid move or
    "I'm back" takes the seat back, and the clock re-arms then; a clock that
    runs out twice on one turn leaves the bot the seat to the end of the hand."""
    async with serve(database_url, nats_server.url, bot_delay=0.3, hand_pause=0.2) as service:
        table = await create(service, bots=[{"seat": 1}], turn_clock_seconds=1, **SHORT)
        table_id = table["table_id"]
        granted = await sit(service, table_id, 0, "Idle")
        player = await SeatClient.connect(service.ws_url, table_id, granted["token"])
        while not player.my_turn():
            await player.receive()
        # Out of time once: the bot plays for seat 0 from now on.
        await seat_is_bot(service, table_id, 0, True, within=5)
        # Rubbish, on any turn: refused, and the bot keeps playing.
        started = time.monotonic()
        moves_seen = player.version
        for _ in range(5):
            await player.send({"type": "play", "tile": [9, 9], "end": 0,
                               "known_version": player.version})
            await player.until(lambda m: m["type"] == "error")
        await player.until(lambda m: m["type"] == "event" and m["version"] > moves_seen + 2)
        assert (await service.http.get(f"/tables/{table_id}")).json()["seats"][0]["bot"]
        # "I'm back", then idle on my turn: the clock runs out again (re-armed
        # by the return), and twice on one turn the bot keeps the hand.
        await player.send({"type": "back"})
        await seat_is_bot(service, table_id, 0, False, within=5)
        await game_over(service, table_id, within=90)
        assert time.monotonic() - started < 90
        await verify_store(database_url, game_stream(table_id, 1))
        events = await table_events(service, table_id)
        takeovers = [e for e in events if isinstance(e, BotTookOver)]
        assert takeovers and all(e.reason == "clock" for e in takeovers)
        await player.close()


async def test_twice_out_of_time_on_one_turn_the_bot_keeps_the_hand(
    database_url: str, nats_server: EmbeddedNats
) -> None:
    async with serve(database_url, nats_server.url, bot_delay=1.0) as service:
        await _twice_out_of_time(service)


async def _twice_out_of_time(service: Running) -> None:
    store: EventStore = service.infra.store
    table = await create(service, bots=[{"seat": 1}], turn_clock_seconds=1)
    table_id = table["table_id"]
    granted = await sit(service, table_id, 0, "Idle")
    player = await SeatClient.connect(service.ws_url, table_id, granted["token"])
    # Wait for seat 0's turn, say "back" whenever the bot has the seat while
    # it is seat 0's turn: the clock re-arms each time, and the second time it
    # runs out on the same turn the bot holds the seat for the hand.
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        events = await table_events(service, table_id)
        if any(isinstance(e, BotTookOver) and e.for_the_hand for e in events):
            break
        await player.send({"type": "back"})
        await asyncio.sleep(0.3)
    else:
        pytest.fail("the bot never held the seat for the hand")
    await player.send({"type": "back"})
    refused = await player.until(lambda m: m["type"] == "error" and m["code"] == "bot-holds-seat")
    assert "next" in refused["message"]
    assert await store.stream_version(game_stream(table_id, 1)) > 0
    await player.close()


async def test_the_schedule_is_in_the_database(service: Running) -> None:
    """A table's next step is a row written with the events that make it due."""
    table = await create(service, bots=[{"seat": 1}], turn_clock_seconds=30)
    table_id = table["table_id"]
    granted = await sit(service, table_id, 0, "Ana")
    player = await SeatClient.connect(service.ws_url, table_id, granted["token"])
    while not player.my_turn():
        await player.receive()
    row = await service.infra.pool.fetchrow(
        "SELECT due_at - (SELECT max(recorded_at) FROM events WHERE stream_id = $2) AS wait "
        "FROM due WHERE key = $1", table_id, game_stream(table_id, 1))
    assert row is not None, "a person on turn: the clock's end is due"
    assert 29 <= row["wait"].total_seconds() <= 30.5
    await player.close()


async def test_after_a_protocol_error_closes_the_bus_the_service_heals_itself(
    service: Running
) -> None:
    bus = service.infra.bus
    # Past the Bus's own checks, straight to the client: the server refuses
    # the line and hangs up, and nats-py closes for good.
    with contextlib.suppress(Exception):
        await bus.client.subscribe("x." + "a" * 4200)
        await bus.client.flush(timeout=2)
    deadline = time.monotonic() + 15
    while not (bus.rebuilds >= 1 and (await service.http.get("/readyz")).status_code == 200):
        assert time.monotonic() < deadline, "the bus was not rebuilt"
        await asyncio.sleep(0.1)
    # Games play normally afterwards: the all-bot table finishes, and a
    # spectator's feed (which needs the bus) sees its events.
    table = await create(service, bots=[{"seat": 0}, {"seat": 1}], **SHORT)
    await game_over(service, table["table_id"])
    await verify_store(service.infra.database_url, game_stream(table["table_id"], 1))
