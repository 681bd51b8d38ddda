"""A table's life (muggins.domain.table_life), on real PostgreSQL and NATS: nobody's
bots play to an empty room, a table of bots closes when its game is over, a
table nobody sits at closes as idle, and a closed table refuses everything
with ``table-closed`` and writes nothing."""

from __future__ import annotations

import asyncio
import datetime
import json
from contextlib import AbstractAsyncContextManager
from typing import Any

import pytest
import websockets

from muggins.domain.codec import game_event
from muggins.domain.streams import game_stream, table_stream
from muggins.domain.table_events import table_event_decoder
from muggins.infra.embedded import EmbeddedNats
from tests.support.clients import SeatClient, hands_ended, life_of, play_until
from tests.support.service import Running, serve
from tests.support.tables import create, sit
from tests.support.waits import eventually


async def status_becomes(service: Running, table_id: str, wanted: str,
                         within: float = 60) -> dict[str, Any]:
    deadline = asyncio.get_running_loop().time() + within
    while True:
        info: dict[str, Any] = (await service.http.get(f"/tables/{table_id}")).json()
        if info["status"] == wanted:
            return info
        assert asyncio.get_running_loop().time() < deadline, info
        await asyncio.sleep(0.1)


async def board_line(service: Running, preset: str, name: str,
                     within: float = 20) -> dict[str, Any]:
    """``name``'s line on the preset's leaderboard, once the projector has it."""
    deadline = asyncio.get_running_loop().time() + within
    while True:
        board = (await service.http.get("/leaderboard", params={"preset": preset})).json()
        line = next((p for p in board["players"] if p["name"] == name), None)
        if line is not None:
            return line  # type: ignore[no-any-return]
        assert asyncio.get_running_loop().time() < deadline, board
        await asyncio.sleep(0.1)


async def lobby_lists(service: Running, table_id: str, listed: bool) -> None:
    """Wait until the lobby (a read model: it catches up) lists the table, or not."""
    deadline = asyncio.get_running_loop().time() + 20
    while (table_id in [t["table_id"] for t in
                        (await service.http.get("/lobby")).json()["open"]]) != listed:
        assert asyncio.get_running_loop().time() < deadline, f"listed: {not listed}"
        await asyncio.sleep(0.1)


async def refused_as_closed(service: Running, table_id: str, client: SeatClient) -> None:
    """Every way in is refused with table-closed, and nothing is written."""
    before = [len(await service.infra.store.read_stream(table_stream(table_id))),
              len(await service.infra.store.read_stream(game_stream(table_id, 1)))]
    for seat in range(2):
        answer = await service.http.post(f"/tables/{table_id}/seats/{seat}",
                                         json={"name": "Late"})
        assert answer.status_code == 409 and answer.json()["code"] == "table-closed", \
            answer.text
    await client.send({"type": "rematch"})
    refused = await client.until(lambda m: m["type"] == "error")
    assert refused["code"] == "table-closed", refused
    await client.send({"type": "back"})
    refused = await client.until(lambda m: m["type"] == "error")
    assert refused["code"] == "table-closed", refused
    after = [len(await service.infra.store.read_stream(table_stream(table_id))),
             len(await service.infra.store.read_stream(game_stream(table_id, 1)))]
    assert after == before


