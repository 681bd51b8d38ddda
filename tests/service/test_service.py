"""The table service's rules of engagement: refusals, tokens, reconnects,
bots taking over, two processes on one table, hidden information, bad input."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
import websockets

from muggins.eventstore.store import EventStore, create_pool
from muggins.infra.embedded import EmbeddedNats
from muggins.rules.tiles import tile_set
from muggins.tables.runtime import ServiceOptions
from tests.support.clients import SeatClient, assert_nothing_hidden
from tests.support.service import Running, serve
from tests.support.tables import create, human_vs_bot, seat_is_bot, sit, verify_store, watch
from tests.support.waits import eventually


async def my_turn(player: SeatClient) -> None:
    while not player.my_turn():
        await player.receive()


async def error_for(player: SeatClient, message: dict[str, Any]) -> dict[str, Any]:
    before = player.version
    await player.send(message)
    error = await player.until(lambda m: m["type"] == "error")
    assert player.version == before, "a refused command must change nothing"
    return error


async def stream_version(database_url: str, stream: str) -> int:
    pool = await create_pool(database_url)
    try:
        return await EventStore(pool).stream_version(stream)
    finally:
        await pool.close()


async def test_illegal_commands_are_refused_and_change_nothing(
    service: Running, database_url: str
) -> None:
    table_id, player = await human_vs_bot(service)
    await my_turn(player)
    assert player.view is not None
    legal = player.view["legal"][0]
    mine = {tuple(t) for t in player.view["tiles"]}
    not_mine = next(list(t) for t in tile_set(6) if tuple(t) not in mine)
    cases = [
        ({"type": "play", "tile": not_mine, "end": legal["end"]}, "tile-not-in-hand"),
        ({"type": "play", "tile": [7, 9], "end": legal["end"]}, "unknown-tile"),
        ({"type": "play", "tile": legal["tile"], "end": 9}, "no-such-end"),
        ({"type": "muggins"}, "nothing-to-call"),
    ]
    if legal["end"] is not None:
        cases.append(({"type": "play", "tile": legal["tile"], "end": None}, "no-such-end"))
    for message, code in cases:
        message["known_version"] = player.version
        error = await error_for(player, message)
        assert error["code"] == code, (message, error)
        assert error["message"]
    stale = {"type": "play", "tile": legal["tile"], "end": legal["end"],
             "known_version": player.version - 1}
    assert (await error_for(player, stale))["code"] == "stale-view"
    # Nothing was written: the store is where the player's view says it is.
    assert await stream_version(database_url, f"{table_id}-g1") == player.version
    await player.play_first_legal()
    await player.until(lambda m: m["type"] == "event")
    # Not your turn: the bot is to play (or already has; either way not seat 0's turn
    # until a view says so).
    if not player.my_turn():
        wrong = {"type": "play", "tile": legal["tile"], "end": 0, "known_version": player.version}
        error = await error_for(player, wrong)
        assert error["code"] in ("not-your-turn", "stale-view", "tile-not-in-hand")
    await player.close()


async def test_a_wrong_or_missing_token_is_refused(service: Running) -> None:
    table = await create(service, bots=[{"seat": 1}])
    url = f"{service.ws_url}/tables/{table['table_id']}/play"
    for first in ({"type": "hello", "token": "not-a-token"},
                  {"type": "play", "tile": [1, 2], "known_version": 0},
                  {"type": "hello"}):
        async with websockets.connect(url) as ws:
            await ws.send(json.dumps(first))
            reply = json.loads(await ws.recv())
            assert reply["type"] == "error"
            assert reply["code"] in ("bad-token", "hello-expected", "bad-message")
            with pytest.raises(websockets.ConnectionClosed):
                for _ in range(3):
                    await asyncio.wait_for(ws.recv(), 5)
    other = await create(service, bots=[{"seat": 1}])
    granted = await sit(service, other["table_id"], 0, "Bo")
    async with websockets.connect(url) as ws:  # a real token, for another table
        await ws.send(json.dumps({"type": "hello", "token": granted["token"]}))
        assert json.loads(await ws.recv())["code"] == "bad-token"


async def test_reconnect_gets_exactly_what_was_missed(service: Running) -> None:
    table = await create(service, bots=[{"seat": 1}])
    granted = await sit(service, table["table_id"], 0, "Ana")
    player = await SeatClient.connect(service.ws_url, table["table_id"], granted["token"])
    await my_turn(player)
    seen = player.version
    await player.play_first_legal()
    await player.close()
    stream = f"{table['table_id']}-g1"
    store = service.runtime.infra.store

    async def bot_answered() -> bool:  # the bot has played meanwhile
        return any(r.actor.startswith("bot:") for r in await store.read_stream(stream, seen))

    await eventually(bot_answered, what="the bot's answer")
    again = await SeatClient.connect(service.ws_url, table["table_id"], granted["token"],
                                     since=seen)
    assert again.version == seen and again.messages[0]["view"] is None
    missed = []
    while True:
        message = await again.receive()
        if message["type"] == "view":
            break
        missed.append(message["version"])
    assert missed and missed == list(range(seen + 1, message["version"] + 1))
    assert again.my_turn() or again.view is not None
    await again.close()


async def test_a_bot_takes_over_after_the_grace_period_and_the_player_reclaims(
    database_url: str, nats_server: EmbeddedNats
) -> None:
    async with serve(database_url, nats_server.url, grace_period=0.2) as service:
        table = await create(service, bots=[{"seat": 1}])
        table_id = table["table_id"]
        granted = await sit(service, table_id, 0, "Ana")
        player = await SeatClient.connect(service.ws_url, table_id, granted["token"])
        await player.close()
        await seat_is_bot(service, table_id, 0, True)  # "a bot must be marked as one"
        back = await SeatClient.connect(service.ws_url, table_id, granted["token"])
        # Connecting again is not enough: the player says so (or makes a valid move).
        info = (await service.http.get(f"/tables/{table_id}")).json()
        assert info["seats"][0]["bot"] is True
        await back.send({"type": "back"})
        await seat_is_bot(service, table_id, 0, False, within=5)
        await back.until(lambda m: m["type"] == "view" and not m["view"]["seats"][0]["bot"])
        await back.close()


async def test_a_bot_takes_over_when_the_turn_clock_runs_out(service: Running) -> None:
    table = await create(service, bots=[{"seat": 1}], turn_clock_seconds=1)
    granted = await sit(service, table["table_id"], 0, "Slow")
    player = await SeatClient.connect(service.ws_url, table["table_id"], granted["token"])
    await my_turn(player)
    assert player.messages[-1]["type"] in ("view", "welcome")
    # Do nothing: after a second a bot plays for seat 0.
    played = await player.until(
        lambda m: m["type"] == "event" and m["event"]["type"] == "TilePlayed"
        and m["event"]["seat"] == 0, timeout=10,
    )
    assert played
    info = (await service.http.get(f"/tables/{table['table_id']}")).json()
    assert info["seats"][0]["bot"] is True
    await player.close()


async def test_two_service_instances_serve_one_table(
    database_url: str, nats_server: EmbeddedNats
) -> None:
    async with serve(database_url, nats_server.url) as first, \
            serve(database_url, nats_server.url) as second:
        table = await create(first, bots=[{"seat": 2}, {"seat": 3}], seats=4, partnerships=True)
        tokens = [(await sit(first, table["table_id"], 0, "A"))["token"],
                  (await sit(second, table["table_id"], 1, "B"))["token"]]
        players = [
            await SeatClient.connect(first.ws_url, table["table_id"], tokens[0]),
            await SeatClient.connect(second.ws_url, table["table_id"], tokens[1]),
        ]
        await asyncio.gather(*(p.play_until_game_over(90) for p in players))
        assert [p.errors for p in players] == [[], []]
        assert players[0].version == players[1].version
        await verify_store(database_url, f"{table['table_id']}-g1")


async def test_no_seat_ever_sees_another_seats_tiles_or_the_seed_before_hand_end(
    service: Running,
) -> None:
    table = await create(service, seats=4, partnerships=True, bots=[{"seat": 1}, {"seat": 3}])
    tokens = [(await sit(service, table["table_id"], s, f"S{s}"))["token"] for s in (0, 2)]
    players = [await SeatClient.connect(service.ws_url, table["table_id"], t) for t in tokens]
    await asyncio.gather(*(p.play_until_game_over(90) for p in players))
    for player in players:
        held: set[tuple[int, int]] = set()
        for message in player.messages:
            text = json.dumps(message)
            kind = message["type"]
            if kind == "event":
                event = message["event"]
                if event["type"] == "HandStarted":
                    held = set()
                if event["type"] in ("TilesDealt", "TileDrawn", "BoneyardStacked",
                                     "SeedSealed"):
                    secret = event.get("tiles") or event.get("tile") or event.get("seed")
                    mine = event.get("seat") == player.seat
                    assert mine or secret is None, f"seat {player.seat} saw {event}"
                    if mine and event["type"] == "TilesDealt":
                        held = {tuple(t) for t in event["tiles"]}
                    if mine and event["type"] == "TileDrawn":
                        held.add(tuple(event["tile"]))
                if event["type"] == "HandEnded":
                    continue  # the hand is over: everything may be shown now
            if kind == "welcome" and message["view"]:
                held |= {tuple(t) for t in message["view"]["tiles"] or []}
            if kind in ("view", "welcome") and message["view"]:
                view = message["view"]
                assert {s["seat"] for s in view["seats"]} == {0, 1, 2, 3}
                assert "hands" not in view and "boneyard_tiles" not in view
                assert view["seat"] == player.seat
                tiles = view["tiles"] or []
                assert all(tuple(t) in held for t in tiles) or not held, (
                    f"seat {player.seat} view shows {tiles}, dealt/drawn {sorted(held)}"
                )
            assert "seed\": \"" not in text or '"HandEnded"' in text


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("post", "/tables", b"not json"),
        ("post", "/tables", b'{"seats": "two"}'),
        ("post", "/tables", b'{"seats": 9}'),
        ("post", "/tables", b'{"preset": "nope"}'),
        ("post", "/tables", b'{"unknown": 1}'),
        ("post", "/tables", b'{"bots": [{"seat": 7}]}'),
        ("post", "/tables", b'{"overrides": {"max_pip": 99}}'),
        ("post", "/tables", b'{"overrides": {"nonsense": true}}'),
        ("post", "/tables", b'{"seats": 3, "partnerships": true}'),
        ("post", "/tables", b"[" * 10000),
        ("post", "/tables", b'{"preset": "' + b"x" * 70000 + b'"}'),
        ("get", "/tables/does-not-exist", None),
        ("post", "/tables/does-not-exist/seats/0", b'{"name": "A"}'),
    ],
)
async def test_malformed_http_input_is_a_clear_4xx(
    service: Running, method: str, path: str, body: bytes | None
) -> None:
    response = await service.http.request(method.upper(), path, content=body,
                                          headers={"content-type": "application/json"})
    assert 400 <= response.status_code < 500, (response.status_code, response.text)


async def test_bad_seat_requests(service: Running) -> None:
    table = await create(service, bots=[{"seat": 1}])
    path = f"/tables/{table['table_id']}/seats"
    for seat, body, status in (
        (0, {"name": ""}, 400),
        (0, {"name": "x" * 25}, 400),
        (0, {"name": "<b>bold</b>"}, 400),
        (0, {"name": "tab\tname\x00"}, 400),
        (1, {"name": "Bot seat"}, 409),
        (5, {"name": "Nowhere"}, 400),
        (0, {"name": "A", "player": {"player_id": "nope", "secret": "x"}}, 400),
    ):
        response = await service.http.post(f"{path}/{seat}", json=body)
        assert response.status_code == status, (seat, body, response.text)
    assert (await service.http.post(f"{path}/0", json={"name": "  Ana  "})).status_code == 201
    again = await service.http.post(f"{path}/0", json={"name": "Bo"})
    assert again.status_code == 409


async def test_a_player_is_recognised_across_tables(service: Running) -> None:
    first = await create(service, bots=[{"seat": 1}])
    granted = await sit(service, first["table_id"], 0, "Ana")
    assert granted["player_secret"]
    second = await create(service, bots=[{"seat": 1}])
    identity = {"player_id": granted["player_id"], "secret": granted["player_secret"]}
    again = await service.http.post(f"/tables/{second['table_id']}/seats/0",
                                    json={"name": "Ana", "player": identity})
    assert again.status_code == 201 and again.json()["player_id"] == granted["player_id"]
    assert again.json()["player_secret"] is None
    third = await create(service, bots=[{"seat": 1}])
    forged = await service.http.post(
        f"/tables/{third['table_id']}/seats/0",
        json={"name": "Eve", "player": {**identity, "secret": "guess"}},
    )
    assert forged.status_code == 403


async def test_malformed_websocket_input_gets_an_error_not_a_crash(service: Running) -> None:
    _, player = await human_vs_bot(service)
    for raw in ("not json", '{"type": "fly"}', '{"type": "play", "tile": "6-4"}',
                '{"type": "play", "tile": [1, 2], "known_version": -1}',
                '{"type": "play", "tile": [1, 2], "known_version": 0, "extra": 1}'):
        await player.ws.send(raw)
        error = await player.until(lambda m: m["type"] == "error")
        assert error["code"] == "bad-message"
    await player.ws.send("x" * 5000)
    error = await player.until(lambda m: m["type"] == "error")
    assert error["code"] == "message-too-large"


async def test_health_readiness_and_schema(service: Running) -> None:
    assert (await service.http.get("/healthz")).json()["status"] == "ok"
    ready = await service.http.get("/readyz")
    assert ready.status_code == 200 and ready.json() == {
        "status": "ready", "postgres": "ok", "nats": "ok"
    }
    schema = (await service.http.get("/schema/openapi.json")).json()
    for path in ("/tables", "/tables/{table_id}", "/tables/{table_id}/seats/{seat}",
                 "/players/{player_id}/secret", "/healthz", "/readyz"):
        assert path in schema["paths"], path
    assert "CreateTable" in json.dumps(schema["components"])


async def test_rematch_starts_a_new_game_with_the_same_seats(service: Running) -> None:
    table = await create(service, preset="draw", bots=[{"seat": 1}])
    granted = await sit(service, table["table_id"], 0, "Ana")
    player = await SeatClient.connect(service.ws_url, table["table_id"], granted["token"])
    await player.play_until_game_over()
    await player.send({"type": "rematch"})
    await player.until(lambda m: m["type"] == "game" and m["game"] == 2)
    await player.until(lambda m: m["type"] == "welcome")
    assert player.game == 2
    info = (await service.http.get(f"/tables/{table['table_id']}")).json()
    assert info["game"] == 2 and info["seats"][0]["name"] == "Ana"
    await player.close()


async def test_a_spectator_sees_the_game_but_no_hidden_tile_or_seed(service: Running) -> None:
    table = await create(service, bots=[{"seat": 1}])
    granted = await sit(service, table["table_id"], 0, "Ana")
    spectator = await watch(service, table["table_id"])
    player = await SeatClient.connect(service.ws_url, table["table_id"], granted["token"])

    async def follow_to_the_end() -> None:
        while not (spectator.view and spectator.view["phase"] == "game-over"):
            await spectator.receive(30)

    await asyncio.gather(player.play_until_game_over(), follow_to_the_end())
    assert spectator.view is not None and spectator.view["tiles"] is None
    assert_nothing_hidden(spectator.messages)
    await spectator.send({"type": "play", "tile": [1, 2], "known_version": 0})
    error = await spectator.until(lambda m: m["type"] == "error")
    assert error["code"] == "spectator"
    await spectator.close()
    await player.close()


async def test_commands_beyond_the_rate_limit_are_refused(
    database_url: str, nats_server: EmbeddedNats
) -> None:
    slow = ServiceOptions(commands_per_second=1, command_burst=3, warm_workers=False)
    async with serve(database_url, nats_server.url, options=slow) as service:
        _, player = await human_vs_bot(service)
        for _ in range(6):
            await player.send({"type": "muggins", "known_version": player.version})
        codes: list[str] = []
        while len(codes) < 6:
            message = await player.receive()
            if message["type"] == "error":
                codes.append(message["code"])
        assert codes[:3].count("rate-limited") == 0  # the burst is allowed ...
        assert codes.count("rate-limited") >= 2  # ... then it is refused
        await player.close()


async def test_shutdown_closes_sockets_with_a_reason(
    database_url: str, nats_server: EmbeddedNats
) -> None:
    async with serve(database_url, nats_server.url) as service:
        _, player = await human_vs_bot(service)
        ws = player.ws
    with pytest.raises(websockets.ConnectionClosed) as closed:
        for _ in range(1000):
            await asyncio.wait_for(ws.recv(), 10)
    # 1001 (going away) from the service, or 1012 (service restart) from uvicorn,
    # which closes sockets first when it stops: either way the client knows why.
    assert closed.value.rcvd is not None and closed.value.rcvd.code in (1001, 1012)


async def test_lobby_table_view_and_metrics_come_from_the_read_model(service: Running) -> None:
    waiting = await create(service, bots=[{"seat": 1}])
    table = await create(service, bots=[{"seat": 0}, {"seat": 1, "level": "random"}])
    view = None
    for _ in range(200):  # the projector follows the game in this process
        response = await service.http.get(f"/tables/{table['table_id']}/view")
        if response.status_code == 200:
            view = response.json()
            break
        await asyncio.sleep(0.05)
    assert view is not None and view["view"]["tiles"] is None
    assert {s["seat"] for s in view["view"]["seats"]} == {0, 1}
    assert [(s["name"], s["bot"]) for s in view["view"]["seats"]] == [
        ("Ada", True), ("Bruno", True)]
    assert view["preset"] == "playelephant" and view["ruleset"]["seats"] == 2
    assert "spinner" in view["summary"]
    # the lobby is its own projector, which may still be a page behind the view's
    open_ids: set[str] = set()
    for _ in range(200):
        lobby = (await service.http.get("/lobby")).json()
        open_ids = {t["table_id"] for t in lobby["open"]}
        if waiting["table_id"] in open_ids:
            break
        await asyncio.sleep(0.05)
    assert waiting["table_id"] in open_ids
    assert table["table_id"] not in open_ids
    missing = await service.http.get(f"/tables/{waiting['table_id']}/view")
    assert missing.status_code == 404
    metrics = (await service.http.get("/metrics")).text
    assert 'muggins_projector_lag_events{projector="table-views"}' in metrics
