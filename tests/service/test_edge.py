"""The edge on real servers: costly work admitted by one policy, hints and
analyses thought once and kept, the chat's limits, one chat subscription
per table per process, socket counts that cannot leak, and the rule that a
valid move takes a seat back from a bot, tested without a socket."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
import websockets

from muggins.domain.streams import chat_stream, stream_subjects
from muggins.domain.views import game_view
from muggins.rules.commands import Play
from muggins.rules.errors import IllegalMove
from muggins.rules.tiles import make_tile
from muggins.tables import chat as chat_module
from muggins.tables.admission import Payer, Throttled
from muggins.tables.errors import ChatFull, ChatNameTaken, ChatRateLimited
from tests.support.clients import SeatClient, loopback_http
from tests.support.service import Running
from tests.support.tables import create, sit
from tests.support.waits import eventually


async def my_turn_with_a_choice(player: SeatClient) -> None:
    """Play on until it is the player's turn with more than one play."""
    while True:
        if player.may_play():
            if len(player.view["legal"]) > 1:  # type: ignore[index]
                return
            await player.play_once()
        await player.receive()


async def a_finished_game(service: Running) -> str:
    """A table whose first game a person played to the end against a bot."""
    table = await create(service, bots=[{"seat": 1}])
    table_id: str = table["table_id"]
    granted = await sit(service, table_id, 0, "Ana")
    ana = await SeatClient.connect(service.ws_url, table_id, granted["token"])
    await ana.play_until_game_over()
    await ana.close()
    return table_id


async def test_a_hint_is_thought_once_and_every_socket_gets_the_same(service: Running) -> None:
    table = await create(service, bots=[{"seat": 1}], overrides={"hints": True})
    table_id = table["table_id"]
    granted = await sit(service, table_id, 0, "Ana")
    ana = await SeatClient.connect(service.ws_url, table_id, granted["token"])
    await my_turn_with_a_choice(ana)
    await ana.send({"type": "hint"})
    first = await ana.until(lambda m: m["type"] in ("hint", "error"), timeout=30)
    assert first["type"] == "hint", first
    # Another tab of the same seat, and a reconnect: the same hint, read back.
    other = await SeatClient.connect(service.ws_url, table_id, granted["token"])
    await other.send({"type": "hint"})
    second = await other.until(lambda m: m["type"] in ("hint", "error"), timeout=30)
    assert second == first
    rows = await service.infra.pool.fetchval(
        "SELECT count(*) FROM hints WHERE table_id = $1", table_id)
    assert rows == 1
    await ana.close()
    await other.close()


async def test_a_seat_out_of_hint_budget_is_refused_and_nothing_is_thought(
    service: Running,
) -> None:
    table = await create(service, bots=[{"seat": 1}], overrides={"hints": True})
    table_id = table["table_id"]
    granted = await sit(service, table_id, 0, "Ana")
    admission = service.runtime.admission
    with pytest.raises(Throttled):
        for _ in range(100):
            admission.admit("hint", [Payer("seat", f"{table_id}/0")])
    ana = await SeatClient.connect(service.ws_url, table_id, granted["token"])
    await my_turn_with_a_choice(ana)
    await ana.send({"type": "hint"})
    answer = await ana.until(lambda m: m["type"] in ("hint", "error"), timeout=30)
    assert answer["type"] == "error" and answer["code"] == "hint-rate-limited", answer
    assert "this seat" in answer["message"]
    # The wait, for the page to say in its language: the same as the words'.
    assert 1 <= answer["retry_after"] <= 60
    assert f"try again in {answer['retry_after']} s" in answer["message"]
    assert await service.infra.pool.fetchval(
        "SELECT count(*) FROM hints WHERE table_id = $1", table_id) == 0
    await ana.close()


async def test_an_analysis_past_the_address_budget_is_a_429_that_writes_nothing(
    service: Running,
) -> None:
    table_id = await a_finished_game(service)
    with pytest.raises(Throttled):
        for _ in range(100):
            service.runtime.admission.admit("analysis", [Payer("address", "127.0.0.1")])
    answer = await service.http.get(f"/tables/{table_id}/games/1/hands/1/analysis")
    assert answer.status_code == 429, answer.text
    assert answer.json()["code"] == "analysis-rate-limited"
    assert 1 <= int(answer.headers["retry-after"]) <= 60
    assert answer.json()["retry_after"] == int(answer.headers["retry-after"])
    assert await service.infra.pool.fetchval("SELECT count(*) FROM hand_analyses") == 0
    # Bad ids are refused before any budget or query, the same way everywhere.
    for bad in ("/tables/no!/games/1/hands/1/analysis", "/tables/no!/view",
                "/tables/no!", "/tables/no!/seating", "/tables/no!/events"):
        refused = await service.http.get(bad)
        assert (refused.status_code, refused.json()["code"]) == (404, "no-such-table"), bad