async def test_a_person_who_leaves_gets_a_bot_for_the_hand_then_the_table_closes(
    database_url: str, nats_server: EmbeddedNats
) -> None:
    """Seed 000, section 9: the bot finishes the hand, not the game; with
    nobody left the table closes, the person has no win, and the game's
    version stops moving."""
    async with serve(database_url, nats_server.url, grace_period=0.3,
                     bot_delay=0.05) as service:
        table = await create(service, bots=[{"seat": 1, "level": "greedy"}])
        table_id = table["table_id"]
        granted = await sit(service, table_id, 0, "Ana")
        player = await SeatClient.connect(service.ws_url, table_id, granted["token"])
        await play_until([player], lambda: any(
            m["type"] == "event" and m["event"]["type"] == "TilePlayed"
            and m["event"]["seat"] == 0 for m in player.messages))
        await player.close()
        info = await status_becomes(service, table_id, "closed")
        assert info["closed_reason"] == "everyone-left"
        game = await service.infra.store.read_stream(game_stream(table_id, 1))
        kinds = [type(game_event(r)).__name__ for r in game]
        # The bot finished the hand it took over, and dealt no other.
        assert kinds.count("HandStarted") == 1 and kinds[-1] in ("HandEnded", "GameEnded")
        assert "GameEnded" not in kinds
        tables = [r.event_type for r in
                  await service.infra.store.read_stream(table_stream(table_id))]
        assert tables[-3:] == ["BotTookOver", "HandSealed", "TableClosed"], tables
        await asyncio.sleep(1.0)  # a bot would play on in this time: none may
        assert len(await service.infra.store.read_stream(game_stream(table_id, 1))) == len(game)
        # Her game is an abandonment (before a whole hand of hers: unrated), never a win.
        ana = await board_line(service, table["preset"], "Ana")
        assert (ana["abandoned"], ana["won"], ana["games"]) == (1, 0, 1), ana
        # A page that comes back finds it closed, and may do nothing there.
        back = await SeatClient.connect(service.ws_url, table_id, granted["token"])
        await refused_as_closed(service, table_id, back)
        await back.close()


async def test_a_table_of_bots_plays_its_game_and_closes(service: Running) -> None:
    table = await create(service, bots=[{"seat": 0, "level": "greedy"},
                                        {"seat": 1, "level": "greedy"}])
    info = await status_becomes(service, table["table_id"], "closed", within=90)
    assert info["closed_reason"] == "finished"
    game = await service.infra.store.read_stream(game_stream(table["table_id"], 1))
    assert type(game_event(game[-1])).__name__ == "GameEnded"

    async def off_the_lobby() -> bool:
        # The lobby is a projection: it learns of the close a moment after the table.
        lobby = (await service.http.get("/lobby")).json()
        return table["table_id"] not in [t["table_id"] for t in lobby["playing"] + lobby["open"]]

    await eventually(off_the_lobby, what="the closed table gone from the lobby")


async def test_a_table_nobody_sits_at_closes_as_idle(
    database_url: str, nats_server: EmbeddedNats
) -> None:
    async with serve(database_url, nats_server.url, idle_close=1.0) as service:
        table = await create(service)
        table_id = table["table_id"]
        await lobby_lists(service, table_id, True)
        # Somebody sitting down starts the wait again; then nobody else comes.
        await sit(service, table_id, 0, "Ana")
        info = await status_becomes(service, table_id, "closed", within=20)
        assert info["closed_reason"] == "idle"
        answer = await service.http.post(f"/tables/{table_id}/seats/1", json={"name": "Bea"})
        assert answer.status_code == 409 and answer.json()["code"] == "table-closed"
        events = [r.event_type for r in
                  await service.infra.store.read_stream(table_stream(table_id))]
        assert events == ["TableOpened", "SeatTaken", "TableClosed"]
        await lobby_lists(service, table_id, False)


async def two_at_a_table(service: Running) -> tuple[str, dict[str, Any], SeatClient,
                                                      SeatClient]:
    """Ana and Bea play a whole hand at a rated table; then Ana closes her page
    while the second hand is on, and the game pauses at its end.  Her granted
    seat, and both clients."""
    table = await create(service)
    table_id = table["table_id"]
    ana_seat = await sit(service, table_id, 0, "Ana")
    bea_seat = await sit(service, table_id, 1, "Bea")
    ana = await SeatClient.connect(service.ws_url, table_id, ana_seat["token"])
    bea = await SeatClient.connect(service.ws_url, table_id, bea_seat["token"])
    await play_until([ana, bea], lambda: hands_ended(bea) >= 1
                     and bea.view is not None and bea.view["phase"] == "playing")
    await ana.close()
    # A bot finishes Ana's hand (Bea plays hers); then the game pauses.
    await play_until([bea], lambda: (life_of(bea) or {}).get("kind") == "paused")
    return table_id, ana_seat, ana, bea


