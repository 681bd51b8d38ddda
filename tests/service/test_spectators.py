"""Spectators: the WebSocket and Server-Sent Events streams, resuming from the
last version seen, nothing hidden before the hand ends, and hundreds at once."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Callable
from typing import Any

import pytest
import websockets

from muggins.domain.codec import game_event
from muggins.eventstore.store import EventStore, create_pool
from muggins.infra.embedded import EmbeddedNats
from muggins.rules.events import event_encoder, visible_to
from muggins.tables import feeds as spectators_module
from tests.support.clients import SeatClient, assert_nothing_hidden
from tests.support.service import Running, serve
from tests.support.tables import create, human_vs_bot, sit, watch

Message = dict[str, Any]


async def sse(
    service: Running,
    table_id: str,
    until: Callable[[Message], bool],
    last_event_id: str | None = None,
    timeout: float = 60,
) -> list[Message]:
    """Read /tables/{id}/events until ``until`` holds; each message with its id."""
    headers = {"Last-Event-ID": last_event_id} if last_event_id else {}
    received: list[Message] = []

    async def read() -> None:
        async with service.http.stream("GET", f"/tables/{table_id}/events", headers=headers,
                                       timeout=None) as response:
            assert response.status_code == 200, await response.aread()
            assert response.headers["content-type"].startswith("text/event-stream")
            fields: dict[str, str] = {}
            async for line in response.aiter_lines():
                if line.startswith(":"):
                    continue  # a keep-alive comment
                if line:
                    key, _, value = line.partition(":")
                    fields[key] = value.removeprefix(" ")
                    continue
                if "data" in fields:
                    message = json.loads(fields["data"])
                    assert message["type"] == fields["event"]
                    message["_id"] = fields["id"]
                    received.append(message)
                    if until(message):
                        return
                fields = {}

    async with asyncio.timeout(timeout):
        await read()
    return received


def game_over(message: Message) -> bool:
    return bool(message["type"] == "view" and message["view"]["phase"] == "game-over")


async def public_events(database_url: str, stream: str) -> list[Message]:
    """What the store says every spectator should have seen of a game."""
    pool = await create_pool(database_url)
    try:
        return [
            json.loads(event_encoder.encode(visible_to(game_event(recorded), "public")))
            for recorded in await EventStore(pool).read_stream(stream)
        ]
    finally:
        await pool.close()


def events_of(messages: list[Message]) -> list[tuple[int, Message]]:
    return [(m["version"], m["event"]) for m in messages if m["type"] == "event"]


async def test_sse_gives_the_view_then_every_public_event_and_resumes_exactly(
    service: Running, database_url: str
) -> None:
    table_id, player = await human_vs_bot(service)
    # A fresh spectator gets the view as it is now, with the version it is at.
    fresh = await sse(service, table_id, lambda m: m["type"] == "welcome")
    assert fresh[0]["seat"] is None and fresh[0]["view"]["phase"] != "game-over"
    assert fresh[0]["_id"] == f"1.{fresh[0]['version']}"
    # A first spectator, from the start, leaves early (within the deal: the
    # person may lead, and nothing moves until they do); a second watches it all
    # over the WebSocket.
    early = await sse(service, table_id,
                      lambda m: m["type"] == "event" and m["version"] >= 5, last_event_id="1.0")
    assert early[0]["type"] == "welcome" and early[0]["view"] is None
    whole = await watch(service, table_id, since=0)
    await player.play_until_game_over()

    async def to_the_end() -> None:
        while not (whole.view and whole.view["phase"] == "game-over"):
            await whole.receive(30)

    await to_the_end()
    # Coming back with the last id seen gives exactly the events after it.
    resumed = await sse(service, table_id, game_over, last_event_id=early[-1]["_id"])
    assert resumed[0]["type"] == "welcome" and resumed[0]["version"] == early[-1]["version"]
    stored = await public_events(database_url, f"{table_id}-g1")
    assert events_of(early + resumed) == list(enumerate(stored, start=1))
    assert events_of(whole.messages) == list(enumerate(stored, start=1))
    assert [m["_id"] for m in resumed if m["type"] == "event"] == [
        f"1.{v}" for v in range(early[-1]["version"] + 1, len(stored) + 1)
    ]
    assert_nothing_hidden(early + resumed)
    assert_nothing_hidden(whole.messages)
    # Coming back after the end: the final view, nothing replayed.
    after = await sse(service, table_id, lambda m: m["type"] == "welcome")
    assert after[0]["view"]["phase"] == "game-over" and after[0]["version"] == len(stored)
    await whole.close()
    await player.close()


async def test_a_websocket_spectator_resumes_with_since(service: Running) -> None:
    table_id, player = await human_vs_bot(service)
    spectator = await watch(service, table_id)
    await player.play_until_game_over()
    while not (spectator.view and spectator.view["phase"] == "game-over"):
        await spectator.receive(30)
    final = spectator.version
    await spectator.send({"type": "since", "version": final - 5})
    welcome = await spectator.until(lambda m: m["type"] == "welcome")
    assert welcome["version"] == final - 5 and welcome["view"] is None
    spectator.version = welcome["version"]
    replayed = [await spectator.receive() for _ in range(6)]
    assert [m["version"] for m in replayed[:5]] == list(range(final - 4, final + 1))
    assert replayed[5]["type"] == "view" and replayed[5]["version"] == final
    await spectator.close()
    await player.close()


async def test_players_see_how_many_watch(service: Running) -> None:
    table_id, player = await human_vs_bot(service)
    spectators = [await watch(service, table_id) for _ in range(3)]
    # Told at once, whoever's turn it is ...
    await player.until(lambda m: m["type"] == "spectators" and m["count"] == 3)
    for spectator in spectators:
        await spectator.close()
    await player.until(lambda m: m["type"] == "spectators" and m["count"] == 0)
    # ... and in every view (once the player has been told of the late one:
    # a game that ended before the count reached the table showed 0, seen
    # once in a fresh-clone run).
    late = await watch(service, table_id)
    await player.until(lambda m: m["type"] == "spectators" and m["count"] == 1)
    await player.play_until_game_over()
    views = [m for m in player.messages if m["type"] == "view"]
    assert views[-1]["spectators"] == 1
    while not (late.view and late.view["phase"] == "game-over"):
        await late.receive()  # (a client that reads nothing is slow to close)
    assert late.messages[-1]["spectators"] == 1  # spectators see the count too
    await late.close()
    await player.close()


async def test_bad_spectator_requests(service: Running) -> None:
    missing = await service.http.get("/tables/nope/events")
    assert missing.status_code == 404
    table = await create(service, bots=[{"seat": 1}])
    bad = await service.http.get(f"/tables/{table['table_id']}/events",
                                 headers={"Last-Event-ID": "yesterday"})
    assert bad.status_code == 400 and "GAME.VERSION" in bad.json()["detail"]
    ws = await websockets.connect(f"{service.ws_url}/tables/nope/watch")
    error = json.loads(await asyncio.wait_for(ws.recv(), 10))
    assert error["type"] == "error" and error["code"] == "no-such-table"
    # Watching a table that waits for players: welcome at game 0, then the game.
    spectator = await watch(service, table["table_id"])
    assert spectator.messages[0]["game"] == 0
    granted = await sit(service, table["table_id"], 0, "Ana")
    await spectator.until(lambda m: m["type"] == "game" and m["game"] == 1)
    await spectator.until(lambda m: m["type"] == "view")
    assert spectator.view is not None and spectator.view["seats"][0]["name"] == "Ana"
    player = await SeatClient.connect(service.ws_url, table["table_id"], granted["token"])
    await player.close()
    await spectator.close()


async def test_two_hundred_spectators_all_see_the_whole_game(
    service: Running, database_url: str
) -> None:
    table = await create(service, bots=[{"seat": 1}])
    granted = await sit(service, table["table_id"], 0, "Ana")
    spectators = await asyncio.gather(*(watch(service, table["table_id"]) for _ in range(200)))
    player = await SeatClient.connect(service.ws_url, table["table_id"], granted["token"])

    async def to_the_end(spectator: SeatClient) -> None:
        while not (spectator.view and spectator.view["phase"] == "game-over"):
            await spectator.receive(60)

    await asyncio.gather(player.play_until_game_over(120), *(to_the_end(s) for s in spectators))
    stored = await public_events(database_url, f"{table['table_id']}-g1")
    for spectator in spectators:
        seen = events_of(spectator.messages)
        assert seen == list(enumerate(stored, start=1))[-len(seen):]
        assert seen[-1][0] == len(stored)
    assert_nothing_hidden(spectators[0].messages)
    await asyncio.gather(*(s.close() for s in spectators))
    await player.close()


async def test_a_spectators_only_service_follows_games_played_through_another(
    database_url: str, nats_server: EmbeddedNats
) -> None:
    async with serve(database_url, nats_server.url) as players, \
            serve(database_url, nats_server.url, role="spectators") as spectators:
        refused = await spectators.http.post("/tables", json={"seats": 2})
        assert refused.status_code in (404, 405)  # no commands on the read side
        table_id, player = await human_vs_bot(players)
        spectator = await watch(spectators, table_id)
        await player.until(lambda m: m["type"] == "spectators" and m["count"] == 1)
        await player.play_until_game_over()
        while not (spectator.view and spectator.view["phase"] == "game-over"):
            await spectator.receive(30)
        stored = await public_events(database_url, f"{table_id}-g1")
        seen = events_of(spectator.messages)
        assert seen == list(enumerate(stored, start=1))[-len(seen):]
        assert (await spectators.http.get(f"/tables/{table_id}")).status_code == 200
        await spectator.close()
        await player.close()


async def test_an_sse_spectator_that_goes_away_is_no_longer_counted(service: Running) -> None:
    table_id, player = await human_vs_bot(service)
    # Watches until the player has heard of it (a spectator gone within the
    # half second counts are gathered over is never announced), then hangs
    # up: its connection closed at once, not at its next message (a game
    # waiting on the player's turn may send none for a whole turn clock).
    watching = asyncio.create_task(sse(service, table_id, lambda m: False))
    await player.until(lambda m: m["type"] == "spectators" and m["count"] == 1)
    watching.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await watching
    await player.until(lambda m: m["type"] == "spectators" and m["count"] == 0)
    await player.close()


async def test_a_player_who_connects_later_learns_the_count_of_other_processes(
    database_url: str, nats_server: EmbeddedNats, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(spectators_module, "COUNT_EVERY", 0.2)
    async with serve(database_url, nats_server.url) as players, \
            serve(database_url, nats_server.url, role="spectators") as spectators:
        table = await create(players, bots=[{"seat": 1}])
        granted = await sit(players, table["table_id"], 0, "Ana")
        spectator = await watch(spectators, table["table_id"])
        player = await SeatClient.connect(players.ws_url, table["table_id"], granted["token"])
        await player.until(lambda m: m["type"] == "spectators" and m["count"] == 1, 10)
        await spectator.close()
        await player.close()


async def test_a_spectator_cancelled_as_its_message_arrives_stays_cancelled() -> None:
    """A cancel that lands while a message is arriving must not be lost.

    On Python 3.11 ``asyncio.wait_for`` can return the message and drop the
    cancel; a feed or session loop built on it then outlives its cancel and
    keeps the server from shutting down (seen once in CI as a 15 s hang).
    """
    for turns_before_cancel in range(6):
        spectator = spectators_module.Spectator()
        waiting = asyncio.create_task(spectator.next(5.0))
        await asyncio.sleep(0)  # now waiting on the queue
        spectator.offer(spectators_module.FeedFrame([spectators_module.FeedMessage("event", 1, 1,
                                                                          "{}")]))
        for _ in range(turns_before_cancel):
            await asyncio.sleep(0)
        if waiting.cancel():
            with pytest.raises(asyncio.CancelledError):
                await waiting
        else:
            assert (await waiting) is not None  # it had finished: nothing to cancel