async def test_a_thought_analysis_is_kept_and_read_back(service: Running) -> None:
    table_id = await a_finished_game(service)
    path = f"/tables/{table_id}/games/1/hands/1/analysis"
    first = await service.http.get(path, timeout=120)
    assert first.status_code == 200, first.text
    assert await service.infra.pool.fetchval(
        "SELECT count(*) FROM hand_analyses WHERE table_id = $1", table_id) == 1
    # Read back even with no budget left: reading costs nobody anything.
    with pytest.raises(Throttled):
        for _ in range(100):
            service.runtime.admission.admit("analysis", [Payer("address", "127.0.0.1")])
    again = await service.http.get(path)
    assert again.status_code == 200 and again.content == first.content


async def spectator(service: Running, table_id: str) -> SeatClient:
    socket = await websockets.connect(f"{service.ws_url}/tables/{table_id}/watch")
    watcher = SeatClient(socket, -1)
    welcome = await watcher.receive()
    assert welcome["type"] == "welcome", welcome
    return watcher


async def next_of(socket: SeatClient, kind: str, timeout: float = 10) -> dict[str, Any]:
    return await socket.until(lambda message: message["type"] == kind, timeout)


async def test_the_chat_reaches_every_socket_through_one_subscription_per_table(
    service: Running,
) -> None:
    table = await create(service, seats=2)
    table_id = table["table_id"]
    ana_seat = await sit(service, table_id, 0, "Ana")
    bea_seat = await sit(service, table_id, 1, "Bea")
    ana = await SeatClient.connect(service.ws_url, table_id, ana_seat["token"])
    bea = await SeatClient.connect(service.ws_url, table_id, bea_seat["token"])
    watchers = [await spectator(service, table_id) for _ in range(20)]
    subject = stream_subjects(chat_stream(table_id))
    subscriptions = [s for s in service.infra.bus._subscriptions if s.subject == subject]
    assert len(subscriptions) == 1, "one chat subscription per table per process"
    await ana.send({"type": "chat", "text": "hola"})
    line = await bea.until(lambda m: m["type"] == "chat")
    assert line["name"] == "Ana" and line["text"] == "hola"
    for socket in watchers:
        assert (await next_of(socket, "chat"))["text"] == "hola"
    # A late joiner reads the lines said lately with its welcome, with no query of its own.
    late = await spectator(service, table_id)
    assert (await next_of(late, "chat"))["text"] == "hola"
    for socket in [*watchers, late]:
        await socket.close()
    await ana.close()
    await bea.close()


async def test_spectators_may_not_take_a_players_name_and_are_held_tighter(
    service: Running,
) -> None:
    table = await create(service, seats=2)
    table_id = table["table_id"]
    ana_seat = await sit(service, table_id, 0, "Ana")
    ana = await SeatClient.connect(service.ws_url, table_id, ana_seat["token"])
    watcher = await spectator(service, table_id)
    await watcher.send({"type": "chat", "text": "I am Ana", "name": " ana "})
    refused = await next_of(watcher, "error")
    assert refused["code"] == "chat-name-taken"
    # A guest's name reads in each reader's language: "Invitado 417" is the
    # seated "Guest 417" on an English page.
    await sit(service, table_id, 1, "Guest 417")
    await watcher.send({"type": "chat", "text": "soy yo", "name": "Invitado 417"})
    assert (await next_of(watcher, "error"))["code"] == "chat-name-taken"
    for n in range(3):
        await watcher.send({"type": "chat", "text": f"line {n}", "name": "Zoe"})
    seen: list[dict[str, Any]] = []
    while sum(m["type"] in ("chat", "error") for m in seen) < 3:
        seen.append(await watcher.receive(10))
    assert [m["text"] for m in seen if m["type"] == "chat"] == ["line 0", "line 1"]
    assert [m["code"] for m in seen if m["type"] == "error"] == ["chat-rate-limited"]
    assert [m["retry_after"] >= 1 for m in seen if m["type"] == "error"] == [True]
    stored = await service.infra.store.read_stream(chat_stream(table_id))
    assert [line.stream_version for line in stored] == [1, 2]
    await watcher.close()
    await ana.close()