def short_waits(database_url: str, nats_server: EmbeddedNats, *, absence_wait: float
                ) -> AbstractAsyncContextManager[Running]:
    """The service where a person gone 0.3 s has left, and bots move at once."""
    return serve(database_url, nats_server.url, grace_period=0.3, bot_delay=0.05,
                 absence_wait=absence_wait)


async def choose_once_open(bea: SeatClient, choice: str) -> None:
    """Bea's choice, as soon as the wait is over."""
    life = life_of(bea)
    assert life is not None and life["choices_from"]
    opens = datetime.datetime.fromisoformat(life["choices_from"])
    await asyncio.sleep(max(0.0, (opens - datetime.datetime.now(datetime.UTC))
                            .total_seconds()) + 0.1)
    await bea.send({"type": "decide", "choice": choice})


async def test_two_people_one_leaves_the_game_pauses_and_the_other_ends_it(
    database_url: str, nats_server: EmbeddedNats
) -> None:
    # A wait long enough that the early choice below lands inside it on a busy machine.
    async with short_waits(database_url, nats_server, absence_wait=6.0) as service:
        table_id, _, _, bea = await two_at_a_table(service)
        life = life_of(bea)
        assert life is not None and [m["seat"] for m in life["missing"]] == [0]
        assert life["missing"][0]["name"] == "Ana" and life["missing"][0]["since"]
        assert life["choices_from"]
        info = (await service.http.get(f"/tables/{table_id}")).json()
        assert info["life"]["kind"] == "paused"
        dealt = len(await service.infra.store.read_stream(game_stream(table_id, 1)))
        # Too early: refused, nothing written.
        await bea.send({"type": "decide", "choice": "end"})
        assert (await bea.until(lambda m: m["type"] == "error"))["code"] == "wait-first"
        # Until the wait is over, the refused choice would be acted on: it may not be.
        opens = datetime.datetime.fromisoformat(life["choices_from"])
        await asyncio.sleep(max(0.0, (opens - datetime.datetime.now(datetime.UTC))
                                .total_seconds()) + 0.1)
        assert len(await service.infra.store.read_stream(game_stream(table_id, 1))) == dealt
        # Two choices at once: exactly one outcome.
        await bea.send({"type": "decide", "choice": "end"})
        await bea.send({"type": "decide", "choice": "bot"})
        refused = await bea.until(lambda m: m["type"] == "error")
        assert refused["code"] in ("table-closed", "already-decided"), refused
        info = await status_becomes(service, table_id, "closed")
        assert info["closed_reason"] == "abandoned"
        # A spectator may not choose, nor act at the closed table: refusals.
        watcher = await websockets.connect(f"{service.ws_url}/tables/{table_id}/watch")
        await watcher.send(json.dumps({"type": "decide", "choice": "bot"}))
        told = await SeatClient(watcher, -1).until(lambda m: m["type"] == "error")
        assert told["code"] == "spectator", told
        await watcher.close()
        events = [r.event_type for r in
                  await service.infra.store.read_stream(table_stream(table_id))]
        assert events.count("AbsenceDecided") == 1 and events[-1] == "TableClosed"
        # Ana played a whole hand and left: her rated loss, Bea's win.
        ana = await board_line(service, "playelephant", "Ana")
        bea_line = await board_line(service, "playelephant", "Bea")
        assert (ana["abandoned"], ana["won"], ana["games"]) == (1, 0, 1), ana
        assert (bea_line["abandoned"], bea_line["won"], bea_line["games"]) == (0, 1, 1)
        assert bea_line["mu"] > 25 > ana["mu"]
        await bea.close()