async def test_a_tables_chat_holds_its_rate_and_its_size_across_processes(
    service: Running, monkeypatch: pytest.MonkeyPatch,
) -> None:
    table = await create(service, seats=2)
    table_id = table["table_id"]
    await sit(service, table_id, 0, "Ana")
    chat = service.runtime.chat
    state = (await service.runtime.seating.table(table_id)).state

    async def say(number: int, address: str) -> None:
        await chat.say(table_id, state, name="Ana", seat=0, text=f"line {number}", phrase=None,
                       payers=[Payer("socket", address), Payer("address", address)])

    # Ten speakers (as if through ten processes): the table's own cap holds.
    for number in range(chat_module.TABLE_BURST):
        await say(number, f"10.0.0.{number}")
    with pytest.raises(ChatRateLimited):
        await say(99, "10.0.1.1")
    # Spectators stop at half the table's bounds: they are refused earlier.
    with pytest.raises(ChatRateLimited):
        await chat.say(table_id, state, name="Zoe", seat=None, text="hi", phrase=None,
                       payers=[Payer("socket", "z"), Payer("address", "10.0.2.1")])
    stream = chat_stream(table_id)
    assert await service.infra.store.stream_version(stream) == chat_module.TABLE_BURST
    monkeypatch.setattr(chat_module, "MAX_LINES", chat_module.TABLE_BURST)
    with pytest.raises(ChatFull):
        await say(100, "10.0.1.2")
    with pytest.raises(ChatNameTaken):
        await chat.say(table_id, (await service.runtime.seating.table(table_id)).state,
                       name="ANA", seat=None, text="hi", phrase=None,
                       payers=[Payer("socket", "s"), Payer("address", "a")])
    assert await service.infra.store.stream_version(stream) == chat_module.TABLE_BURST


async def test_event_streams_that_end_before_their_first_byte_leave_no_count(
    service: Running,
) -> None:
    table = await create(service, bots=[{"seat": 0}, {"seat": 1}])
    table_id = table["table_id"]
    sockets = service.runtime.sockets
    for _ in range(30):
        async with (loopback_http(base_url=service.url, timeout=5) as client,
                    client.stream("GET", f"/tables/{table_id}/events") as response):
            assert response.status_code == 200
    await eventually(lambda: not sockets._open, within=10, what="every socket's count let go")
    feeds = service.runtime.feeds
    await eventually(lambda: feeds.watching(table_id) == 0, within=10,
                     what="the spectator gone from the feed")


async def test_an_event_stream_dropped_unstarted_gives_its_slot_back(service: Running) -> None:
    from muggins.tables.watch import EventStream

    table = await create(service, bots=[{"seat": 0}, {"seat": 1}])
    table_id = table["table_id"]
    runtime = service.runtime
    lease = runtime.sockets.lease("192.0.2.7", "events")
    assert lease is not None
    feed, place = await runtime.feeds.join(table_id)
    body = EventStream(runtime.feeds, feed, place, lease).body()
    assert runtime.sockets._open["192.0.2.7"] == 1
    del body  # never iterated: its finally never runs
    assert "192.0.2.7" not in runtime.sockets._open
    await eventually(lambda: runtime.feeds.watching(table_id) == 0, within=10,
                     what="the spectator gone from the feed")


# The bots wait 3 s before a move: with none, the bot given seat 0 could
# move before the person does (seen under a profiler), and the person's
# move would be refused as made on an old view instead of taking the seat
# back.  (When seat 1's bot leads, the test waits those 3 s for it too.)
@pytest.mark.service_settings(bot_delay=3.0)
async def test_a_valid_move_takes_the_seat_back_from_the_bot_without_a_socket(
    service: Running,
) -> None:
    runtime = service.runtime
    table = await create(service, bots=[{"seat": 1}], turn_clock_seconds=600)
    table_id = table["table_id"]
    await sit(service, table_id, 0, "Ana")
    while True:
        game = await runtime.commands.game(table_id, 1)
        state = game.state
        if state is not None and state.hand is not None and state.phase == "playing" and (
                state.hand.turn == 0):
            break
        await asyncio.sleep(0.02)
    hand = state.hand
    assert hand is not None
    assert await runtime.seating.take_over(table_id, 0, "absent", game=1,
                                           version=game.version, hand=hand.number)
    legal = game_view(state, 0, [None, None], [False, False]).legal
    with pytest.raises(IllegalMove):  # a move the rules refuse leaves the bot in the seat
        await runtime.commands.submit(table_id, Play(0, make_tile(6, 6), 7), actor="seat:0",
                                      known_version=game.version, expected_game=1, person=0)
    assert (await runtime.seating.table(table_id, fresh=True)).state.seats[0].takeover
    choice = legal[0]
    await runtime.commands.submit(table_id, Play(0, choice.tile, choice.end), actor="seat:0",
                                  known_version=game.version, expected_game=1, person=0)
    seats = (await runtime.seating.table(table_id, fresh=True)).state.seats
    assert seats[0].takeover is None