async def test_two_people_one_leaves_and_the_other_plays_on_with_the_bot(
    database_url: str, nats_server: EmbeddedNats
) -> None:
    async with short_waits(database_url, nats_server, absence_wait=0.5) as service:
        table_id, _, _, bea = await two_at_a_table(service)
        await choose_once_open(bea, "bot")
        # The next hand is dealt, and the bot plays Ana's seat.
        await play_until([bea], lambda: hands_ended(bea) >= 3, within=90)
        info = (await service.http.get(f"/tables/{table_id}")).json()
        assert info["life"]["choice"] == "bot" and info["status"] == "playing"
        # Ana left: counted; the game is unrated for everyone, so nobody's rating moves.
        ana = await board_line(service, "playelephant", "Ana")
        assert (ana["abandoned"], ana["won"], ana["mu"]) == (1, 0, 25.0), ana
        await bea.close()


async def test_the_person_who_left_comes_back_in_time_and_plays_on(
    database_url: str, nats_server: EmbeddedNats
) -> None:
    async with short_waits(database_url, nats_server, absence_wait=60.0) as service:
        table_id, ana_seat, _, bea = await two_at_a_table(service)
        # Ana may not choose for her own absence: she comes back.
        ana = await SeatClient.connect(service.ws_url, table_id, ana_seat["token"])
        await ana.send({"type": "decide", "choice": "bot"})
        assert (await ana.until(lambda m: m["type"] == "error"))["code"] == "you-left"
        await ana.send({"type": "back"})
        await play_until([ana, bea], lambda: hands_ended(bea) >= 3, within=90)
        info = (await service.http.get(f"/tables/{table_id}")).json()
        assert info["life"]["choice"] is None and info["life"]["missing"] == []
        # Nothing to decide now.
        await bea.send({"type": "decide", "choice": "end"})
        assert (await bea.until(lambda m: m["type"] == "error"))["code"] == \
            "nothing-to-decide"
        await ana.close()
        await bea.close()


async def test_a_rematch_begins_when_everyone_still_seated_asks(service: Running) -> None:
    table = await create(service, overrides={"target": 5})
    table_id = table["table_id"]
    ana = await SeatClient.connect(service.ws_url, table_id,
                                   (await sit(service, table_id, 0, "Ana"))["token"])
    bea = await SeatClient.connect(service.ws_url, table_id,
                                   (await sit(service, table_id, 1, "Bea"))["token"])
    await play_until([ana, bea], lambda: all(c.view is not None
                                             and c.view["phase"] == "game-over"
                                             for c in (ana, bea)))
    await ana.send({"type": "rematch"})
    await bea.until(lambda m: m["type"] == "view" and m["life"]["rematch"] == ["Ana"])
    assert (await service.http.get(f"/tables/{table_id}")).json()["game"] == 1
    # Asking twice writes nothing more.
    before = len(await service.infra.store.read_stream(table_stream(table_id)))
    await ana.send({"type": "rematch"})
    await asyncio.sleep(0.3)  # a second ask would be written in this time: it may not
    assert len(await service.infra.store.read_stream(table_stream(table_id))) == before
    await bea.send({"type": "rematch"})
    await ana.until(lambda m: m["type"] == "game" and m["game"] == 2)
    events = [r.event_type for r in await service.infra.store.read_stream(table_stream(table_id))]
    assert events[-3:] == ["RematchAsked", "RematchAsked", "GameBegun"], events
    await ana.close()
    await bea.close()


async def test_two_people_one_leaves_and_a_new_person_takes_the_seat_from_the_lobby(
    database_url: str, nats_server: EmbeddedNats
) -> None:
    async with short_waits(database_url, nats_server, absence_wait=0.5) as service:
        table_id, ana_seat, _, bea = await two_at_a_table(service)
        await choose_once_open(bea, "seat")
        await bea.until(lambda m: m["type"] == "view" and m["life"]["choice"] == "seat")
        # The first choice stands: ending it now is refused, and writes nothing.
        await bea.send({"type": "decide", "choice": "end"})
        assert (await bea.until(lambda m: m["type"] == "error"))["code"] == "already-decided"
        # The lobby lists the seat: free, the game in progress, its scores.
        deadline = asyncio.get_running_loop().time() + 20
        while True:
            listed = [t for t in (await service.http.get("/lobby")).json()["open"]
                      if t["table_id"] == table_id]
            if listed:
                break
            assert asyncio.get_running_loop().time() < deadline, "the lobby never listed it"
            await asyncio.sleep(0.1)
        assert listed[0]["in_progress"] and len(listed[0]["scores"]) == 2, listed
        # Ana's old seat token no longer holds the seat.
        refused = await service.http.get(f"/tables/{table_id}")
        assert refused.json()["seats"][0]["free"] is True
        cy = await SeatClient.connect(service.ws_url, table_id,
                                      (await sit(service, table_id, 0, "Cy"))["token"])
        await play_until([bea, cy], lambda: hands_ended(bea) >= 3, within=90)
        # Ana left: counted; the game is unrated for everyone.
        ana = await board_line(service, "playelephant", "Ana")
        assert (ana["abandoned"], ana["mu"]) == (1, 25.0), ana
        with pytest.raises(AssertionError):
            await SeatClient.connect(service.ws_url, table_id, ana_seat["token"])
        await cy.close()
        await bea.close()


async def test_in_partnerships_the_leaver_loses_to_the_opponents_and_the_partner_is_untouched(
    database_url: str, nats_server: EmbeddedNats
) -> None:
    async with short_waits(database_url, nats_server, absence_wait=0.3) as service:
        table = await create(service, seats=4, partnerships=True)
        table_id = table["table_id"]
        names = ["Ana", "Bea", "Cy", "Dee"]  # sides: Ana and Cy, Bea and Dee
        clients = [await SeatClient.connect(service.ws_url, table_id,
                                            (await sit(service, table_id, seat, name))["token"])
                   for seat, name in enumerate(names)]
        await play_until(clients, lambda: hands_ended(clients[1]) >= 1
                         and clients[1].view is not None
                         and clients[1].view["phase"] == "playing")
        await clients[0].close()  # Ana leaves
        stayed = clients[1:]
        await play_until(stayed, lambda: (life_of(stayed[0]) or {}).get("kind") == "paused")
        await choose_once_open(stayed[0], "end")  # Bea ends it
        await status_becomes(service, table_id, "closed")
        ana = await board_line(service, table["preset"], "Ana")
        bea = await board_line(service, table["preset"], "Bea")
        dee = await board_line(service, table["preset"], "Dee")
        assert (ana["abandoned"], ana["won"]) == (1, 0) and ana["mu"] < 25
        assert bea["won"] == dee["won"] == 1 and bea["mu"] > 25
        board = (await service.http.get("/leaderboard", params={"preset": table["preset"]}))
        assert "Cy" not in [p["name"] for p in board.json()["players"]], \
            "the leaver's partner is neither rated nor blamed"
        for client in stayed:
            await client.close()


async def test_a_person_whose_clock_ran_out_and_who_then_leaves_has_left(
    database_url: str, nats_server: EmbeddedNats
) -> None:
    """The clock gave a bot the seat for a turn; the person then closes the
    page: that is leaving all the same (the bot finishes the hand, and with
    nobody left the table closes)."""
    async with short_waits(database_url, nats_server, absence_wait=60.0) as service:
        table = await create(service, bots=[{"seat": 1, "level": "greedy"}],
                             turn_clock_seconds=1)
        table_id = table["table_id"]
        player = await SeatClient.connect(service.ws_url, table_id,
                                          (await sit(service, table_id, 0, "Ana"))["token"])
        await player.until(lambda m: m["type"] == "view" and m["view"]["seats"][0]["bot"], 30)
        await player.close()
        info = await status_becomes(service, table_id, "closed")
        assert info["closed_reason"] == "everyone-left"
        takeovers = [table_event_decoder.decode(r.payload) for r in
                     await service.infra.store.read_stream(table_stream(table_id))
                     if r.event_type == "BotTookOver"]
        assert [getattr(t, "reason", None) for t in takeovers][-1] == "absent", takeovers
